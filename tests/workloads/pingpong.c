// SPDX-License-Identifier: GPL-2.0
/*
 * pingpong: two processes bounce one byte over a pair of pipes N times:
 * two context switches per round trip, the worst case for scheduler
 * tracing. Prints the elapsed time and ns per round trip.
 *   pingpong [-n round_trips] [-c cpu (pin both to it; -1: no pinning)]
 */
#include <sched.h>
#include <sys/wait.h>
#include "wl.h"

int main(int argc, char **argv)
{
	long n = 1000000, i;
	int cpu = -1, opt, a[2], b[2];
	unsigned long long t0, t1;
	char c = 'x';
	pid_t child;

	while ((opt = getopt(argc, argv, "n:c:")) != -1) {
		switch (opt) {
		case 'n': n = atol(optarg); break;
		case 'c': cpu = atoi(optarg); break;
		default: return 2;
		}
	}
	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	if (pipe(a) || pipe(b))
		return 1;
	child = fork();
	if (child == 0) {
		for (i = 0; i < n; i++) {
			if (read(a[0], &c, 1) != 1 || write(b[1], &c, 1) != 1)
				_exit(1);
		}
		_exit(0);
	}
	t0 = wl_now_ns();
	for (i = 0; i < n; i++) {
		if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
			return 1;
	}
	t1 = wl_now_ns();
	waitpid(child, NULL, 0);
	printf("{\"round_trips\":%ld,\"seconds\":%.3f,\"ns_per_round_trip\":%.0f}\n", n,
	       (t1 - t0) / 1e9, (double)(t1 - t0) / n);
	return 0;
}
