/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CO-RE shims for kernel structure changes. Each shim names the kernel
 * change it covers; none compares version numbers.
 */
#ifndef BPFLITE_CORE_FIXES_BPF_H
#define BPFLITE_CORE_FIXES_BPF_H

#include <bpf/bpf_core_read.h>

/* Task state bits (include/linux/sched.h); stable since 2.6. */
#define TASK_RUNNING		0x0000
#define TASK_INTERRUPTIBLE	0x0001
#define TASK_UNINTERRUPTIBLE	0x0002
#define TASK_DEAD		0x0080	/* 0x0080 since 4.14 */
#define TASK_WAKEKILL		0x0100
#define TASK_NOLOAD		0x0400
#define TASK_FROZEN		0x8000
#define TASK_KILLABLE		(TASK_WAKEKILL | TASK_UNINTERRUPTIBLE)
#define TASK_IDLE		(TASK_UNINTERRUPTIBLE | TASK_NOLOAD)

/* Linux 5.14 (2f064a59a11f) renamed task_struct::state to __state. */
struct task_struct___o {
	volatile long int state;
} __attribute__((preserve_access_index));

struct task_struct___x {
	unsigned int __state;
} __attribute__((preserve_access_index));

/*
 * A field of a task: a plain load where the verifier knows the pointer's
 * type (tp_btf arguments, bpf_get_current_task_btf()), which is far
 * cheaper than the probe read a raw_tp program needs. btf is a constant
 * at every call site, so each wrapper keeps only its own form.
 */
#define TASK_FIELD(btf, t, f) ((btf) ? (t)->f : BPF_CORE_READ(t, f))

static __always_inline __u32 get_task_state(void *task)
{
	struct task_struct___x *t = task;

	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state);
	return BPF_CORE_READ((struct task_struct___o *)task, state);
}

/*
 * Is this task's switch out its last one? do_task_dead() sets TASK_DEAD
 * and calls __schedule() for good: a map entry keyed by the task and
 * written now would never be deleted. (Read on a task leaving the CPU
 * without preemption, the state cannot change under us.)
 */
static __always_inline bool task_is_dead(void *task)
{
	return get_task_state(task) & TASK_DEAD;
}

/*
 * Linux 6.15 renamed kernfs_node::parent to __parent (RCU-protected);
 * cgroup walks below use cgroup_subsys_state::parent instead, which has
 * not changed since 3.x.
 */
static __always_inline __u64 cgroup_id_of(struct cgroup *cg)
{
	return BPF_CORE_READ(cg, kn, id);
}

/*
 * Linux 5.11 (a54895fa057c "block: remove the request_queue to argument
 * request based tracepoints") turned block_rq_issue(q, rq) and
 * block_rq_insert(q, rq) into (rq). The kernel's BTF tells which form it
 * has: CO-RE matches these local flavours of the btf_trace_<tp>
 * prototypes only when the parameter count is the same, so a kernel with
 * the old (ctx, q, rq) form reports them missing. No version check.
 * (struct request must be a full type in the object, not a forward
 * declaration: it is whenever the program reads it with BPF_CORE_READ.)
 */
typedef void (*btf_trace_block_rq_issue___x)(void *, struct request *);
typedef void (*btf_trace_block_rq_insert___x)(void *, struct request *);

/* The struct request of block_rq_issue (ctx: the tracepoint's arguments). */
static __always_inline struct request *block_rq_issue_rq(unsigned long long *ctx)
{
	if (bpf_core_type_exists(btf_trace_block_rq_issue___x))
		return (struct request *)ctx[0];
	return (struct request *)ctx[1];
}

static __always_inline struct request *block_rq_insert_rq(unsigned long long *ctx)
{
	if (bpf_core_type_exists(btf_trace_block_rq_insert___x))
		return (struct request *)ctx[0];
	return (struct request *)ctx[1];
}

/*
 * Linux 5.17 removed struct request::rq_disk; the disk is then
 * rq->q->disk (request_queue::disk exists since 5.15).
 */
struct request___o {
	struct gendisk *rq_disk;
} __attribute__((preserve_access_index));

static __always_inline struct gendisk *get_rq_disk(void *rq)
{
	struct request___o *o = rq;

	if (bpf_core_field_exists(o->rq_disk))
		return BPF_CORE_READ(o, rq_disk);
	return BPF_CORE_READ((struct request *)rq, q, disk);
}

/*
 * Is the current system call an ia32 (compat) one? x86 marks it with
 * TS_COMPAT in thread_info.status (in_ia32_syscall(),
 * arch/x86/include/asm/thread_info.h); thread_info has been inside
 * task_struct since 4.9 (CONFIG_THREAD_INFO_IN_TASK). Without the field
 * every call is taken as native.
 */
#define BPFLITE_TS_COMPAT	0x0002

static __always_inline bool task_in_ia32_syscall(struct task_struct *t)
{
	if (!bpf_core_field_exists(t->thread_info.status))
		return false;
	/* t from bpf_get_current_task_btf() (5.11): a plain load, no helper call */
	return t->thread_info.status & BPFLITE_TS_COMPAT;
}

/*
 * tcp_retransmit_skb(sk, skb) gained an int err argument when it moved to
 * the end of __tcp_retransmit_skb() (net/ipv4/tcp_output.c, 2024-25): it
 * now fires for failed attempts too (-EBUSY while the first copy is still
 * in the host queue, -ENOMEM, a drop by the local output path): nothing
 * left the host. Earlier kernels fire only for segments sent. The
 * prototype in the kernel's BTF tells which form it has (as for the block
 * ones above; struct sock and struct sk_buff must be full types in the
 * object).
 */
typedef void (*btf_trace_tcp_retransmit_skb___err)(void *, const struct sock *,
						    const struct sk_buff *, int);

/* The err argument of tcp_retransmit_skb, 0 where the kernel has none. */
static __always_inline int tcp_retransmit_skb_err(unsigned long long *ctx)
{
	if (bpf_core_type_exists(btf_trace_tcp_retransmit_skb___err))
		return (int)ctx[2];
	return 0;
}

#endif
