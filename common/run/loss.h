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

#endif
