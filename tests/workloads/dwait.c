// SPDX-License-Identifier: GPL-2.0
/*
 * dwait: uninterruptible (D) sleeps of known length, for dstate-lite.
 *   dwait -V [-n N] [-d MS] [-g fifo]  vfork N times; each child sleeps MS
 *                                      then _exit()s: the parent waits in
 *                                      a killable D sleep in kernel_clone.
 *   dwait -M [-n N] [-d MS] [-g fifo]  N times: a holder thread write()s
 *                                      to a pipe from a userfaultfd page,
 *                                      so the kernel takes the pipe's mutex
 *                                      then sleeps in the fault; a waiter
 *                                      thread write()s to the same pipe and
 *                                      blocks in mutex_lock (D) until the
 *                                      fault is resolved MS later and the
 *                                      holder unlocks.
 *   dwait -S [-n N] [-d MS] [-g fifo]  the control: N nanosleeps of MS,
 *                                      interruptible, never D.
 * -l MS: stay alive MS after the work (for user-stack symbolization).
 * -x CMD ARGS...: then exec CMD (another program in the same process).
 * At the end it prints one JSON line: pids and tids of the roles and each
 * episode's length as the workload measured it.
 */
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "wl.h"

#define MAX_N 100000

static int n = 5, delay_ms = 200, linger_ms;
static unsigned long long lens[MAX_N];
/* -M: CLOCK_REALTIME just before each blocking write, to compare with a tool's wall clock */
static unsigned long long starts_rt[MAX_N];
static int wakers[MAX_N];

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int gettid_(void)
{
	return syscall(SYS_gettid);
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* ---- vfork ------------------------------------------------------------ */

static void run_vfork(void)
{
	for (int i = 0; i < n; i++) {
		unsigned long long t0 = wl_now_ns();
		pid_t child = vfork();

		if (child < 0)
			die("vfork");
		if (child == 0) {
			sleep_ms(delay_ms);
			_exit(0);
		}
		lens[i] = wl_now_ns() - t0;
		wakers[i] = child;
		waitpid(child, NULL, 0);
	}
}

/* ---- pipe mutex held across a userfaultfd fault -------------------------- */

static int pfd[2], uffd;
static char *pages;
static long page_size;
static sem_t go_holder, go_waiter, waiter_done;
static int holder_tid, waiter_tid;

static void *holder(void *arg)
{
	(void)arg;
	holder_tid = gettid_();
	for (int i = 0; i < n; i++) {
		sem_wait(&go_holder);
		/* pipe_write: mutex_lock(&pipe->mutex), then copy from a missing page */
		if (write(pfd[1], pages + i * page_size, 1) != 1)
			die("holder write");
	}
	return NULL;
}

static void *waiter(void *arg)
{
	(void)arg;
	waiter_tid = gettid_();
	for (int i = 0; i < n; i++) {
		unsigned long long t0;

		sem_wait(&go_waiter);
		starts_rt[i] = wl_realtime_ns();
		t0 = wl_now_ns();
		if (write(pfd[1], "w", 1) != 1)	/* blocks on the held pipe mutex */
			die("waiter write");
		lens[i] = wl_now_ns() - t0;
		wakers[i] = holder_tid;
		sem_post(&waiter_done);
	}
	return NULL;
}

/* State letter of one of our threads, from /proc. */
static char thread_state(int tid)
{
	char path[64], buf[256], *p;
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return '?';
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return '?';
	buf[len] = 0;
	p = strrchr(buf, ')');
	return p && p[1] && p[2] ? p[2] : '?';
}

static void wait_state(int tid, char want)
{
	for (int i = 0; i < 5000; i++) {	/* 5 s */
		if (thread_state(tid) == want)
			return;
		usleep(200);
	}
	fprintf(stderr, "dwait: thread %d never reached state %c\n", tid, want);
	exit(1);
}

static void run_mutex(void)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;
	pthread_t th, tw;
	char *src, sink[4];

	page_size = sysconf(_SC_PAGESIZE);
	if (pipe(pfd))
		die("pipe");
	uffd = syscall(SYS_userfaultfd, O_CLOEXEC);
	if (uffd < 0)
		die("userfaultfd");
	if (ioctl(uffd, UFFDIO_API, &api))
		die("UFFDIO_API");
	pages = mmap(NULL, n * page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	src = mmap(NULL, page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (pages == MAP_FAILED || src == MAP_FAILED)
		die("mmap");
	memset(src, 'h', page_size);
	reg.range.start = (unsigned long)pages;
	reg.range.len = n * page_size;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg))
		die("UFFDIO_REGISTER");
	sem_init(&go_holder, 0, 0);
	sem_init(&go_waiter, 0, 0);
	sem_init(&waiter_done, 0, 0);
	pthread_create(&th, NULL, holder, NULL);
	pthread_create(&tw, NULL, waiter, NULL);
	while (!__atomic_load_n(&waiter_tid, __ATOMIC_ACQUIRE) ||
	       !__atomic_load_n(&holder_tid, __ATOMIC_ACQUIRE))
		usleep(100);

	for (int i = 0; i < n; i++) {
		struct pollfd pf = { .fd = uffd, .events = POLLIN };
		struct uffd_msg msg;
		struct uffdio_copy copy;

		sem_post(&go_holder);
		/* the holder faults with the pipe mutex held */
		if (poll(&pf, 1, 5000) != 1)
			die("poll userfaultfd");
		if (read(uffd, &msg, sizeof(msg)) != sizeof(msg) ||
		    msg.event != UFFD_EVENT_PAGEFAULT)
			die("read userfaultfd");
		sem_post(&go_waiter);
		wait_state(waiter_tid, 'D');
		sleep_ms(delay_ms);
		copy.dst = msg.arg.pagefault.address & ~(page_size - 1);
		copy.src = (unsigned long)src;
		copy.len = page_size;
		copy.mode = 0;
		if (ioctl(uffd, UFFDIO_COPY, &copy))
			die("UFFDIO_COPY");
		sem_wait(&waiter_done);
		if (read(pfd[0], sink, 2) != 2)
			die("read pipe");
	}
	pthread_join(th, NULL);
	pthread_join(tw, NULL);
}

/* ---- control ----------------------------------------------------------- */

static void run_sleep(void)
{
	for (int i = 0; i < n; i++) {
		unsigned long long t0 = wl_now_ns();

		sleep_ms(delay_ms);
		lens[i] = wl_now_ns() - t0;
	}
}

int main(int argc, char **argv)
{
	const char *fifo = NULL, *mode = NULL;
	int opt, exec_after = 0;

	while ((opt = getopt(argc, argv, "+VMSn:d:g:l:x")) != -1) {
		switch (opt) {
		case 'V': mode = "vfork"; break;
		case 'M': mode = "mutex"; break;
		case 'S': mode = "sleep"; break;
		case 'n': n = atoi(optarg); break;
		case 'd': delay_ms = atoi(optarg); break;
		case 'g': fifo = optarg; break;
		case 'l': linger_ms = atoi(optarg); break;
		case 'x': exec_after = 1; break;
		default: return 2;
		}
	}
	if (!mode || n < 1 || n > MAX_N || delay_ms < 0 || exec_after != (optind < argc)) {
		fprintf(stderr, "usage: dwait -V|-M|-S [-n 1..%d] [-d ms] [-g fifo] [-l ms] [-x CMD ARGS...]\n",
			MAX_N);
		return 2;
	}
	wl_wait_go(fifo);
	if (!strcmp(mode, "vfork"))
		run_vfork();
	else if (!strcmp(mode, "mutex"))
		run_mutex();
	else
		run_sleep();

	printf("{\"pid\":%d,\"mode\":\"%s\",\"delay_ms\":%d", getpid(), mode, delay_ms);
	if (!strcmp(mode, "mutex"))
		printf(",\"holder_tid\":%d,\"waiter_tid\":%d", holder_tid, waiter_tid);
	printf(",\"episodes\":[");
	for (int i = 0; i < n; i++)
		if (!strcmp(mode, "mutex"))
			printf("%s{\"ns\":%llu,\"waker_tid\":%d,\"start_realtime_ns\":%llu}",
			       i ? "," : "", lens[i], wakers[i], starts_rt[i]);
		else
			printf("%s{\"ns\":%llu,\"waker_tid\":%d}", i ? "," : "", lens[i], wakers[i]);
	printf("]}\n");
	fflush(stdout);
	sleep_ms(linger_ms);	/* -l: stay alive for a tool to read our maps */
	if (exec_after) {
		execvp(argv[optind], argv + optind);
		die("exec");
	}
	return 0;
}
