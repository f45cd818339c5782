/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Process, thread and cgroup filters, set by user space as rodata so the
 * verifier drops what is off.
 */
#ifndef BPFLITE_FILTER_BPF_H
#define BPFLITE_FILTER_BPF_H

#include "bpf/core_fixes.bpf.h"

const volatile __u32 cfg_tgid = 0;
const volatile __u32 cfg_tid = 0;
const volatile __u64 cfg_cgroup_id = 0;

#define CGROUP_MAX_DEPTH 16

/* Is task t in the cgroup v2 cfg_cgroup_id or below it? */
static __always_inline bool task_in_cgroup(struct task_struct *t)
{
	struct cgroup *cg = BPF_CORE_READ(t, cgroups, dfl_cgrp);

	for (int i = 0; i < CGROUP_MAX_DEPTH && cg; i++) {
		if (cgroup_id_of(cg) == cfg_cgroup_id)
			return true;
		/* struct cgroup starts with its css (self) */
		cg = (struct cgroup *)BPF_CORE_READ(cg, self.parent);
	}
	return false;
}

/* True when task t passes -p, -t and -c. */
static __always_inline bool filter_task(struct task_struct *t)
{
	if (cfg_tgid && BPF_CORE_READ(t, tgid) != cfg_tgid)
		return false;
	if (cfg_tid && BPF_CORE_READ(t, pid) != cfg_tid)
		return false;
	if (cfg_cgroup_id && !task_in_cgroup(t))
		return false;
	return true;
}

/* The same for the current task, without reading task_struct. */
static __always_inline bool filter_current(void)
{
	__u64 id = bpf_get_current_pid_tgid();

	if (cfg_tgid && (id >> 32) != cfg_tgid)
		return false;
	if (cfg_tid && (__u32)id != cfg_tid)
		return false;
	if (cfg_cgroup_id && !task_in_cgroup((struct task_struct *)bpf_get_current_task()))
		return false;
	return true;
}

#endif
