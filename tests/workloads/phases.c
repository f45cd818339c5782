// SPDX-License-Identifier: GPL-2.0
/*
 * phases: a workload whose off-CPU profile changes over time, for the
 * window and differential flame graph tests. It alternates two phases of
 * -d MS each, -n times (phase 1, phase 2, phase 1, ...):
 *   phase 1: sleeps of 30 ms in phase_a_fn, then 10 ms in phase_b_fn
 *            (a:b = 3:1, no phase_c_fn);
 *   phase 2: sleeps of 10 ms in phase_a_fn, 20 ms in phase_b_fn and
 *            10 ms in phase_c_fn (a:b:c = 1:2:1).
 * The sleeps are inline nanosleep system calls, so each function is the
 * leaf of its user stack (see offcpu.c). After each phase it prints
 *   {"pid":P,"phase":1,"start_ms":EPOCH_MS,"end_ms":EPOCH_MS}
 * (CLOCK_REALTIME, the clock of the tools' window stamps).
 *
 *   phases [-d PHASE_MS] [-n PHASES] [-g GO_FIFO]
 */
#include <sys/syscall.h>
#include "wl.h"

static long long epoch_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

#define NANOSLEEP(ms) ({						\
	struct timespec __ts = { 0, (ms) * 1000000L };			\
	register long __a asm("rdi") = (long)&__ts;			\
	register long __b asm("rsi") = 0;				\
	long __ret;							\
	asm volatile("syscall" : "=a"(__ret)				\
		     : "0"((long)SYS_nanosleep), "r"(__a), "r"(__b)	\
		     : "rcx", "r11", "memory");				\
	__ret;								\
})

__attribute__((noinline)) void phase_a_fn(int ms)
{
	NANOSLEEP(ms);
}

__attribute__((noinline)) void phase_b_fn(int ms)
{
	NANOSLEEP(ms);
}

__attribute__((noinline)) void phase_c_fn(int ms)
{
	NANOSLEEP(ms);
}

int main(int argc, char **argv)
{
	int phase_ms = 3000, n = 2, opt, i;
	const char *go = NULL;
	long long start, end;

	while ((opt = getopt(argc, argv, "d:n:g:")) != -1) {
		switch (opt) {
		case 'd': phase_ms = atoi(optarg); break;
		case 'n': n = atoi(optarg); break;
		case 'g': go = optarg; break;
		default:
			fprintf(stderr, "usage: phases [-d PHASE_MS] [-n PHASES] [-g GO_FIFO]\n");
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	wl_wait_go(go);
	for (i = 0; i < n; i++) {
		start = epoch_ms();
		end = start + phase_ms;
		while (epoch_ms() < end) {
			if (i % 2 == 0) {
				phase_a_fn(30);
				phase_b_fn(10);
			} else {
				phase_a_fn(10);
				phase_b_fn(20);
				phase_c_fn(10);
			}
		}
		printf("{\"pid\":%d,\"phase\":%d,\"start_ms\":%lld,\"end_ms\":%lld}\n", getpid(),
		       i % 2 + 1, start, epoch_ms());
	}
	return 0;
}
