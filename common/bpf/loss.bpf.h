/* SPDX-License-Identifier: GPL-2.0 */
#ifndef BPFLITE_LOSS_BPF_H
#define BPFLITE_LOSS_BPF_H

#include "abi/loss_abi.h"

/* In .bss: user space reads it through the skeleton, at no per-event cost. */
struct bpflite_loss loss = {};

#define loss_inc(field) __sync_fetch_and_add(&loss.field, 1)

#endif
