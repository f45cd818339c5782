/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared bits of the test workloads. A workload is started by a test
 * with a "go" FIFO: it does its set-up, then blocks opening the FIFO
 * until the test (with the tool attached) writes to it.
 */
#ifndef BPFLITE_WL_H
#define BPFLITE_WL_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/*
 * A system call by an inline "syscall" instruction (x86_64): it sits in
 * the calling function's own code, so that function is the leaf of the
 * user stack (glibc is built without frame pointers: through its wrappers
 * the caller would be lost).
 */
#define SYSCALL3(nr, a, b, c) ({					\
	long __ret;							\
	register long __a asm("rdi") = (long)(a);			\
	register long __b asm("rsi") = (long)(b);			\
	register long __c asm("rdx") = (long)(c);			\
	asm volatile("syscall" : "=a"(__ret)				\
		     : "0"((long)(nr)), "r"(__a), "r"(__b), "r"(__c)	\
		     : "rcx", "r11", "memory");				\
	__ret;								\
})

static inline void wl_wait_go(const char *fifo)
{
	char c;
	int fd;

	if (!fifo)
		return;
	/*
	 * A test that fails before it says go must not leave the workload
	 * behind (it would hold the test runner's output open): give up
	 * after a minute. SIGALRM's default action ends the process.
	 */
	alarm(60);
	fd = open(fifo, O_RDONLY);
	if (fd < 0) {
		perror(fifo);
		exit(1);
	}
	while (read(fd, &c, 1) < 0 && errno == EINTR)
		;
	alarm(0);
	close(fd);
}

static inline unsigned long long wl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* The wall clock, for comparing with a tool's timestamps. */
static inline unsigned long long wl_realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * run_delay (ns waiting on a run queue) of thread tid, from schedstat;
 * with slices, also the times it was put on a CPU (pcount: each one ends
 * a wait, the kernel's count of what runqlat measures).
 */
static inline unsigned long long wl_schedstat(int tid, unsigned long long *slices)
{
	unsigned long long run, delay = 0, n = 0;
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", tid);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%llu %llu %llu", &run, &delay, &n) != 3)
			delay = n = 0;
		fclose(f);
	}
	if (slices)
		*slices = n;
	return delay;
}

static inline unsigned long long wl_run_delay(int tid)
{
	return wl_schedstat(tid, NULL);
}

#endif
