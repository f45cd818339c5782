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

static __always_inline __u32 get_task_state(void *task)
{
	struct task_struct___x *t = task;

	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state);
	return BPF_CORE_READ((struct task_struct___o *)task, state);
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

#endif
