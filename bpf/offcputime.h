/* SPDX-License-Identifier: GPL-2.0 */
/* offcputime-lite: kernel <-> user ABI. */
#ifndef BPFLITE_OFFCPUTIME_H
#define BPFLITE_OFFCPUTIME_H

#define OFFCPU_COMM_LEN		16
/* Threads off CPU at one time (preallocated: ~100 bytes each). */
#define OFFCPU_START_ENTRIES	16384
/*
 * Both are flags. The stack map is most of the memory and of the start-up
 * time (it is preallocated: 16384 stacks of 127 frames are 17 MB and take
 * ~45 ms to create here), so the default depth is 64 frames, not 127.
 */
#define OFFCPU_STACK_STORAGE	16384
#define OFFCPU_MAX_STACK_DEPTH	64

/* Aggregation key: one per thread and stack pair, as bcc's. */
struct offcpu_key {
	__u32 tgid;
	__u32 tid;
	__s32 kern_stack_id;		/* <0: -errno of bpf_get_stackid */
	__s32 user_stack_id;
	__s32 py_stack_id;		/* in py_stacks (--python); -EFAULT: none */
	char comm[OFFCPU_COMM_LEN];
};

struct offcpu_val {
	__u64 total_ns;
	__u64 count;			/* times off CPU */
	__u64 unended;			/* waits the kernel traced half of: not timed */
};

#endif
