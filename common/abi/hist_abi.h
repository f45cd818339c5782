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
	/* 64-bit: at 10^5 events/s a u32 slot wraps after 2^32 / 10^5 s, about 11.9 hours */
	__u64 slots[HIST_SLOTS];
	__u64 count;		/* values added */
	__u64 sum_ns;		/* their sum, in nanoseconds */
	char comm[HIST_COMM_LEN];
};

#endif
