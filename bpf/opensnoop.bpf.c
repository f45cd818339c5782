// SPDX-License-Identifier: GPL-2.0
/*
 * opensnoop-lite: every open, openat and openat2 with its result. The
 * arguments are kept per thread at sys_enter, the event is sent at
 * sys_exit (the path is read then: the kernel has just faulted it in).
 * syscalls:sys_* tracepoints have no useful raw form, so these are
 * classic tracepoints.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "opensnoop.h"
#include "bpf/filter.bpf.h"
#include "bpf/loss.bpf.h"

#define AT_FDCWD	-100
#define O_ACCMODE	3

const volatile __u32 cfg_self = 0;		/* our own tgid: never reported */
const volatile bool cfg_filter_uid = false;
const volatile __u32 cfg_uid = 0;
const volatile bool cfg_failed_only = false;	/* -x */
const volatile __u64 cfg_flag_bits = 0;		/* -f: any of these bits */
/*
 * -f with a flag of several bits (O_SYNC is __O_SYNC|O_DSYNC, O_TMPFILE
 * __O_TMPFILE|O_DIRECTORY): all of one mask's bits; 0 ends the list.
 */
const volatile __u64 cfg_flag_masks[OPENSNOOP_FLAG_MASKS] = {};
const volatile __u32 cfg_accmodes = 0;		/* -f: bit (1 << accmode) */
/*
 * Wake the reader only once this much is waiting (0: the kernel's
 * default, a wake-up whenever the reader has caught up). The reader
 * also polls on a timer, so nothing waits longer than that.
 */
const volatile __u32 cfg_wakeup_bytes = 0;

struct args {
	const char *path;
	__u64 flags;
	__u32 mode;
	__s32 dfd;
	__u8 syscall;
};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, OPENSNOOP_RINGBUF_PAGES * 4096);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OPENSNOOP_INFLIGHT);
	__type(key, __u32);
	__type(value, struct args);
} inflight SEC(".maps");

/* An event is built here (too big for the stack), then copied out at its real size. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct open_event);
} scratch SEC(".maps");

static __always_inline bool flags_match(__u64 flags)
{
	int i;

	if (!cfg_flag_bits && !cfg_accmodes && !cfg_flag_masks[0])
		return true;
	if ((flags & cfg_flag_bits) || (cfg_accmodes & (1U << (flags & O_ACCMODE))))
		return true;
	/* unrolled: constant indices, and dead slots dropped as rodata */
#pragma unroll
	for (i = 0; i < OPENSNOOP_FLAG_MASKS; i++)
		if (cfg_flag_masks[i] && (flags & cfg_flag_masks[i]) == cfg_flag_masks[i])
			return true;
	return false;
}

static __always_inline int handle_enter(__u8 sys, __s32 dfd, const char *path, __u64 flags,
					__u32 mode)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = id;
	struct args a;

	if ((id >> 32) == cfg_self || !filter_current())
		return 0;
	if (cfg_filter_uid && (__u32)bpf_get_current_uid_gid() != cfg_uid)
		return 0;
	if (!flags_match(flags))
		return 0;
	a.path = path;
	a.flags = flags;
	a.mode = mode;
	a.dfd = dfd;
	a.syscall = sys;
	if (bpf_map_update_elem(&inflight, &tid, &a, BPF_ANY))
		loss_inc(map_full);
	return 0;
}

/* The directory a relative path starts from: the cwd, or the file behind dfd. */
static __always_inline bool start_dir(struct task_struct *task, __s32 dfd, struct path *p)
{
	struct file **fds, *f;

	if (dfd == AT_FDCWD) {
		if (BPF_CORE_READ_INTO(p, task, fs, pwd))
			return false;
		return true;
	}
	if (dfd < 0 || dfd >= BPF_CORE_READ(task, files, fdt, max_fds))
		return false;
	fds = BPF_CORE_READ(task, files, fdt, fd);
	if (bpf_probe_read_kernel(&f, sizeof(f), &fds[dfd]) || !f)
		return false;
	return !BPF_CORE_READ_INTO(p, f, f_path);
}

/*
 * -F: the names of the directories from dir up to the task's root
 * (innermost first), crossing mount points, one per fixed NAME_MAX slot
 * after the path: a fixed slot keeps the verifier's view of every pass
 * the same, a packed offset would make it explore each length. Bounded
 * by OPENSNOOP_FULL_DEPTH; FULL_CUT says it stopped before the root.
 */
static __always_inline void resolve_dir(struct open_event *e, struct task_struct *task, __u32 base)
{
	struct dentry *d, *root_d;
	struct vfsmount *vfsmnt, *root_mnt;
	struct path dir;
	struct mount *m;
	int i;

	if (!start_dir(task, e->dfd, &dir)) {
		e->full = FULL_FAILED;
		return;
	}
	root_d = BPF_CORE_READ(task, fs, root.dentry);
	root_mnt = BPF_CORE_READ(task, fs, root.mnt);
	d = dir.dentry;
	vfsmnt = dir.mnt;
	m = (void *)vfsmnt - bpf_core_field_offset(struct mount, mnt);
	e->full = FULL_RESOLVED | FULL_CUT;
	for (i = 0; i < OPENSNOOP_FULL_DEPTH + 1; i++) {
		struct dentry *parent;
		__u32 off;

		/* At the root of a mount: continue from where it is mounted (twice: stacked mounts). */
		for (int k = 0; k < 2; k++) {
			if (d == root_d && vfsmnt == root_mnt)
				break;
			if (d == BPF_CORE_READ(vfsmnt, mnt_root)) {
				struct mount *mp = BPF_CORE_READ(m, mnt_parent);

				if (mp == m)
					break;
				d = BPF_CORE_READ(m, mnt_mountpoint);
				m = mp;
				vfsmnt = (void *)m + bpf_core_field_offset(struct mount, mnt);
			}
		}
		if (d == root_d && vfsmnt == root_mnt)
			goto done;
		parent = BPF_CORE_READ(d, d_parent);
		if (parent == d)	/* the root of the mount tree */
			goto done;
		if (i == OPENSNOOP_FULL_DEPTH)
			break;
		off = base + i * OPENSNOOP_NAME_MAX;
		/* keep the checked register the one used (clang re-derives it otherwise) */
		barrier_var(off);
		if (off > sizeof(e->buf) - OPENSNOOP_NAME_MAX)
			break;
		if (bpf_probe_read_kernel_str(&e->buf[off], OPENSNOOP_NAME_MAX,
					      BPF_CORE_READ(d, d_name.name)) <= 0)
			break;
		e->ndirs = i + 1;
		d = parent;
	}
	e->dirs_len = e->ndirs * OPENSNOOP_NAME_MAX;
	return;
done:
	e->full = FULL_RESOLVED;
	e->dirs_len = e->ndirs * OPENSNOOP_NAME_MAX;
}

/*
 * full: -F. The exit programs come in two sets, plain and _full, and user
 * space loads one: libbpf then relocates the dentry/mount/file types of
 * the -F walk only when it is asked for, which is most of the CO-RE work
 * at start-up.
 */
static __always_inline int handle_exit(long ret, const bool full)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = id, zero = 0;
	__u64 size;	/* 64-bit: no zero-extension to hide bounds from the verifier */
	struct open_event *e;
	struct args *a;
	long n;

	a = bpf_map_lookup_elem(&inflight, &tid);
	if (!a)
		return 0;
	if (cfg_failed_only && ret >= 0) {
		bpf_map_delete_elem(&inflight, &tid);
		return 0;
	}
	e = bpf_map_lookup_elem(&scratch, &zero);
	if (!e) {
		bpf_map_delete_elem(&inflight, &tid);
		return 0;
	}
	e->ts = bpf_ktime_get_ns();
	e->flags = a->flags;
	e->tgid = id >> 32;
	e->tid = tid;
	e->uid = bpf_get_current_uid_gid();
	e->ret = ret;
	e->dfd = a->dfd;
	e->mode = a->mode;
	e->syscall = a->syscall;
	e->full = 0;
	e->ndirs = 0;
	e->dirs_len = 0;
	e->pad = 0;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	n = bpf_probe_read_user_str(e->buf, OPENSNOOP_PATH_MAX, a->path);
	bpf_map_delete_elem(&inflight, &tid);
	if (n <= 0 || n > OPENSNOOP_PATH_MAX) {
		e->buf[0] = 0;
		n = 1;
	}
	e->path_len = n;
	if (full && e->buf[0] != '/')
		resolve_dir(e, (struct task_struct *)bpf_get_current_task(), n);

	size = offsetof(struct open_event, buf) + e->path_len + e->dirs_len;
	barrier_var(size);	/* clang drops the check below otherwise: the verifier needs it */
	if (size > sizeof(*e))
		size = sizeof(*e);
	if (bpf_ringbuf_output(&events, e, size,
			       !cfg_wakeup_bytes ? 0 :
			       bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= cfg_wakeup_bytes ?
			       BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP))
		loss_inc(events);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_open")
int sys_enter_open(struct trace_event_raw_sys_enter *ctx)
{
	return handle_enter(SYS_OPEN, AT_FDCWD, (const char *)ctx->args[0], ctx->args[1],
			    ctx->args[2]);
}

SEC("tracepoint/syscalls/sys_enter_openat")
int sys_enter_openat(struct trace_event_raw_sys_enter *ctx)
{
	return handle_enter(SYS_OPENAT, ctx->args[0], (const char *)ctx->args[1], ctx->args[2],
			    ctx->args[3]);
}

SEC("tracepoint/syscalls/sys_enter_openat2")
int sys_enter_openat2(struct trace_event_raw_sys_enter *ctx)
{
	struct open_how how = {};

	bpf_probe_read_user(&how, sizeof(how), (void *)ctx->args[2]);
	return handle_enter(SYS_OPENAT2, ctx->args[0], (const char *)ctx->args[1], how.flags,
			    how.mode);
}

SEC("tracepoint/syscalls/sys_exit_open")
int sys_exit_open(struct trace_event_raw_sys_exit *ctx)
{
	return handle_exit(ctx->ret, false);
}

SEC("tracepoint/syscalls/sys_exit_open")
int sys_exit_open_full(struct trace_event_raw_sys_exit *ctx)
{
	return handle_exit(ctx->ret, true);
}

SEC("tracepoint/syscalls/sys_exit_openat")
int sys_exit_openat(struct trace_event_raw_sys_exit *ctx)
{
	return handle_exit(ctx->ret, false);
}

SEC("tracepoint/syscalls/sys_exit_openat")
int sys_exit_openat_full(struct trace_event_raw_sys_exit *ctx)
{
	return handle_exit(ctx->ret, true);
}

SEC("tracepoint/syscalls/sys_exit_openat2")
int sys_exit_openat2(struct trace_event_raw_sys_exit *ctx)
{
	return handle_exit(ctx->ret, false);
}

SEC("tracepoint/syscalls/sys_exit_openat2")
int sys_exit_openat2_full(struct trace_event_raw_sys_exit *ctx)
{
	return handle_exit(ctx->ret, true);
}

char LICENSE[] SEC("license") = "GPL";
