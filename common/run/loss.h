/* SPDX-License-Identifier: GPL-2.0 */
#ifndef BPFLITE_LOSS_H
#define BPFLITE_LOSS_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "abi/loss_abi.h"

/*
 * fn counts the runs of the tool's programs the kernel skipped (the same
 * program already running on that CPU): reported with the counters.
 * common/load/tool.c sets it when the programs are attached.
 */
void loss__missed_from(__u64 (*fn)(void));
/* What fn counts now; 0 before any program is attached. */
__u64 loss__missed(void);

/* Total of the BPF side's counters (loss__missed() apart: it asks the kernel). */
__u64 loss__total(const struct bpflite_loss *l);
/*
 * At exit: a warning on stderr for each non-zero counter, and with json a
 * final {"type":"loss",...} record on stdout. Nothing when all are zero.
 */
void loss__report(const struct bpflite_loss *l, bool json);
/* The same with the JSON record on json (NULL: none), a -o file for example. */
void loss__report_to(const struct bpflite_loss *l, FILE *json);

/*
 * sum += add, counter by counter: the two copies of one struct of __u64
 * counters that two BPF objects keep in .bss (profile-lite --off-cpu's).
 */
#define COUNTERS_ADD(sum, add)								\
	do {										\
		_Static_assert(sizeof(*(sum)) == sizeof(*(add)) &&			\
			       sizeof(*(sum)) % sizeof(__u64) == 0, "counters of 64 bits");	\
		counters__add((__u64 *)(sum), (const __u64 *)(add), sizeof(*(sum)) / sizeof(__u64)); \
	} while (0)
void counters__add(__u64 *sum, const __u64 *add, size_t n);

#endif
