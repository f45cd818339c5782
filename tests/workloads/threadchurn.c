// SPDX-License-Identifier: GPL-2.0
/*
 * threadchurn: threads that live a moment, without end (until killed or
 * for S seconds), T at a time: a process whose /proc/PID/task is never
 * the same twice, for strace-lite -p's race with exiting threads.
 *   threadchurn [-t T] [-s S]
 */
#include <pthread.h>
#include "wl.h"

static void *brief(void *arg)
{
	return arg;
}

int main(int argc, char **argv)
{
	long t = 4, secs = 60;
	int opt;

	while ((opt = getopt(argc, argv, "t:s:")) != -1) {
		switch (opt) {
		case 't': t = atol(optarg); break;
		case 's': secs = atol(optarg); break;
		default: return 2;
		}
	}
	if (t < 1 || t > 64)
		return 2;
	alarm(secs);	/* never outlives a failed test */
	for (;;) {
		pthread_t th[64];

		for (long i = 0; i < t; i++)
			pthread_create(&th[i], NULL, brief, NULL);
		for (long i = 0; i < t; i++)
			pthread_join(th[i], NULL);
	}
}
