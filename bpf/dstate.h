/* SPDX-License-Identifier: GPL-2.0 */
/* dstate-lite: kernel <-> user ABI. */
#ifndef BPFLITE_DSTATE_H
#define BPFLITE_DSTATE_H

#include "abi/hist_abi.h"

/* Tasks in D at one time (the "stuck now" state), and aggregation keys. */
#define DSTATE_MAX_TASKS	10240
#define DSTATE_MAX_AGG		4096
/* Stack storage: distinct stacks (--stack-storage-size), frames per stack. */
#define DSTATE_STACKS		8192
#define DSTATE_STACK_DEPTH	64
#define DSTATE_COMM_LEN		16
/* No stack asked for (kernel thread's user stack, no -U, no -f). */
#define DSTATE_NO_STACK		(-1)
/* A stack that could not be taken (counted in loss.stacks). */
#define DSTATE_MISSED_STACK	(-2)
/* A task already in D at start-up: its stack is in seeded_stacks, by tid. */
#define DSTATE_SEEDED_STACK	(-3)
#define DSTATE_MAX_SEEDED	1024

/* dstate_wait.flags */
#define DSTATE_F_SEEDED		1	/* in D before tracing began: start_ns estimated */

/*
 * Who woke a task (waker_ctx): a task (waker_tid, waker_comm), or an
 * interrupt handler, which runs on whatever task the CPU was on: that
 * task is not the waker, and is not named.
 */
enum dstate_waker_ctx {
	DSTATE_WAKER_TASK = 0,
	DSTATE_WAKER_HARDIRQ,
	DSTATE_WAKER_SOFTIRQ,
};

/* A task in D now: key tid. Written at switch-out, woken at sched_waking. */
struct dstate_wait {
	__u64 start_ns;		/* left the CPU (bpf_ktime_get_ns) */
	__u64 wake_ns;		/* sched_waking; 0 while still blocked */
	__u32 tgid;
	__u32 state;		/* as the scheduler saw it (0x2102, ...) */
	__s32 kstack_id;	/* < 0: DSTATE_NO_STACK or the error */
	__s32 ustack_id;
	__u32 waker_tid;	/* 0: not woken yet, or by an interrupt */
	__u32 waker_tgid;
	__s32 waker_kstack_id;
	__u32 flags;		/* DSTATE_F_* */
	char comm[DSTATE_COMM_LEN];
	char waker_comm[DSTATE_COMM_LEN];
	__u32 waker_ctx;	/* enum dstate_waker_ctx */
	__s32 py_stack_id;	/* --python: py_stacks' id; -EFAULT: none */
};

/*
 * Aggregation key of ended episodes. The reason is computed in user space
 * from kstack_id, so episodes are kept per stack here. The waker's part is
 * zero / DSTATE_NO_STACK unless -f asks for it.
 */
struct dstate_key {
	__u32 tgid;
	__s32 kstack_id;
	__s32 ustack_id;
	__s32 waker_kstack_id;
	char comm[DSTATE_COMM_LEN];
	char waker_comm[DSTATE_COMM_LEN];
	__u32 waker_ctx;	/* enum dstate_waker_ctx */
	__s32 py_stack_id;	/* --python, as dstate_wait's */
};

struct dstate_val {
	__u64 count;
	__u64 total_ns;		/* switch-out to switch-in */
	__u64 max_ns;
	__u64 slots[HIST_SLOTS];	/* log2 of microseconds (-H) */
};

/* Ring buffer records start with their kind. */
enum dstate_kind {
	DSTATE_EPISODE = 1,	/* struct dstate_event */
	DSTATE_PROC,		/* struct dstate_proc */
};

/*
 * -U: a process seen in D for the first time (or again after the LRU
 * forgot it): user space captures its mappings while it is alive, so its
 * user stacks get names after it exits.
 */
struct dstate_proc {
	__u32 kind;
	__u32 tgid;
};

/* -m: one ended episode longer than MIN_MS, through the ring buffer. */
struct dstate_event {
	__u32 kind;
	__u32 waker_ctx;	/* enum dstate_waker_ctx */
	__u64 end_ns;
	__u64 total_ns;		/* switch-out to switch-in */
	__u64 blocked_ns;	/* switch-out to wake-up (0: waker unseen) */
	__u32 tid;
	__u32 tgid;
	__u32 state;
	__u32 waker_tid;
	__u32 waker_tgid;
	__s32 kstack_id;
	__s32 ustack_id;
	__s32 waker_kstack_id;
	char comm[DSTATE_COMM_LEN];
	char waker_comm[DSTATE_COMM_LEN];
	__s32 py_stack_id;	/* --python, as dstate_wait's */
	__u32 pad;
};

#endif
