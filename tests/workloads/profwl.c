// SPDX-License-Identifier: GPL-2.0
/*
 * profwl: CPU burnt in named functions, for profile-lite's tests. Each
 * round, the main thread runs
 *   prof_hot_fn   3 units of arithmetic,
 *   prof_cold_fn  1 unit of the same arithmetic (so about 3:1),
 *   prof_sys_fn   reads of /dev/zero (time in the kernel: read_zero),
 *   prof_sleep_fn with -S MS, a nanosleep of MS (off CPU),
 * for SECONDS of wall time after the go signal (with -b CPU_MS: until it
 * has used CPU_MS of CPU time, SECONDS at most), and measures the thread
 * CPU time each one took. The system calls are inline "syscall"
 * instructions in the named functions (glibc has no frame pointers:
 * through its wrappers the caller would be lost from the user stack).
 * With -T N, N more threads spin in prof_thread_fn; with -c CPU every
 * thread is pinned to that CPU.
 *   profwl [-s SECONDS] [-b CPU_MS] [-u UNIT_ITERS] [-S SLEEP_MS] [-T N] [-c CPU]
 *          [-g GO_FIFO]
 * prints one JSON line at the end: {"pid", "tid", "hot_ns", "cold_ns",
 * "sys_ns", "cpu_ns" (the main thread's CPU time), "wall_ns" (of the
 * rounds), "stat_cpu_s" (utime + stime of the whole process, from
 * /proc/self/stat), "rounds"}.
 */
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include "wl.h"

static volatile unsigned long long sink;
static volatile int stop;
static char buf[64 * 1024];

static unsigned long long thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * The same loop for both, in their own code (a macro: workloads are built
 * with -fno-inline): the ratio of their times is that of iterations.
 */
#define BURN(iters) ({							\
	unsigned long long __x = 88172645463325252ULL;			\
	for (unsigned long long __i = 0; __i < (iters); __i++) {	\
		__x ^= __x << 13;					\
		__x ^= __x >> 7;					\
		__x ^= __x << 17;					\
	}								\
	__x;								\
})

__attribute__((noinline)) void prof_hot_fn(unsigned long long unit)
{
	sink += BURN(3 * unit);
}

__attribute__((noinline)) void prof_cold_fn(unsigned long long unit)
{
	sink += BURN(unit);
}

__attribute__((noinline)) void prof_sys_fn(int fd)
{
	for (int i = 0; i < 64; i++)
		SYSCALL3(SYS_read, fd, buf, sizeof(buf));
}

__attribute__((noinline)) void prof_sleep_fn(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (SYSCALL3(SYS_nanosleep, &ts, &ts, 0) == -EINTR)
		;
}

__attribute__((noinline)) void *prof_thread_fn(void *arg)
{
	(void)arg;
	while (!stop)
		sink += BURN(100000);
	return NULL;
}

static void pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		perror("sched_setaffinity");
}

/* utime + stime of this process in seconds. */
static double stat_cpu_s(void)
{
	unsigned long ut = 0, st = 0;
	char line[1024], *p;
	FILE *f = fopen("/proc/self/stat", "r");

	if (!f || !fgets(line, sizeof(line), f)) {
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	/* after the comm, which may hold spaces: field 3 onwards */
	p = strrchr(line, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
		return -1;
	return (double)(ut + st) / sysconf(_SC_CLK_TCK);
}

int main(int argc, char **argv)
{
	unsigned long long unit = 200000, hot = 0, cold = 0, sys = 0, t, c0, w0, rounds = 0;
	unsigned long long budget_ms = 0;
	int seconds = 2, sleep_ms = 0, nthreads = 0, cpu = -1, opt, fd, i;
	const char *go = NULL;
	pthread_t th[16];

	while ((opt = getopt(argc, argv, "s:b:u:S:T:c:g:")) != -1) {
		switch (opt) {
		case 's': seconds = atoi(optarg); break;
		case 'b': budget_ms = strtoull(optarg, NULL, 0); break;
		case 'u': unit = strtoull(optarg, NULL, 0); break;
		case 'S': sleep_ms = atoi(optarg); break;
		case 'T': nthreads = atoi(optarg) > 16 ? 16 : atoi(optarg); break;
		case 'c': cpu = atoi(optarg); break;
		case 'g': go = optarg; break;
		default:
			fprintf(stderr, "usage: profwl [-s SECONDS] [-b CPU_MS] [-u UNIT_ITERS] [-S SLEEP_MS] "
				"[-T N] [-c CPU] [-g GO_FIFO]\n");
			return 2;
		}
	}
	fd = open("/dev/zero", O_RDONLY);
	if (fd < 0) {
		perror("/dev/zero");
		return 1;
	}
	pin(cpu);
	wl_wait_go(go);
	for (i = 0; i < nthreads; i++)
		pthread_create(&th[i], NULL, prof_thread_fn, NULL);
	w0 = wl_now_ns();
	c0 = thread_cpu_ns();
	while (wl_now_ns() - w0 < seconds * 1000000000ULL &&
	       (!budget_ms || thread_cpu_ns() - c0 < budget_ms * 1000000ULL)) {
		t = thread_cpu_ns();
		prof_hot_fn(unit);
		hot += thread_cpu_ns() - t;
		t = thread_cpu_ns();
		prof_cold_fn(unit);
		cold += thread_cpu_ns() - t;
		t = thread_cpu_ns();
		prof_sys_fn(fd);
		sys += thread_cpu_ns() - t;
		if (sleep_ms)
			prof_sleep_fn(sleep_ms);
		rounds++;
	}
	t = wl_now_ns() - w0;
	c0 = thread_cpu_ns() - c0;
	stop = 1;
	for (i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	printf("{\"pid\":%d,\"tid\":%ld,\"hot_ns\":%llu,\"cold_ns\":%llu,\"sys_ns\":%llu,"
	       "\"cpu_ns\":%llu,\"wall_ns\":%llu,\"stat_cpu_s\":%.2f,\"rounds\":%llu}\n",
	       getpid(), (long)syscall(SYS_gettid), hot, cold, sys, c0, t, stat_cpu_s(), rounds);
	return 0;
}
