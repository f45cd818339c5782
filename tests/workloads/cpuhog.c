// SPDX-License-Identifier: GPL-2.0
/*
 * cpuhog: N threads pinned to one CPU spin for S seconds after the go
 * signal (or, with -u USEC, sleep USEC at a time instead of spinning: the
 * uncontended control). At the end it prints, as one JSON line, the
 * run-queue wait the kernel accounted (schedstat run_delay) and the times
 * each thread was put on a CPU (schedstat pcount: the waits), main thread
 * included, over the whole life of the process.
 *   cpuhog [-n threads] [-s seconds] [-c cpu] [-u sleep_us] [-g fifo]
 */
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include "wl.h"

static int nthreads = 4, seconds = 2, cpu = 0, sleep_us;
static unsigned long long end_ns;
static pthread_barrier_t barrier;

struct result {
	int tid;
	unsigned long long delay, slices;
	unsigned long long loops;
};

static void *worker(void *arg)
{
	struct result *r = arg;
	cpu_set_t set;

	r->tid = syscall(SYS_gettid);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		perror("sched_setaffinity");
	pthread_barrier_wait(&barrier);
	while (wl_now_ns() < end_ns) {
		if (sleep_us) {
			struct timespec ts = { 0, sleep_us * 1000L };

			nanosleep(&ts, NULL);
		}
		r->loops++;
	}
	r->delay = wl_schedstat(r->tid, &r->slices);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *fifo = NULL;
	struct result *res;
	pthread_t *th;
	unsigned long long total = 0, slices = 0, n;
	int opt, i;

	while ((opt = getopt(argc, argv, "n:s:c:u:g:")) != -1) {
		switch (opt) {
		case 'n': nthreads = atoi(optarg); break;
		case 's': seconds = atoi(optarg); break;
		case 'c': cpu = atoi(optarg); break;
		case 'u': sleep_us = atoi(optarg); break;
		case 'g': fifo = optarg; break;
		default: return 2;
		}
	}
	wl_wait_go(fifo);
	res = calloc(nthreads, sizeof(*res));
	th = calloc(nthreads, sizeof(*th));
	pthread_barrier_init(&barrier, NULL, nthreads + 1);
	for (i = 0; i < nthreads; i++)
		pthread_create(&th[i], NULL, worker, &res[i]);
	end_ns = wl_now_ns() + seconds * 1000000000ULL;
	pthread_barrier_wait(&barrier);
	for (i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	printf("{\"pid\":%d,\"threads\":[", getpid());
	for (i = 0; i < nthreads; i++) {
		printf("%s{\"tid\":%d,\"run_delay_ns\":%llu,\"slices\":%llu,\"loops\":%llu}",
		       i ? "," : "", res[i].tid, res[i].delay, res[i].slices, res[i].loops);
		total += res[i].delay;
		slices += res[i].slices;
	}
	total += wl_schedstat(getpid(), &n);
	slices += n;
	printf("],\"total_run_delay_ns\":%llu,\"total_slices\":%llu}\n", total, slices);
	return 0;
}
