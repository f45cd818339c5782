// SPDX-License-Identifier: GPL-2.0
/*
 * stacks10k: blocks once (a nanosleep of 1 us, which sleeps for the timer
 * slack) at the end of each of N distinct call paths, for the stack tools'
 * benchmarks: path i is 14 levels of stk_a()/stk_b() chosen by the bits
 * of i, so every block has its own user stack.
 *
 * -r R walks the N paths R times (0: until killed), for long runs.
 *
 *   stacks10k [-n N] [-r R] [-g GO_FIFO]      (N at most 16384, default 10000)
 */
#include <sys/syscall.h>
#include "wl.h"

#define LEVELS 14

static volatile unsigned long sink;

__attribute__((noinline)) static void stk_leaf(void)
{
	struct timespec ts = { 0, 1000 };
	long ret;

	/* inline: the caller chain stays walkable by frame pointers */
	asm volatile("syscall" : "=a"(ret) : "0"((long)SYS_nanosleep), "D"(&ts), "S"(0L)
		     : "rcx", "r11", "memory");
	sink += ret;
}

__attribute__((noinline)) void stk_b(unsigned int v, int d);

__attribute__((noinline)) void stk_a(unsigned int v, int d)
{
	if (!d)
		stk_leaf();
	else if (v & 1)
		stk_a(v >> 1, d - 1);
	else
		stk_b(v >> 1, d - 1);
	sink++;		/* no tail call: every level keeps its frame */
}

__attribute__((noinline)) void stk_b(unsigned int v, int d)
{
	if (!d)
		stk_leaf();
	else if (v & 1)
		stk_a(v >> 1, d - 1);
	else
		stk_b(v >> 1, d - 1);
	sink++;
}

int main(int argc, char **argv)
{
	const char *go = NULL;
	int n = 10000, rounds = 1, opt, i, r;

	while ((opt = getopt(argc, argv, "n:r:g:")) != -1) {
		switch (opt) {
		case 'n': n = atoi(optarg); break;
		case 'r': rounds = atoi(optarg); break;
		case 'g': go = optarg; break;
		default:
			fprintf(stderr, "usage: stacks10k [-n N] [-r R] [-g GO_FIFO]\n");
			return 2;
		}
	}
	if (n < 1 || n > 1 << LEVELS)
		n = 10000;
	wl_wait_go(go);
	for (r = 0; !rounds || r < rounds; r++)
		for (i = 0; i < n; i++)
			stk_a(i, LEVELS);
	printf("{\"pid\":%d,\"paths\":%d}\n", getpid(), n);
	return 0;
}
