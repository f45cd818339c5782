// SPDX-License-Identifier: GPL-2.0
/*
 * runqlat-lite: run queue latency, from the moment a task becomes
 * runnable (woken, new, or preempted while runnable) until it runs.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "bpf/tp.bpf.h"
#include "runqlat.h"
#include "bpf/hist.bpf.h"
#include "bpf/filter.bpf.h"
#include "bpf/loss.bpf.h"

const volatile __u32 cfg_by = BY_ALL;
const volatile bool cfg_ms = false;

/*
 * Enqueue time, ns, per task. tp_btf programs keep it in the task's own
 * storage: no hash to look up, nothing left behind when a task exits.
 * raw_tp programs cannot hand a task to the storage helpers and use the
 * tid-keyed hash (user space sizes the unused one down, see
 * tool__task_storage()).
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} start_task SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, RUNQLAT_MAX_ENTRIES);
	__type(key, __u32);	/* tid */
	__type(value, __u64);	/* enqueue time, ns */
} start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, RUNQLAT_MAX_ENTRIES);
	__type(key, __u32);
	__type(value, struct hist);
} hists SEC(".maps");

static __always_inline void enqueue(bool btf, struct task_struct *p, __u64 ts)
{
	__u32 tid = TASK_FIELD(btf, p, pid);
	__u64 *tsp;

	if (!tid || !filter_task(p))	/* tid 0: the idle task */
		return;
	if (!ts)	/* a wake-up: read the clock only for a task we keep */
		ts = bpf_ktime_get_ns();
	if (btf) {
		tsp = bpf_task_storage_get(&start_task, p, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (tsp)
			*tsp = ts;
		else
			loss_inc(map_full);
	} else if (bpf_map_update_elem(&start, &tid, &ts, BPF_ANY)) {
		loss_inc(map_full);
	}
}

static __always_inline __u32 hist_key(bool btf, struct task_struct *t, __u32 tid)
{
	switch (cfg_by) {
	case BY_PROCESS:
		return TASK_FIELD(btf, t, tgid);
	case BY_THREAD:
		return tid;
	case BY_PIDNS:
		return BPF_CORE_READ(t, nsproxy, pid_ns_for_children, ns.inum);
	case BY_CGROUP:
		return (__u32)cgroup_id_of(BPF_CORE_READ(t, cgroups, dfl_cgrp));
	default:
		return 0;
	}
}

static __always_inline int handle_switch(bool btf, bool preempt, struct task_struct *prev,
					 struct task_struct *next)
{
	__u64 now = bpf_ktime_get_ns(), *tsp, ts, delta;	/* one clock read */
	struct hist *h;
	__u32 tid, key;
	bool created;

	/*
	 * A task that leaves the CPU still runnable waits in the run queue
	 * from now on. preempt covers a task preempted while it was setting
	 * up a sleep (its state is not RUNNING yet it stays queued; the
	 * classic tracepoint reports it as R+).
	 */
	if (preempt || get_task_state(prev) == TASK_RUNNING) {
		enqueue(btf, prev, now);
	} else if (!btf && task_is_dead(prev)) {
		/*
		 * Its last switch. A wake-up that found it still on the CPU
		 * (between set_current_state() and schedule(): ttwu_runnable()
		 * fires sched_wakeup too) left an entry that only its next
		 * switch-in would delete, and there is none. (Task storage
		 * goes with the task.)
		 */
		tid = BPF_CORE_READ(prev, pid);
		bpf_map_delete_elem(&start, &tid);
	}

	tid = TASK_FIELD(btf, next, pid);
	if (btf) {
		/* no creation: a task never seen waking has nothing to report */
		tsp = bpf_task_storage_get(&start_task, next, 0, 0);
		if (!tsp || !*tsp)
			return 0;
		ts = *tsp;
		*tsp = 0;	/* kept for its next wait: no free and no allocation per switch */
	} else {
		tsp = bpf_map_lookup_elem(&start, &tid);
		if (!tsp)
			return 0;
		ts = *tsp;
		bpf_map_delete_elem(&start, &tid);
	}
	delta = now - ts;
	if ((__s64)delta < 0)
		return 0;

	key = hist_key(btf, next, tid);
	h = hist_lookup_or_init(&hists, &key, &created);
	if (!h)
		return 0;
	if (created)
		bpf_probe_read_kernel_str(h->comm, sizeof(h->comm), next->comm);
	hist_add(h, hist_slot_log2(delta / (cfg_ms ? 1000000 : 1000)), delta);
	return 0;
}

TP_PROG(sched_wakeup, sched_wakeup, struct task_struct *p)
{
	enqueue(tp_btf, p, 0);
	return 0;
}

TP_PROG(sched_wakeup_new, sched_wakeup_new, struct task_struct *p)
{
	enqueue(tp_btf, p, 0);
	return 0;
}

TP_PROG(sched_switch, sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	return handle_switch(tp_btf, preempt, prev, next);
}

char LICENSE[] SEC("license") = "GPL";
