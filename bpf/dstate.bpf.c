// SPDX-License-Identifier: GPL-2.0
/*
 * dstate-lite: uninterruptible (D) sleeps. A task that leaves the CPU in
 * D at sched_switch starts an episode (time, stacks); sched_waking names
 * the task that woke it; switching back in ends it. The tasks in D right
 * now stay in the waits map, which user space reads for "stuck now".
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "bpf/tp.bpf.h"
#include "dstate.h"
#include "bpf/hist.bpf.h"
#include "bpf/filter.bpf.h"
#include "bpf/loss.bpf.h"
#include "bpf/errno.bpf.h"
#include "bpf/unwind.bpf.h"
#include "bpf/python.bpf.h"
#include "irq_ctx.bpf.h"

/*
 * Linux 5.18 (fa2c3254d7cf) passes prev_state as sched_switch's 4th
 * argument: the state __schedule() acted on. Before it, the tracepoint
 * re-read the task's state, which a waker on another CPU may already have
 * changed; that is what we do too when the argument is absent (user space
 * finds out by trying, and sets this).
 */
const volatile bool cfg_state_arg = false;
const volatile bool cfg_include_idle = false;	/* TASK_IDLE and frozen too */
const volatile bool cfg_user_stack = false;	/* -U */
const volatile bool cfg_waker_stack = false;	/* -f, -m: the waker's kernel stack */
const volatile bool cfg_fold_waker = false;	/* -f: aggregate per waker too */
const volatile bool cfg_events = false;		/* -m */
const volatile __u64 cfg_min_ns = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DSTATE_MAX_TASKS);
	__type(key, __u32);	/* tid */
	__type(value, struct dstate_wait);
} waits SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DSTATE_MAX_AGG);
	__type(key, struct dstate_key);
	__type(value, struct dstate_val);
} aggs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, DSTATE_STACKS);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, DSTATE_STACK_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

/* Kernel stacks of the tasks found in D at start-up (see seed_stuck). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DSTATE_MAX_SEEDED);
	__type(key, __u32);	/* tid */
	__type(value, __u64[DSTATE_STACK_DEPTH]);
} seeded_stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} events SEC(".maps");

/* -U: the processes already announced to user space (see dstate_proc). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);	/* tgid */
	__type(value, __u8);
} known_procs SEC(".maps");

static const struct dstate_val zero_val;
static const __u64 zero_stack[DSTATE_STACK_DEPTH];

/*
 * Is this a wait the tool reports? D is TASK_UNINTERRUPTIBLE with any
 * modifier (TASK_KILLABLE adds TASK_WAKEKILL, freezable waits add
 * TASK_FREEZABLE), as the load average counts it. TASK_IDLE
 * (UNINTERRUPTIBLE|NOLOAD) and frozen tasks (TASK_FROZEN) do not count in
 * the load average (task_contributes_to_load()): only --include-idle
 * reports them.
 */
static __always_inline bool is_dstate(__u32 state)
{
	if (state & TASK_FROZEN)
		return cfg_include_idle;
	if (!(state & TASK_UNINTERRUPTIBLE))
		return false;
	if (state & TASK_NOLOAD)
		return cfg_include_idle;
	return true;
}

/* id: a stack id, or what taking it returned (a negative errno) */
static __always_inline __s32 stack_id(long id)
{
	/* -EFAULT: no user stack to walk (a kernel thread): not a loss */
	if (id < 0 && id != -EFAULT)
		loss_inc(stacks);
	if (id < 0)
		return id == -EFAULT ? DSTATE_NO_STACK : DSTATE_MISSED_STACK;
	return id;
}

static __always_inline void announce_proc(__u32 tgid)
{
	struct dstate_proc *p;
	__u8 one = 1;

	if (bpf_map_lookup_elem(&known_procs, &tgid))
		return;
	bpf_map_update_elem(&known_procs, &tgid, &one, BPF_ANY);
	p = bpf_ringbuf_reserve(&events, sizeof(*p), 0);
	if (!p) {
		loss_inc(events);
		return;
	}
	p->kind = DSTATE_PROC;
	p->tgid = tgid;
	bpf_ringbuf_submit(p, 0);
}

/* prev leaves the CPU in D: current is still prev here. */
static __always_inline void wait_begin(void *ctx, struct task_struct *prev, __u32 state)
{
	struct dstate_wait w = {};
	__u32 tid = BPF_CORE_READ(prev, pid);

	if (!tid || !filter_task(prev))
		return;
	w.start_ns = bpf_ktime_get_ns();
	w.tgid = BPF_CORE_READ(prev, tgid);
	w.state = state;
	bpf_get_current_comm(w.comm, sizeof(w.comm));
	w.kstack_id = stack_id(bpf_get_stackid(ctx, &stacks, 0));
	w.ustack_id = DSTATE_NO_STACK;
	w.py_stack_id = -EFAULT;
	if (cfg_user_stack && BPF_CORE_READ(prev, mm)) {
		/* --unwind: by the tables, into unw_stacks */
		w.ustack_id = stack_id(cfg_unwind_tables ? unw_user_stack(w.tgid) :
				       bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK));
		/* --python: the thread's own Python frames, where it sleeps */
		w.py_stack_id = py_take_stack(w.tgid, tid);
		announce_proc(w.tgid);
	}
	w.waker_kstack_id = DSTATE_NO_STACK;
	if (bpf_map_update_elem(&waits, &tid, &w, BPF_ANY))
		loss_inc(map_full);
}

static __always_inline void aggregate(const struct dstate_wait *w, __u64 delta)
{
	struct dstate_key key = {};
	struct dstate_val *v;

	/*
	 * The process only where user stacks need it to be named (-U): a
	 * key per process would fill the map with every short-lived one
	 * (5,000 vfork'ing processes filled it).
	 */
	key.tgid = cfg_user_stack ? w->tgid : 0;
	key.kstack_id = w->kstack_id;
	key.ustack_id = w->ustack_id;
	key.py_stack_id = w->py_stack_id;
	key.waker_kstack_id = DSTATE_NO_STACK;
	__builtin_memcpy(key.comm, w->comm, sizeof(key.comm));
	if (cfg_fold_waker) {
		key.waker_kstack_id = w->waker_kstack_id;
		key.waker_ctx = w->waker_ctx;
		__builtin_memcpy(key.waker_comm, w->waker_comm, sizeof(key.waker_comm));
	}
	v = bpf_map_lookup_elem(&aggs, &key);
	if (!v) {
		if (bpf_map_update_elem(&aggs, &key, &zero_val, BPF_NOEXIST) &&
		    !bpf_map_lookup_elem(&aggs, &key)) {
			loss_inc(map_full);
			return;
		}
		v = bpf_map_lookup_elem(&aggs, &key);
		if (!v)
			return;
	}
	__sync_fetch_and_add(&v->count, 1);
	__sync_fetch_and_add(&v->total_ns, delta);
	if (delta > v->max_ns)	/* racy max: good enough for a report */
		v->max_ns = delta;
	__sync_fetch_and_add(&v->slots[hist_slot_log2(delta / 1000)], 1);
}

static __always_inline void emit(const struct dstate_wait *w, __u32 tid, __u64 now, __u64 delta)
{
	struct dstate_event *e;

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		loss_inc(events);
		return;
	}
	e->kind = DSTATE_EPISODE;
	e->waker_ctx = w->waker_ctx;
	e->end_ns = now;
	e->total_ns = delta;
	e->blocked_ns = w->wake_ns ? w->wake_ns - w->start_ns : 0;
	e->tid = tid;
	e->tgid = w->tgid;
	e->state = w->state;
	e->waker_tid = w->waker_tid;
	e->waker_tgid = w->waker_tgid;
	e->kstack_id = w->kstack_id;
	e->ustack_id = w->ustack_id;
	e->py_stack_id = w->py_stack_id;
	e->waker_kstack_id = w->waker_kstack_id;
	__builtin_memcpy(e->comm, w->comm, sizeof(e->comm));
	__builtin_memcpy(e->waker_comm, w->waker_comm, sizeof(e->waker_comm));
	bpf_ringbuf_submit(e, 0);
}

/* next gets the CPU: if it was in D, the episode ends. */
static __always_inline void wait_end(struct task_struct *next)
{
	__u32 tid = BPF_CORE_READ(next, pid);
	struct dstate_wait *wp, w;
	__u64 now, delta;

	wp = bpf_map_lookup_elem(&waits, &tid);
	if (!wp)
		return;
	/* copy out first: a deleted element may be reused at once */
	w = *wp;
	bpf_map_delete_elem(&waits, &tid);
	if (w.flags & DSTATE_F_SEEDED) {
		/* began before tracing: its length is unknown, keep it out of the sums */
		bpf_map_delete_elem(&seeded_stacks, &tid);
		return;
	}
	now = bpf_ktime_get_ns();
	delta = now - w.start_ns;
	if ((__s64)delta < 0)
		return;
	aggregate(&w, delta);
	if (cfg_events && delta >= cfg_min_ns)
		emit(&w, tid, now, delta);
}

static __always_inline int handle_switch(unsigned long long *ctx, bool preempt,
					 struct task_struct *prev, struct task_struct *next)
{
	/*
	 * A preempted task is still runnable whatever its state says (it
	 * was preempted while setting up a sleep; the tracepoint reports it
	 * as R+).
	 */
	if (!preempt) {
		__u32 state = cfg_state_arg ? (__u32)ctx[3] : get_task_state(prev);

		if (is_dstate(state))
			wait_begin(ctx, prev, state);
	}
	wait_end(next);
	return 0;
}

/*
 * sched_waking runs in the waker's context (sched_wakeup may run later on
 * the wakee's CPU, from an IPI), so current is the task that released the
 * sleeper: the mutex owner that unlocked, the child that ended a vfork.
 * Unless the wake-up comes from an interrupt (a disk completion, a
 * timer): current is then whatever task the interrupt landed on, and the
 * waker is the interrupt (bpf/irq_ctx.bpf.h tells).
 * The first waker wins; later wake-ups of a waking task do not pass
 * try_to_wake_up()'s state check and never get here.
 */
static __always_inline int handle_waking(void *ctx, struct task_struct *p)
{
	__u32 tid = BPF_CORE_READ(p, pid);
	struct dstate_wait *w;
	enum irq_ctx ic;
	__u64 id;

	w = bpf_map_lookup_elem(&waits, &tid);
	if (!w || w->wake_ns)
		return 0;
	w->wake_ns = bpf_ktime_get_ns();
	ic = irq_context();
	if (ic == IRQ_CTX_HARDIRQ || ic == IRQ_CTX_SOFTIRQ) {
		w->waker_ctx = ic == IRQ_CTX_HARDIRQ ? DSTATE_WAKER_HARDIRQ : DSTATE_WAKER_SOFTIRQ;
		w->waker_tgid = 0;
		w->waker_tid = 0;
		__builtin_memcpy(w->waker_comm, ic == IRQ_CTX_HARDIRQ ? "[hardirq]" : "[softirq]",
				 sizeof("[hardirq]"));
	} else {
		id = bpf_get_current_pid_tgid();
		w->waker_tgid = id >> 32;
		w->waker_tid = (__u32)id;
		bpf_get_current_comm(w->waker_comm, sizeof(w->waker_comm));
	}
	/* in an interrupt: the handler's frames, then the interrupted ones */
	if (cfg_waker_stack)
		w->waker_kstack_id = stack_id(bpf_get_stackid(ctx, &stacks, 0));
	return 0;
}

/* When task t last left the CPU, on the scheduler's clock (rq_clock). */
static __always_inline __u64 left_cpu(struct task_struct *t)
{
	/* it got the CPU at last_arrival and ran this long in that slice */
	return BPF_CORE_READ(t, sched_info.last_arrival) +
	       BPF_CORE_READ(t, se.sum_exec_runtime) - BPF_CORE_READ(t, se.prev_sum_exec_runtime);
}

/*
 * When a task found asleep went to sleep, in bpf_ktime_get_ns() time. The
 * scheduler's clock is not ours: the running task (the reader) gives the
 * offset, as it left_cpu() "now" to within a tick. Without schedstats
 * (CONFIG_SCHED_INFO) or when the numbers disagree: now, a lower bound.
 */
static __always_inline __u64 asleep_since(struct task_struct *t)
{
	struct task_struct *cur = (struct task_struct *)bpf_get_current_task();
	__u64 now = bpf_ktime_get_ns(), t_left, cur_now;

	if (!bpf_core_field_exists(t->sched_info.last_arrival))
		return now;
	t_left = left_cpu(t);
	cur_now = left_cpu(cur);
	if (!BPF_CORE_READ(t, sched_info.last_arrival) || t_left > cur_now ||
	    cur_now - t_left > now)
		return now;
	return now - (cur_now - t_left);
}

/*
 * Run once by user space after attaching: the tasks already in D, which
 * no sched_switch will announce (a hang that began before the tool), with
 * the stack they sleep on and an estimate of when they fell asleep. Tasks the switch handler already recorded are kept.
 */
SEC("iter/task")
int seed_stuck(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct dstate_wait w = {};
	__u64 *ips;
	__u32 tid;

	if (!task)
		return 0;
	w.state = get_task_state(task);
	if (!is_dstate(w.state) || !filter_task(task))
		return 0;
	tid = BPF_CORE_READ(task, pid);
	if (!tid || bpf_map_lookup_elem(&waits, &tid))
		return 0;
	w.start_ns = asleep_since(task);
	w.tgid = BPF_CORE_READ(task, tgid);
	BPF_CORE_READ_STR_INTO(&w.comm, task, comm);
	w.kstack_id = DSTATE_MISSED_STACK;
	w.ustack_id = DSTATE_NO_STACK;
	w.py_stack_id = -EFAULT;
	w.waker_kstack_id = DSTATE_NO_STACK;
	w.flags = DSTATE_F_SEEDED;
	if (!bpf_map_update_elem(&seeded_stacks, &tid, &zero_stack, BPF_ANY)) {
		ips = bpf_map_lookup_elem(&seeded_stacks, &tid);
		if (ips && bpf_get_task_stack(task, ips, sizeof(zero_stack), 0) > 0)
			w.kstack_id = DSTATE_SEEDED_STACK;
	}
	if (w.kstack_id == DSTATE_MISSED_STACK)
		loss_inc(stacks);
	if (bpf_map_update_elem(&waits, &tid, &w, BPF_NOEXIST) == -E2BIG)
		loss_inc(map_full);
	return 0;
}

TP_PROG(sched_switch, sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	return handle_switch(ctx, preempt, prev, next);
}

TP_PROG(sched_waking, sched_waking, struct task_struct *p)
{
	return handle_waking(ctx, p);
}

/*
 * -U only (user space turns it off otherwise): after an exec the
 * process's mappings are another program's. Its tables and its
 * interpreter go, and the process is announced again at its next D sleep,
 * its mappings read anew.
 */
TP_PROG(sched_process_exec, sched_process_exec, struct task_struct *p)
{
	__u32 tgid = BPF_CORE_READ(p, tgid);

	if (cfg_unwind_tables)
		unw_exec(p);
	if (cfg_python)
		py_exec(p);
	bpf_map_delete_elem(&known_procs, &tgid);
	return 0;
}

/* -U only: at a process's end its list and interpreter go. */
TP_PROG(sched_process_exit, sched_process_exit, struct task_struct *p)
{
	if (cfg_unwind_tables)
		unw_exit(p);
	if (cfg_python)
		py_exit(p);
	return 0;
}

/* Which wake-ups come from interrupts (see irq_ctx.bpf.h). */
IRQ_CTX_PROGRAMS

char LICENSE[] SEC("license") = "GPL";
