/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Loss counters shared by BPF and user space. Every BPF object declares
 * one `struct bpflite_loss loss` (common/bpf/loss.bpf.h) and counts what it
 * could not record; the tool reports it at exit (common/run/loss.h).
 */
#ifndef BPFLITE_LOSS_ABI_H
#define BPFLITE_LOSS_ABI_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

struct bpflite_loss {
	__u64 events;		/* ring buffer full: events dropped */
	__u64 stacks;		/* stack ids that could not be taken */
	__u64 map_full;		/* map updates refused (map full) */
	__u64 unended;		/* waits the kernel traced half of (sched_switch) */
};

#endif
