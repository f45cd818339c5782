/* SPDX-License-Identifier: GPL-2.0 */
/* Histogram value shared by BPF and user space: fixed types only. */
#ifndef BPFLITE_HIST_ABI_H
#define BPFLITE_HIST_ABI_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define HIST_SLOTS	32	/* log2 slots: up to 2^32 units */
#define HIST_COMM_LEN	16

struct hist {
	__u64 slots[HIST_SLOTS];	/* 64-bit: a u32 slot wraps in hours at 10^5 events/s */
	__u64 count;		/* values added */
	__u64 sum_ns;		/* their sum, in nanoseconds */
	char comm[HIST_COMM_LEN];
};

#endif
