/* SPDX-License-Identifier: GPL-2.0 */
#ifndef BPFLITE_LOSS_H
#define BPFLITE_LOSS_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "abi/loss_abi.h"

/* Total of all counters. */
__u64 loss__total(const struct bpflite_loss *l);
/*
 * At exit: a warning on stderr for each non-zero counter, and with json a
 * final {"type":"loss",...} record on stdout. Nothing when all are zero.
 */
void loss__report(const struct bpflite_loss *l, bool json);
/* The same with the JSON record on json (NULL: none), a -o file for example. */
void loss__report_to(const struct bpflite_loss *l, FILE *json);

#endif
