// SPDX-License-Identifier: GPL-2.0
/*
 * offcputime-lite: time threads spend off CPU, by kernel and user stack.
 * At sched_switch the outgoing thread's stacks and the time are kept; when
 * it is switched back in, the time off CPU is added to its key.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "bpf/tp.bpf.h"
#include "offcputime.h"
#include "bpf/filter.bpf.h"
#include "bpf/loss.bpf.h"
#include "bpf/errno.bpf.h"
#include "bpf/procsnap.bpf.h"
#include "bpf/unwind.bpf.h"
#include "bpf/python.bpf.h"

#define PF_EXITING	0x00000004	/* include/linux/sched.h, stable */
#define PF_KTHREAD	0x00200000

const volatile bool cfg_user_threads_only = false;
const volatile bool cfg_kernel_threads_only = false;
const volatile bool cfg_kernel_stacks = true;	/* false with -U */
const volatile bool cfg_user_stacks = true;	/* false with -K */
/* --unwind auto|dwarf: user stacks by .eh_frame tables, both stacks in unw_stacks */
const volatile bool cfg_state_filter = false;
const volatile __u32 cfg_state_mask = 0;
const volatile __u64 cfg_min_ns = 1000;
const volatile __u64 cfg_max_ns = ~0ULL;

struct start_val {
	__u64 ts;
	__u64 task;	/* raw_tp: the task_struct's address, its identity */
	struct offcpu_key key;
};

/*
 * Where and when each thread left the CPU. tp_btf programs keep it in the
 * task's own storage (no hash lookup, no insert and delete per switch,
 * nothing left when a task exits); raw_tp programs cannot hand a task to
 * the storage helpers and use the hash by tid (see tool__task_storage()).
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct start_val);
} start_task SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OFFCPU_START_ENTRIES);
	__type(key, __u32);	/* tid */
	__type(value, struct start_val);
} start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OFFCPU_STACK_STORAGE);	/* set by user space */
	__type(key, struct offcpu_key);
	__type(value, struct offcpu_val);
} info SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, OFFCPU_STACK_STORAGE);	/* set by user space */
	__uint(key_size, sizeof(__u32));
	__uint(value_size, OFFCPU_MAX_STACK_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

static struct offcpu_val zero;

/*
 * Keys this program added to info. User space folds the keys of exited
 * threads (see fold_exited() in tools/offcputime.c) and needs the map's
 * occupancy for that: counting here spares it a walk of the map per tick.
 */
__u64 info_added = 0;

/* info's value for a key, zeroed when new; NULL (counted) when info is full */
static __always_inline struct offcpu_val *info_get(const struct offcpu_key *k)
{
	struct offcpu_val *val = bpf_map_lookup_elem(&info, k);

	if (val)
		return val;
	if (!bpf_map_update_elem(&info, k, &zero, BPF_NOEXIST))
		__sync_fetch_and_add(&info_added, 1);
	val = bpf_map_lookup_elem(&info, k);
	if (!val)
		loss_inc(map_full);
	return val;
}

/*
 * Waits the kernel left half traced: a host kernel whose scheduler packs
 * vCPUs switches a task in or out, about once in 500 sleeps, without the
 * sched_switch tracepoint. A switch-out while the task's last one is still
 * open lost its switch-in: the wait is counted on its key, not timed. A
 * switch-in with none open lost its switch-out: the wait's stack is
 * unknown, it is counted on the thread's key without stacks. Both go to
 * loss.unended, so a total short by them says why.
 */
static __always_inline void count_unended(const struct offcpu_key *k)
{
	struct offcpu_val *val = info_get(k);

	if (val)
		__sync_fetch_and_add(&val->unended, 1);
	loss_inc(unended);
}

static __always_inline void unstarted(const struct offcpu_key *k)
{
	struct offcpu_key nostack = *k;

	nostack.kern_stack_id = -EFAULT;
	nostack.user_stack_id = -EFAULT;
	count_unended(&nostack);
}

/* Task state as the filter sees it: a preempted task is runnable. */
static __always_inline bool state_ok(bool preempt, struct task_struct *t)
{
	__u32 state;

	if (!cfg_state_filter)
		return true;
	state = preempt ? TASK_RUNNING : get_task_state(t);
	/*
	 * A mask: TASK_UNINTERRUPTIBLE (2) also matches killable (0x102)
	 * and idle (0x402) waits, which carry that bit. 0 asks for
	 * preempted (runnable) tasks, as bcc's --state 0 does.
	 */
	if (!cfg_state_mask)
		return state == TASK_RUNNING;
	return state & cfg_state_mask;
}

static __always_inline void switch_out(void *ctx, bool btf, bool preempt,
				       struct task_struct *prev, __u64 now)
{
	__u32 tid = TASK_FIELD(btf, prev, pid), flags;
	struct start_val *v, tmp;
	bool kthread;

	if (!tid || !filter_task(prev))	/* tid 0: the idle task */
		return;
	/*
	 * A task's last switch (do_task_dead()): it never comes back, so
	 * nothing would delete its entry. Every exiting thread would leave
	 * one behind and the map would fill after ~16k thread exits.
	 */
	if (!preempt && task_is_dead(prev))
		return;
	flags = TASK_FIELD(btf, prev, flags);
	kthread = flags & PF_KTHREAD;
	if ((cfg_user_threads_only && kthread) || (cfg_kernel_threads_only && !kthread))
		return;
	if (!state_ok(preempt, prev))
		return;

	if (btf) {
		/* filled in place: no copy of the record per switch */
		v = bpf_task_storage_get(&start_task, prev, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (!v) {
			loss_inc(map_full);
			return;
		}
		if (v->ts)
			count_unended(&v->key);
		__builtin_memcpy(v->key.comm, prev->comm, sizeof(v->key.comm));
	} else {
		v = &tmp;
		__builtin_memset(v, 0, sizeof(*v));
		bpf_probe_read_kernel_str(v->key.comm, sizeof(v->key.comm), prev->comm);
	}
	v->ts = now;
	v->task = (__u64)prev;
	v->key.tgid = TASK_FIELD(btf, prev, tgid);
	v->key.tid = tid;
	/* sched_switch runs on the outgoing task: its stacks are current's */
	v->key.kern_stack_id = !cfg_kernel_stacks ? -1 :
			       cfg_unwind_tables ? unw_kernel_stack(ctx) :
			       bpf_get_stackid(ctx, &stacks, 0);
	v->key.user_stack_id = -EFAULT;
	v->key.py_stack_id = -EFAULT;
	if (cfg_user_stacks && !kthread) {
		v->key.user_stack_id = cfg_unwind_tables ? unw_user_stack(v->key.tgid) :
				       bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);
		/* --python: the thread's own Python frames, where it waits */
		v->key.py_stack_id = py_take_stack(v->key.tgid, tid);
		/* an exiting task has no mappings left to snapshot */
		if (!(flags & PF_EXITING))
			procsnap_note(v->key.tgid);
	}
	if (cfg_kernel_stacks && v->key.kern_stack_id < 0)
		loss_inc(stacks);
	if (v->key.user_stack_id < 0 && v->key.user_stack_id != -EFAULT)
		loss_inc(stacks);
	if (!btf && bpf_map_update_elem(&start, &tid, v, BPF_NOEXIST)) {
		/* an entry still there: this task's open wait, or a dead task's */
		struct start_val *old = bpf_map_lookup_elem(&start, &tid);

		if (old && old->task == (__u64)prev)
			count_unended(&old->key);
		if (bpf_map_update_elem(&start, &tid, v, BPF_ANY))
			loss_inc(map_full);
	}
}

static __always_inline void switch_in(bool btf, struct task_struct *next, __u64 now)
{
	__u32 tid = TASK_FIELD(btf, next, pid);
	struct offcpu_val *val;
	struct start_val *v;
	__u64 delta;

	if (btf) {
		/* no creation: a thread never seen leaving has nothing to add */
		v = bpf_task_storage_get(&start_task, next, 0, 0);
		if (!v)
			return;
		if (!v->ts) {
			/*
			 * Back on a CPU with no switch-out since the last
			 * switch-in: the kernel left that one untraced (the
			 * state filter skips switch-outs itself). A wait
			 * whose stack is unknown: counted on the thread alone.
			 */
			if (!cfg_state_filter)
				unstarted(&v->key);
			return;
		}
	} else {
		v = bpf_map_lookup_elem(&start, &tid);
		if (!v)
			return;
		/*
		 * Another task's entry under a reused tid: its time is not
		 * this task's and would count from the dead task's switch-out.
		 */
		if (v->task != (__u64)next)
			goto out;
	}
	delta = now - v->ts;
	if ((__s64)delta < 0 || delta < cfg_min_ns || delta > cfg_max_ns)
		goto out;
	val = info_get(&v->key);
	if (!val)
		goto out;
	__sync_fetch_and_add(&val->total_ns, delta);
	__sync_fetch_and_add(&val->count, 1);
out:
	if (btf)
		v->ts = 0;	/* kept for the next switch: no free and no allocation */
	else
		bpf_map_delete_elem(&start, &tid);
}

static __always_inline int handle_switch(void *ctx, bool btf, bool preempt,
					 struct task_struct *prev, struct task_struct *next)
{
	__u64 now = bpf_ktime_get_ns();	/* one clock read for both ends */

	switch_out(ctx, btf, preempt, prev, now);
	switch_in(btf, next, now);
	return 0;
}

TP_PROG(sched_switch, sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	return handle_switch(ctx, tp_btf, preempt, prev, next);
}

/* After an exec the mappings are new: snapshot again at the next switch. */
TP_PROG(sched_process_exec, sched_process_exec, struct task_struct *p)
{
	if (cfg_unwind_tables)
		unw_exec(p);
	if (cfg_python)
		py_exec(p);
	return procsnap_exec(p);
}

TP_PROG(sched_process_exit, sched_process_exit, struct task_struct *p)
{
	if (cfg_unwind_tables)
		unw_exit(p);
	if (cfg_python)
		py_exit(p);
	return procsnap_exit(p);
}

/*
 * raw_tp: the hash's entry of a task that is gone. A switch-out is
 * normally deleted at the task's next switch-in, but under load about
 * one exiting task in 5,000 keeps its entry (measured: the program saw
 * every switch-out of those tasks; their last switch-in deleted nothing).
 * This tracepoint runs once per task, after its last switch; the entry
 * is deleted only if it is this task's (its tid may be reused by then).
 */
TP_PROG(sched_process_free, sched_process_free, struct task_struct *p)
{
	struct start_val *v;
	__u32 tid;

	if (tp_btf)	/* task storage: the kernel frees it with the task */
		return 0;
	tid = BPF_CORE_READ(p, pid);
	v = bpf_map_lookup_elem(&start, &tid);
	if (v && v->task == (__u64)p)
		bpf_map_delete_elem(&start, &tid);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
