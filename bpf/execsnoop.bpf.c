// SPDX-License-Identifier: GPL-2.0
/*
 * execsnoop-lite: every exec, with its full argv up to --max-args. argv is
 * read at sys_enter_execve/execveat (the caller's memory is still there),
 * the resolved file name and new comm at sched_process_exec, the return
 * value at sys_exit. Each goes to the ring buffer as it happens; user
 * space joins them by thread ID (see execsnoop.h).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "bpf/tp.bpf.h"
#include "execsnoop.h"
#include "bpf/filter.bpf.h"
#include "bpf/loss.bpf.h"

const volatile __u32 cfg_self = 0;	/* our own tgid: never reported */
const volatile __u32 cfg_max_args = EXECSNOOP_DEF_ARGS;
const volatile __u32 cfg_arg_len = EXECSNOOP_DEF_ARG_LEN;
const volatile bool cfg_filter_uid = false;
const volatile __u32 cfg_uid = 0;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, EXECSNOOP_RINGBUF);
} events SEC(".maps");

/* An ENTER record is built here (too big for the stack), then copied out at its real size. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct exec_enter);
} scratch SEC(".maps");

/*
 * Threads inside an exec we report: EXEC and EXIT records only for them.
 * The value is the thread's ID at ENTER: a thread other than the leader
 * takes the leader's ID when its exec succeeds, and the EXIT record
 * carries both, so user space finds the exec even if the EXEC record that
 * tells of the move was lost.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, EXECSNOOP_INFLIGHT);
	__type(key, __u32);	/* tid now */
	__type(value, __u32);	/* tid at ENTER */
} inflight SEC(".maps");

static __always_inline int handle_enter(const char *const *argv)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = id, zero = 0, i;
	__u64 off = 0, size;	/* 64-bit: no zero-extension to hide bounds from the verifier */
	struct task_struct *task;
	struct exec_enter *e;
	__u32 uid;

	if ((id >> 32) == cfg_self || !filter_current())
		return 0;
	uid = bpf_get_current_uid_gid();
	if (cfg_filter_uid && uid != cfg_uid)
		return 0;
	e = bpf_map_lookup_elem(&scratch, &zero);
	if (!e)
		return 0;
	task = (struct task_struct *)bpf_get_current_task();
	e->type = REC_ENTER;
	e->tid = tid;
	e->tgid = id >> 32;
	e->ppid = BPF_CORE_READ(task, real_parent, tgid);
	e->uid = uid;
	e->flags = 0;
	e->ts = bpf_ktime_get_ns();
	bpf_get_current_comm(e->comm, sizeof(e->comm));

	for (i = 0; i < EXECSNOOP_MAX_ARGS + 1; i++) {
		const char *p;
		long n;

		if (bpf_probe_read_user(&p, sizeof(p), &argv[i])) {
			e->flags |= ARGS_FAULT;
			break;
		}
		if (!p)
			break;
		if (i >= cfg_max_args || i >= EXECSNOOP_MAX_ARGS ||
		    off + cfg_arg_len + 2 > EXECSNOOP_ARGS_BUF) {
			e->flags |= ARGS_MORE;
			break;
		}
		/*
		 * Read one byte more than the limit: user space cuts an
		 * argument longer than cfg_arg_len and marks it. (No branch
		 * here: each one would multiply the verifier's work by the
		 * number of arguments.)
		 */
		size = cfg_arg_len + 2;
		if (size > EXECSNOOP_ARG_LEN_MAX + 2)
			size = EXECSNOOP_ARG_LEN_MAX + 2;
		n = bpf_probe_read_user_str(&e->args[off & (EXECSNOOP_ARGS_BUF - 1)], size, p);
		if (n <= 0) {
			e->flags |= ARGS_FAULT;
			break;
		}
		off += n;
	}
	e->argc = i;
	barrier_var(off);	/* check the register used below (clang would drop it) */
	if (off > EXECSNOOP_ARGS_BUF)
		off = EXECSNOOP_ARGS_BUF;
	e->args_len = off;
	size = offsetof(struct exec_enter, args) + off;
	if (bpf_ringbuf_output(&events, e, size, 0)) {
		loss_inc(events);
		return 0;
	}
	if (bpf_map_update_elem(&inflight, &tid, &tid, BPF_ANY))
		loss_inc(map_full);	/* the exec is shown without its return value */
	return 0;
}

static __always_inline int handle_exec(struct task_struct *p, pid_t old_pid,
				       struct linux_binprm *bprm)
{
	__u32 old = old_pid, tid = BPF_CORE_READ(p, pid), *enter_tid, first;
	struct exec_exec *e;

	enter_tid = bpf_map_lookup_elem(&inflight, &old);
	if (!enter_tid)
		return 0;
	first = *enter_tid;
	/* A thread other than the leader exec'ed: it has taken the leader's ID. */
	if (old != tid) {
		bpf_map_delete_elem(&inflight, &old);
		if (bpf_map_update_elem(&inflight, &tid, &first, BPF_ANY))
			loss_inc(map_full);
	}
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		/* shown with its old comm and no file name */
		loss_inc(events);
		return 0;
	}
	e->type = REC_EXEC;
	e->tid = tid;
	e->old_tid = old;
	e->pad = 0;
	BPF_CORE_READ_STR_INTO(&e->comm, p, comm);
	bpf_probe_read_kernel_str(e->filename, sizeof(e->filename), BPF_CORE_READ(bprm, filename));
	bpf_ringbuf_submit(e, 0);
	return 0;
}

static __always_inline int handle_exit(long ret)
{
	__u32 tid = bpf_get_current_pid_tgid(), *enter_tid, first;
	struct exec_exit *e;

	enter_tid = bpf_map_lookup_elem(&inflight, &tid);
	if (!enter_tid)
		return 0;
	first = *enter_tid;
	bpf_map_delete_elem(&inflight, &tid);
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		loss_inc(events);
		return 0;
	}
	e->type = REC_EXIT;
	e->tid = tid;
	e->ret = ret;
	e->enter_tid = first;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_execve")
int sys_enter_execve(struct trace_event_raw_sys_enter *ctx)
{
	return handle_enter((const char *const *)ctx->args[1]);
}

SEC("tracepoint/syscalls/sys_enter_execveat")
int sys_enter_execveat(struct trace_event_raw_sys_enter *ctx)
{
	return handle_enter((const char *const *)ctx->args[2]);
}

SEC("tracepoint/syscalls/sys_exit_execve")
int sys_exit_execve(struct trace_event_raw_sys_exit *ctx)
{
	return handle_exit(ctx->ret);
}

SEC("tracepoint/syscalls/sys_exit_execveat")
int sys_exit_execveat(struct trace_event_raw_sys_exit *ctx)
{
	return handle_exit(ctx->ret);
}

TP_PROG(sched_process_exec, sched_process_exec, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	return handle_exec(p, old_pid, bprm);
}

char LICENSE[] SEC("license") = "GPL";
