// SPDX-License-Identifier: GPL-2.0
/*
 * strace-lite: system calls of chosen processes from raw_syscalls
 * sys_enter/sys_exit, and sched_switch for the calls that block (their
 * entry is sent as they block). The set of traced threads lives here (filled by
 * user space, grown at fork with -f, pruned at exit). On the tp_btf path
 * each thread's own storage caches its membership and holds its state, so
 * a call costs one task storage lookup, traced or not; the raw_tp path
 * looks the thread up in the set.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "bpf/tp.bpf.h"
#include "strace.h"
#include "bpf/hist.bpf.h"
#include "bpf/core_fixes.bpf.h"
#include "bpf/loss.bpf.h"
#include "bpf/errno.bpf.h"

const volatile bool cfg_trace = true;		/* send events (trace mode) */
const volatile bool cfg_summary = false;	/* -c, -C */
const volatile bool cfg_wall = false;		/* -w: -c sums wall time, not system time */
const volatile bool cfg_hist = false;		/* -L */
const volatile bool cfg_follow = false;		/* -f */
const volatile __u32 cfg_uid = (__u32)-1;	/* -u USER without a command: every task of USER */
const volatile bool cfg_all = false;		/* -c alone: every task */
const volatile __u32 cfg_status = STATUS_ALL;	/* -z, -Z */
const volatile __u32 cfg_strsize = 32;		/* -s: buffer bytes copied */
const volatile __u64 cfg_wakeup_bytes = 65536;	/* wake the reader past this backlog */
const volatile __u32 cfg_exec_slots[4] = { 59, 322, STRACE_IA32 + 11, STRACE_IA32 + 358 };
/* exit and exit_group never reach sys_exit (-c does not list them, as strace) */
const volatile __u32 cfg_noreturn_slots[4] = { 60, 231, STRACE_IA32 + 1, STRACE_IA32 + 252 };
/* Traced slots (-e trace=) and what to copy per slot (tools/strace/decode/sysdecode.h). */
const volatile __u64 cfg_mask[STRACE_SLOTS / 64];
const volatile __u64 cfg_capture[STRACE_SLOTS];
const volatile bool cfg_fd_info = false;	/* -y, -P: EV_FDS, EV_EXEC_FDS */
const volatile bool cfg_noabbrev = false;	/* -v: execve's argv and envp unabbreviated */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, STRACE_MAX_TASKS);
	__type(key, __u32);			/* tid */
	__type(value, struct strace_task);
} traced SEC(".maps");

/*
 * tp_btf: a thread's state, and whether it is in traced as of set_gen.
 * User space bumps set_gen after adding threads to traced; BPF code that
 * adds or drops a thread updates its storage as well.
 */
struct task_slot {
	struct strace_task t;
	__u32 gen;
	__u32 traced;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_slot);
} tasks SEC(".maps");

/* never 0: a new task slot (all zeros) must look out of date */
__u32 set_gen = 1;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STRACE_SLOTS);
	__type(key, __u32);
	__type(value, struct strace_stat);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STRACE_SLOTS);
	__type(key, __u32);
	__type(value, struct strace_hist);
} hists SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, STRACE_MAX_LOST_PIDS);
	__type(key, __u32);			/* tgid */
	__type(value, __u64);
} lost SEC(".maps");

static __always_inline void lose(__u32 tgid)
{
	__u64 one = 1, *c;

	loss_inc(events);
	c = bpf_map_lookup_elem(&lost, &tgid);
	if (c) {
		__sync_fetch_and_add(c, 1);
		return;
	}
	if (bpf_map_update_elem(&lost, &tgid, &one, BPF_NOEXIST)) {
		c = bpf_map_lookup_elem(&lost, &tgid);
		if (c)
			__sync_fetch_and_add(c, 1);
	}
}

static __always_inline struct strace_task *join(__u32 tid)
{
	struct strace_task n = { .slot = STRACE_SLOT_NONE };

	if (bpf_map_update_elem(&traced, &tid, &n, BPF_NOEXIST) &&
	    !bpf_map_lookup_elem(&traced, &tid)) {
		loss_inc(map_full);
		return NULL;
	}
	return bpf_map_lookup_elem(&traced, &tid);
}

/*
 * Waking the reader per event costs more than the event (an irq_work and
 * a context switch): wake it once per cfg_wakeup_bytes produced, when
 * this record (size bytes and its 8-byte header) crossed such a
 * boundary; the reader also drains the buffer on a timer.
 */
static __always_inline void submit(void *e, __u64 size)
{
	__u64 pos = bpf_ringbuf_query(&events, BPF_RB_PROD_POS);
	__u64 flags = (pos & (cfg_wakeup_bytes - 1)) < size + 8 ?
		      BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;

	bpf_ringbuf_submit(e, flags);
}

/*
 * A record of size bytes reserved on the ring buffer with its header
 * filled (id_tgid as bpf_get_current_pid_tgid() gives it: tgid << 32 |
 * tid), or NULL once the loss is counted against the tgid. size is a
 * constant at every call: the verifier wants one for the reservation.
 */
static __always_inline void *event_new(__u64 size, __u32 type, __u32 slot, __u64 id_tgid,
				       __u64 ts)
{
	struct strace_hdr *h = bpf_ringbuf_reserve(&events, size, 0);

	if (!h) {
		lose(id_tgid >> 32);
		return NULL;
	}
	h->type = type;
	h->slot = slot;
	h->tgid = id_tgid >> 32;
	h->tid = (__u32)id_tgid;
	h->ts = ts;
	return h;
}

static __always_inline bool is_exec(__u32 slot)
{
	return slot == cfg_exec_slots[0] || slot == cfg_exec_slots[1] ||
	       slot == cfg_exec_slots[2] || slot == cfg_exec_slots[3];
}

static __always_inline bool is_noreturn(__u32 slot)
{
	return slot == cfg_noreturn_slots[0] || slot == cfg_noreturn_slots[1] ||
	       slot == cfg_noreturn_slots[2] || slot == cfg_noreturn_slots[3];
}

/* The six arguments of the current call from its saved registers. */
static __always_inline int read_args(struct pt_regs *regs, bool ia32, __u64 *args)
{
	struct pt_regs r;

	if (bpf_probe_read_kernel(&r, sizeof(r), regs))
		return -1;
	if (ia32) {
		args[0] = (__u32)r.bx;
		args[1] = (__u32)r.cx;
		args[2] = (__u32)r.dx;
		args[3] = (__u32)r.si;
		args[4] = (__u32)r.di;
		args[5] = (__u32)r.bp;
	} else {
		/* x86_64 syscall ABI: the fourth argument is in r10, not rcx */
		args[0] = r.di;
		args[1] = r.si;
		args[2] = r.dx;
		args[3] = r.r10;
		args[4] = r.r8;
		args[5] = r.r9;
	}
	return 0;
}

/*
 * Clamp a copy's length (or an index) to max on the register the helper
 * call then uses: a C bound check on a 32-bit copy of the value (or on
 * another register the compiler keeps it in) leaves the call's register
 * unbounded for the verifier ("invalid access to memory"). The mask first
 * (a no-op: every value clamped here is at most max) makes it non-negative
 * for verifiers that link it with a signed value ("min value is negative").
 */
_Static_assert(STRACE_STR_MAX == 256 && STRACE_CAP_TINY == 32, "clamp_len() literals");
#define __clamp_str(x) #x
#define clamp_len(n, max, mask)						\
	asm volatile("%[v] &= " __clamp_str(mask) ";"			\
		     "if %[v] <= " __clamp_str(max) " goto +1;"		\
		     "%[v] = " __clamp_str(max) : [v] "+r"(n))

static __always_inline bool slot_traced(__u32 slot)
{
	__u64 w = slot / 64;

	if (slot >= STRACE_SLOTS)
		return false;
	/*
	 * the word's index clamped on its register: the compiler may derive
	 * it from a spilled copy of the call number whose bound 6.1's
	 * verifier does not know (it did once -c's stime read took a
	 * register in handle_enter)
	 */
	_Static_assert(STRACE_SLOTS / 64 == 16, "slot_traced() literals");
	clamp_len(w, 15, 15);
	return cfg_mask[w] & (1ULL << (slot % 64));
}

/* args[i], i bounded on the register that indexes (i past 5: args[5]) */
static __always_inline __u64 arg_at(const __u64 *args, __u64 i)
{
	clamp_len(i, 5, 7);
	return args[i];
}

static __always_inline void copy_str(struct strace_enter *e, int k, __u64 ptr)
{
	char *dst = k ? e->cap[1] : e->cap[0];

	long n = bpf_probe_read_user_str(dst, STRACE_STR_MAX, (void *)ptr);

	/* 6.1 reads "" as 0 bytes, not counting its NUL as later kernels do */
	if (n == 0) {
		dst[0] = 0;
		n = 1;
	}
	e->cap_len[k & 1] = n;
}

static __always_inline void copy_buf(struct strace_enter *e, int k, __u64 ptr, __u64 count,
				     __u64 max)
{
	char *dst = k ? e->cap[1] : e->cap[0];
	__u64 n = count < max ? count : max;

	clamp_len(n, 256, 0x1ff);
	e->cap_len[k & 1] = bpf_probe_read_user(dst, n, (void *)ptr) ? -14 : (int)n;
}

/*
 * execve's argv (and with -v envp), sent whole in an EV_STRV record built
 * here: per CPU, not on the stack, which the callers of handle_enter
 * already fill.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct strace_strv);
} strv_buf SEC(".maps");

/* Bytes read of each string: -s + 1 and the NUL (a longer one is cut). */
#define STRV_STR	(cfg_strsize + 2)

/*
 * The strings of the array at vec into b->data, as array which (0: argv,
 * 1: envp): strace prints -s strings of an array, every one with -v; here
 * at most as many as fit whole in STRACE_STRV_BYTES and STRACE_STRV_MAX.
 * A bounded loop the verifier walks once per string: a branch that leaves
 * it waits on the verifier's stack meanwhile, so the body has few.
 */
static __always_inline void read_strv(struct strace_strv *b, __u64 vec, int which, __u32 ia32)
{
	__u32 max = cfg_noabbrev ? STRACE_STRV_MAX : cfg_strsize;
	/* no branch on ia32: each would double the verifier's walk */
	__u64 step = 8 >> ia32, pmask = ~0ULL >> (32 * ia32), p;
	/*
	 * read from memory: unknown to the verifier, so that it does not walk
	 * the loop again for each length the strings before could have
	 */
	__u32 off = *(volatile __u32 *)&b->len;
	long n;

	if (bpf_probe_read_user(&p, sizeof(p), (void *)vec)) {
		b->flags |= which ? STRV_ENV_FAULT : STRV_ARGV_FAULT;
		return;
	}
	/* one more than max: a string past it is "..." */
	for (int i = 0; i <= STRACE_STRV_MAX; i++) {
		/* an element that cannot be read ends the array */
		p = bpf_probe_read_user(&p, sizeof(p), (void *)(vec + i * step)) ? 0 : p & pmask;
		if (!p)
			break;
		if (i >= max || off > STRACE_STRV_BYTES - STRV_STR) {
			b->flags |= which ? STRV_ENV_MORE : STRV_ARGV_MORE;
			break;
		}
		off &= STRACE_STRV_BYTES - 1;
		b->data[off] = 0;	/* unreadable: an empty string */
		n = bpf_probe_read_user_str(&b->data[off], STRV_STR, (void *)p);
		off += n > 0 ? n : 1;
		b->count[which & 1]++;
	}
	b->len = off;
}

/* strace's "N vars" comment: the entries of execve's envp, up to a bound. */
static __always_inline int count_env(__u64 envp, __u32 ia32)
{
	__u64 step = 8 >> ia32, pmask = ~0ULL >> (32 * ia32), p = 0;
	int n;

	for (n = 0; n < STRACE_ENVC_MAX; n++) {
		if (bpf_probe_read_user(&p, sizeof(p), (void *)(envp + n * step)) || !(p & pmask))
			break;
	}
	return n;
}

/*
 * EV_STRV after the entry: argv and envp (0: none) of the call of slot,
 * how (STRV_SEND_*). A global function: the verifier walks its loops once,
 * not once for each way handle_enter reaches it. Its arguments are
 * scalars, its stack a few bytes (the chain's is bounded at 512).
 */
#define STRV_SEND_IA32	(1 << 8)
#define STRV_SEND_ENVC	(1 << 9)	/* and envp: counted, or with -v its strings */
__noinline int send_strv(__u64 argv, __u64 envp, __u64 id_tgid, __u32 slot, __u32 how)
{
	__u32 ia32 = (how & STRV_SEND_IA32) != 0;
	struct strace_strv *b;
	__u32 zero = 0;

	b = bpf_map_lookup_elem(&strv_buf, &zero);
	if (!b)
		return 0;
	b->h.type = EV_STRV;
	b->h.slot = slot;
	b->h.tgid = id_tgid >> 32;
	b->h.tid = (__u32)id_tgid;
	b->h.ts = 0;
	b->count[0] = b->count[1] = 0;
	b->arg = how & 0xff;
	b->flags = 0;
	b->len = 0;
	read_strv(b, argv, 0, ia32);
	if (how & STRV_SEND_ENVC) {
		if (cfg_noabbrev) {
			b->flags |= STRV_ENV;
			read_strv(b, envp, 1, ia32);
		} else {
			b->count[1] = count_env(envp, ia32);
		}
	}
	if (bpf_ringbuf_output(&events, b, STRACE_STRV_HDR + (b->len & (STRACE_STRV_BYTES - 1)),
			       0))
		lose(id_tgid >> 32);
	return 0;
}

/* one element's data: n bytes (the slot, a literal, bounds them on the copy's register) */
#define iov_slot(dst, base, len, left, slot) do {				\
	__u64 __n = (len) < (left) ? (len) : (left);				\
									\
	(left) -= __n;							\
	if (__n > slot)							\
		__n = slot;						\
	clamp_len(__n, slot, 0xff);					\
	if (__n && bpf_probe_read_user(dst, __n, (void *)(base)))	\
		(dst)[0] = 0;						\
} while (0)
_Static_assert(STRACE_IOV_SLOT(1, 0) == 160 && STRACE_IOV_SLOT(2, 0) == 80 &&
	       STRACE_IOV_SLOT(4, 0) == 40 && STRACE_IOV_DATA(0) == 96, "iov_slot() literals");
_Static_assert(STRACE_IOV_SLOT(1, 1) == 128 && STRACE_IOV_SLOT(2, 1) == 64 &&
	       STRACE_IOV_SLOT(4, 1) == 32 && STRACE_IOV_DATA(1) == 128, "iov_slot() literals");
_Static_assert(STRACE_IOV_NAME == 96 && STRACE_IOV_NAME_MAX == 32, "msg_name literals");

struct iov64 {
	__u64 base, len;
};

/*
 * An iovec block (strace.h): iov_len of the first elements, then the data
 * of the first 1, 2 or 4 of them, up to total bytes in all (what readv
 * returned; writev's whole lengths), each copy clamped to its slot on
 * the register that makes it. msg: addr is a msghdr, copied first, and
 * its msg_name after the lengths.
 */
static __always_inline int copy_iov(char *dst, __u64 addr, __u64 cnt, __u64 total, bool msg)
{
	struct iov64 v[4] = {};
	__u32 *lens = (__u32 *)(dst + STRACE_IOV_LENS);
	__u64 left = total, name, n;
	int k;

	if (msg) {
		if (bpf_probe_read_user(dst, STRACE_IOV_MSGHDR, (void *)addr))
			return -14;
		addr = *(__u64 *)(dst + 16);	/* msg_iov */
		cnt = *(__u64 *)(dst + 24);	/* msg_iovlen */
		/* msg_name, a sockaddr of msg_namelen (the result at exit) */
		name = *(__u64 *)dst;
		n = *(__u32 *)(dst + 8);
		clamp_len(n, 32, 0x3f);	/* STRACE_IOV_NAME_MAX */
		if (name && n && bpf_probe_read_user(dst + 96, n, (void *)name))
			*(__u32 *)(dst + 8) = 0;
	} else {
		__builtin_memset(dst, 0, STRACE_IOV_MSGHDR);
	}
#pragma unroll
	for (k = 0; k < STRACE_IOV_MAX; k++) {
		struct iov64 one;

		lens[k] = 0;
		if (k >= cnt || bpf_probe_read_user(&one, sizeof(one), (void *)(addr + k * 16)))
			continue;
		lens[k] = one.len > 0xffffffffULL ? 0xffffffffU : one.len;
		if (k < 4)
			v[k] = one;
	}
	if (msg && cnt <= 1) {
		iov_slot(dst + 128, v[0].base, v[0].len, left, 128);
	} else if (msg && cnt == 2) {
		iov_slot(dst + 128, v[0].base, v[0].len, left, 64);
		iov_slot(dst + 128 + 64, v[1].base, v[1].len, left, 64);
	} else if (msg) {
		iov_slot(dst + 128, v[0].base, v[0].len, left, 32);
		iov_slot(dst + 128 + 32, v[1].base, v[1].len, left, 32);
		iov_slot(dst + 128 + 64, v[2].base, v[2].len, left, 32);
		iov_slot(dst + 128 + 96, v[3].base, v[3].len, left, 32);
	} else if (cnt <= 1) {
		iov_slot(dst + 96, v[0].base, v[0].len, left, 160);
	} else if (cnt == 2) {
		iov_slot(dst + 96, v[0].base, v[0].len, left, 80);
		iov_slot(dst + 96 + 80, v[1].base, v[1].len, left, 80);
	} else {
		iov_slot(dst + 96, v[0].base, v[0].len, left, 40);
		iov_slot(dst + 96 + 40, v[1].base, v[1].len, left, 40);
		iov_slot(dst + 96 + 80, v[2].base, v[2].len, left, 40);
		iov_slot(dst + 96 + 120, v[3].base, v[3].len, left, 40);
	}
	return STRACE_STR_MAX;
}

/*
 * A whole call's value-result length (recvfrom's addrlen, getsockopt's
 * optlen, recvmsg's msg_namelen) as the call begins: strace shows
 * "[128 => 16]" when the call changed it.
 */
static __always_inline void save_vres(struct strace_task *t, struct pt_regs *regs, bool ia32,
				      __u64 cap)
{
	__u64 args[6], p;
	__u32 len = 0;

	if (read_args(regs, ia32, args))
		return;
	p = arg_at(args, STRACE_CAP_VRES(cap) - 1);
	if (cap & STRACE_CAP_VRES_MSG) {	/* msg_name, msg_namelen */
		struct { __u64 name; __u32 len; } m;

		if (bpf_probe_read_user(&m, sizeof(m), (void *)p) || !m.name)
			return;
		len = m.len;
	} else if (!p || bpf_probe_read_user(&len, sizeof(len), (void *)p)) {
		return;
	}
	t->outbuf = len;
	t->flags |= TASK_VRES;
}


/*
 * tp_btf: the current thread's slot, brought up to date with the traced
 * set when user space has added threads since it last looked; NULL if the
 * thread is not traced (or has no storage: counted as map_full).
 */
static __always_inline struct task_slot *current_slot(struct task_struct *task, __u32 tid)
{
	struct task_slot *ts;
	struct strace_task *t;
	__u32 gen = set_gen;

	ts = bpf_task_storage_get(&tasks, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!ts) {
		loss_inc(map_full);
		return NULL;
	}
	/*
	 * Only a thread not traced yet takes its state from the set: a
	 * traced one's own is newer (an exec done, a first call checked).
	 */
	if (ts->gen != gen) {
		ts->gen = gen;
		t = ts->traced ? NULL : bpf_map_lookup_elem(&traced, &tid);
		if (t) {
			ts->t = *t;
			ts->traced = 1;
		}
	}
	return ts->traced ? ts : NULL;
}

/* The state of the current thread, if traced (tp_btf: in its own storage). */
static __always_inline struct strace_task *current_task_state(bool btf, struct task_struct *task,
							      __u32 tid)
{
	struct task_slot *ts;

	if (!btf)
		return bpf_map_lookup_elem(&traced, &tid);
	ts = current_slot(task, tid);
	return ts ? &ts->t : NULL;
}

/* Drop the current thread from the traced set (and its slot, tp_btf). */
static __always_inline void current_untrace(bool btf, struct task_struct *task, __u32 tid)
{
	struct task_slot *ts;

	bpf_map_delete_elem(&traced, &tid);
	if (btf) {
		ts = bpf_task_storage_get(&tasks, task, 0, 0);
		if (ts)
			ts->traced = 0;
	}
}

/*
 * -p: is t, added by user space, still the thread it listed (see
 * strace.h)? Checked at the thread's first call or first return (a thread
 * blocked in a call at attach returns first); not it: untraced.
 */
static __always_inline bool same_thread(bool btf, struct task_struct *task, __u32 tid,
					struct strace_task *t)
{
	if (!t->start_ticks)
		return true;
	if (BPF_CORE_READ(task, start_boottime) / STRACE_TICK_NS != t->start_ticks) {
		current_untrace(btf, task, tid);
		return false;
	}
	t->start_ticks = 0;
	return true;
}

static __always_inline int handle_enter(bool btf, struct pt_regs *regs, long id)
{
	__u64 id_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id_tgid, slot, in;
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 cap, argv, envp;
	struct strace_task *t;
	struct strace_enter *e;
	bool ia32, big;
	int k = 0;

	t = current_task_state(btf, task, tid);
	if (!t) {
		/* -u: a task of the user joins the set at its first call; -c alone: any task */
		if (!cfg_all &&
		    (cfg_uid == (__u32)-1 || (__u32)bpf_get_current_uid_gid() != cfg_uid))
			return 0;
		t = join(tid);
		if (!t)
			return 0;
		if (btf) {
			struct task_slot *ts = bpf_task_storage_get(&tasks, task, 0, 0);

			if (!ts)
				return 0;
			ts->t = *t;
			ts->traced = 1;
			t = &ts->t;
		}
	}
	if (!same_thread(btf, task, tid, t))
		return 0;
	t->slot = STRACE_SLOT_NONE;
	if (id < 0 || id >= STRACE_NR)	/* x32 and out-of-table numbers */
		return 0;
	ia32 = task_in_ia32_syscall(task);
	slot = ia32 ? STRACE_IA32 + id : id;
	if (t->flags & TASK_WAIT_EXEC) {
		if (!is_exec(slot))
			return 0;
		t->flags &= ~TASK_WAIT_EXEC;
	}
	if (!slot_traced(slot))
		return 0;
	t->slot = slot;
	t->enter_ns = bpf_ktime_get_ns();
	if (cfg_summary && !cfg_wall)
		t->enter_stime = BPF_CORE_READ(task, stime);
	if (!cfg_trace)	/* -c: the rest is for the events only */
		return 0;
	t->outbuf = 0;
	t->flags &= ~(TASK_RETRY_STR | TASK_WHOLE | TASK_VRES | TASK_SHOWN);
	cap = cfg_capture[slot & (STRACE_SLOTS - 1)];
	/* strings, an input buffer or structure, or argv to copy */
	big = (cap & STRACE_CAP_AT_ENTRY) ||
	      (STRACE_CAP_IOV(cap) && !(cap & STRACE_CAP_IOV_EXIT));
	if (!big && !is_noreturn(slot)) {
		/* nothing to copy now: one event at exit does it all */
		t->flags |= TASK_WHOLE;
		t->regs = (__u64)regs;	/* for its arguments if it blocks */
		in = STRACE_CAP_OSTRUCT(cap) ?: STRACE_CAP_OUT(cap);
		if (cap & STRACE_CAP_IOV_EXIT)
			in = STRACE_CAP_IOV(cap);
		if (in && in <= 6)
			t->retry_arg = in;	/* fetched from the registers at exit */
		else
			t->retry_arg = 0;
		if (STRACE_CAP_VRES(cap))
			save_vres(t, regs, ia32, cap);
		return 0;
	}

	if (big)
		e = event_new(sizeof(*e), EV_ENTER, slot, id_tgid, t->enter_ns);
	else
		e = event_new(STRACE_ENTER_SMALL, EV_ENTER, slot, id_tgid, t->enter_ns);
	if (!e)
		return 0;
	if (read_args(regs, ia32, e->args)) {
		bpf_ringbuf_discard(e, 0);
		return 0;
	}
	e->cap_len[0] = e->cap_len[1] = 0;
	e->cap_arg[0] = e->cap_arg[1] = 0xff;
	if (big) {
#pragma unroll
		for (int i = 0; i < 6; i++) {
			if (!(cap & (1u << i)) || k >= STRACE_CAPS)
				continue;
			e->cap_arg[k & 1] = i;
			copy_str(e, k, e->args[i]);
			/*
			 * A string in a page not yet faulted in cannot be read
			 * here; the call itself faults it in: read it again as
			 * it blocks or at exit.
			 */
			if (e->cap_len[k & 1] < 0 && !(t->flags & TASK_RETRY_STR)) {
				t->flags |= TASK_RETRY_STR;
				t->retry_str = e->args[i];
				t->retry_arg = i;
			}
			k++;
		}
		in = STRACE_CAP_IN(cap);
		if (in && in < 6 && k < STRACE_CAPS) {
			e->cap_arg[k & 1] = in - 1;
			/* a structure (sockaddr) whatever -s is */
			copy_buf(e, k, arg_at(e->args, in - 1), arg_at(e->args, in),
				 cap & STRACE_CAP_IN_STRUCT ? STRACE_STR_MAX : cfg_strsize);
			k++;
		}
		in = STRACE_CAP_ISTRUCT(cap);
		if (in && in <= 6 && k < STRACE_CAPS) {
			e->cap_arg[k & 1] = in - 1;
			copy_buf(e, k, arg_at(e->args, in - 1), STRACE_CAP_ISIZE(cap), STRACE_STR_MAX);
			k++;
		}
		/* writev's, sendmsg's data (strace.h: an iovec block) */
		in = STRACE_CAP_IOV(cap);
		if (in && in < 6 && !(cap & STRACE_CAP_IOV_EXIT) && k < STRACE_CAPS) {
			e->cap_arg[k & 1] = in - 1;
			e->cap_len[k & 1] = copy_iov(k ? e->cap[1] : e->cap[0], arg_at(e->args, in - 1),
						     arg_at(e->args, in), ~0ULL,
						     cap & STRACE_CAP_IOV_MSG);
			k++;
		}
	}
	in = STRACE_CAP_OSTRUCT(cap) ?: STRACE_CAP_OUT(cap);
	if (in && in <= 6)
		t->outbuf = arg_at(e->args, in - 1);
	in = STRACE_CAP_ARGV(cap);
	if (!big || !in || in > 6) {
		submit(e, big ? sizeof(*e) : STRACE_ENTER_SMALL);
		return 0;
	}
	argv = arg_at(e->args, in - 1);
	envp = arg_at(e->args, in);
	submit(e, sizeof(*e));
	/* execve: argv and envp in the next record */
	send_strv(argv, envp, id_tgid, slot, (in - 1) | (ia32 ? STRV_SEND_IA32 : 0) |
		  (cap & STRACE_CAP_ENVC && in < 6 ? STRV_SEND_ENVC : 0));
	return 0;
}

static __always_inline int count_dirents(__u64 buf, long len)
{
	__u64 off = 0;
	__u16 reclen;
	int n;

	/* linux_dirent64 and linux_dirent both have d_reclen at 16 */
	for (n = 0; n < STRACE_DIRENTS_MAX && off < (__u64)len; n++) {
		if (bpf_probe_read_user(&reclen, sizeof(reclen), (void *)(buf + off + 16)) || !reclen)
			break;
		off += reclen;
	}
	return n;
}

/* The fixed part of an exit record; for a whole call its arguments, *outbuf from them. */
static __always_inline int fill_exit(struct strace_exit *e, struct pt_regs *regs,
				     struct strace_task *t, __u32 slot,
				     long ret, bool whole, __u32 ai, __u64 *outbuf, bool dirents)
{
	e->enter_ts = t->enter_ns;
	if (whole) {
		if (read_args(regs, slot >= STRACE_IA32, e->args))
			return -1;
		/* an output buffer: its address from the saved registers */
		if (ai < 6)
			*outbuf = arg_at(e->args, ai);
	}
	e->ret = ret;
	e->cap_len = 0;
	e->cap_arg = 0xff;
	e->cap_str = 0;
	e->in_len = 0;
	if (whole && (t->flags & TASK_VRES))
		e->in_len = t->outbuf < 0xffff ? t->outbuf + 1 : 0;
	if (dirents) {
		/* getdents: strace's entry count, from each record's d_reclen */
		e->cap_len = count_dirents(*outbuf, ret);
		e->cap_str = STRACE_CAP_DIRENTS_COUNT;
	}
	return 0;
}

/* The file at fd of the current task's table; NULL when none. */
static __always_inline struct file *fd_file(struct task_struct *task, __u32 fd)
{
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	struct file **fda, *f = NULL;

	if (!fdt || fd >= BPF_CORE_READ(fdt, max_fds))
		return NULL;
	fda = BPF_CORE_READ(fdt, fd);
	bpf_probe_read_kernel(&f, sizeof(f), &fda[fd]);
	return f;
}

static __always_inline void fd_info(struct task_struct *task, int fd, __s32 *efd, __u32 *magic,
				    __u32 *dev, __u32 *mnt, __u64 *ino, char *name)
{
	struct file *f = fd >= 0 ? fd_file(task, fd) : NULL;
	struct vfsmount *vfsmnt;
	struct inode *inode;

	*efd = f ? fd : -1;
	*magic = *dev = *mnt = 0;
	*ino = 0;
	name[0] = 0;
	if (!f)
		return;
	inode = BPF_CORE_READ(f, f_inode);
	*ino = BPF_CORE_READ(inode, i_ino);
	*magic = BPF_CORE_READ(inode, i_sb, s_magic);
	*dev = BPF_CORE_READ(inode, i_sb, s_dev);
	/*
	 * and its mount: on overlayfs (and btrfs) stat's st_dev is not the
	 * super block's, so user space matches a path by mount and inode too
	 */
	vfsmnt = BPF_CORE_READ(f, f_path.mnt);
	*mnt = BPF_CORE_READ(container_of(vfsmnt, struct mount, mnt), mnt_id);
	bpf_probe_read_kernel_str(name, STRACE_FDNAME_MAX, BPF_CORE_READ(f, f_path.dentry, d_name.name));
}

/*
 * -y: the files of the fds the call made, sent before its exit, while the
 * fd table holds them: user space names each fd from the call as it
 * returned, not from /proc later (when the number may be another file's).
 */
static __always_inline void send_fds(struct pt_regs *regs, __u32 slot, __u64 id_tgid, __u64 now,
				     long ret, __u64 cap)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct strace_fds *e;
	__s32 pair[2] = { -1, -1 };
	__u64 args[6];

	if (cap & STRACE_CAP_NEWFD_PAIR) {
		if (ret || read_args(regs, slot >= STRACE_IA32, args) ||
		    bpf_probe_read_user(pair, sizeof(pair),
					(void *)arg_at(args, STRACE_CAP_OSTRUCT(cap) - 1)))
			return;
	} else {
		pair[0] = ret;
	}
	e = event_new(sizeof(*e), EV_FDS, slot, id_tgid, now);
	if (!e)
		return;
	fd_info(task, pair[0], &e->fd[0], &e->magic[0], &e->dev[0], &e->mnt[0], &e->ino[0], e->name[0]);
	fd_info(task, pair[1], &e->fd[1], &e->magic[1], &e->dev[1], &e->mnt[1], &e->ino[1], e->name[1]);
	submit(e, sizeof(*e));
}

/*
 * The string t's entry could not copy (TASK_RETRY_STR), copied now, when
 * the call has read it (its page is in): a record of type (EV_BLOCKED as
 * the call blocks, EV_ENTRY_STR at its exit) that user space puts in
 * place of the failed copy.
 */
static __always_inline void send_entry_str(struct strace_task *t, __u32 slot, __u64 id_tgid,
					   __u32 type)
{
	struct strace_enter *e = event_new(sizeof(*e), type, slot, id_tgid, t->enter_ns);

	if (!e)
		return;
	__builtin_memset(e->args, 0, sizeof(e->args));
	e->cap_len[1] = 0;
	e->cap_arg[0] = t->retry_arg;
	e->cap_arg[1] = 0xff;
	copy_str(e, 0, t->retry_str);
	submit(e, sizeof(*e));
}

/* -y: after an execve, the fds it left open (the close-on-exec ones are gone). */
static __always_inline void send_exec_fds(__u32 slot, __u64 id_tgid, __u64 now)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	struct strace_exec_fds *e;
	__u64 words;

	if (!fdt)
		return;
	e = event_new(sizeof(*e), EV_EXEC_FDS, slot, id_tgid, now);
	if (!e)
		return;
	__builtin_memset(e->open, 0, sizeof(e->open));
	words = BPF_CORE_READ(fdt, max_fds) / 64;
	if (words > STRACE_EXEC_FDS / 64)
		words = STRACE_EXEC_FDS / 64;
	_Static_assert(STRACE_EXEC_FDS / 64 * 8 == 128, "clamp_len() literal");
	words *= 8;
	clamp_len(words, 128, 0xff);
	bpf_probe_read_kernel(e->open, words, BPF_CORE_READ(fdt, open_fds));
	submit(e, sizeof(*e));
}

static __always_inline int handle_exit(bool btf, struct pt_regs *regs, long ret)
{
	__u64 id_tgid = bpf_get_current_pid_tgid(), now, ns, outbuf;
	__u32 tid = (__u32)id_tgid, slot, ai, type;
	struct task_struct *task = bpf_get_current_task_btf();
	struct strace_task *t;
	struct strace_exit *e;
	__u64 n, osize, cap;
	bool dirents, poll, iov, olen, oaddr;
	bool failed, big, whole, tiny;

	/*
	 * Up to date with the set: -p puts a thread blocked in a call there
	 * with the call's slot, and its return is its first event.
	 */
	t = current_task_state(btf, task, tid);
	if (!t || !same_thread(btf, task, tid, t))
		return 0;
	slot = t->slot;
	if (slot >= STRACE_SLOTS)	/* not traced, or begun before we were */
		return 0;
	t->slot = STRACE_SLOT_NONE;
	failed = is_errno(ret);
	now = bpf_ktime_get_ns();
	cap = cfg_capture[slot & (STRACE_SLOTS - 1)];
	/* before -z and -Z: the fd table is followed whatever is shown */
	if (cfg_fd_info && !failed && (cap & (STRACE_CAP_NEWFD | STRACE_CAP_NEWFD_PAIR)))
		send_fds(regs, slot, id_tgid, now, ret, cap);
	if (cfg_fd_info && ret == 0 && is_exec(slot))
		send_exec_fds(slot, id_tgid, now);
	if ((cfg_status == STATUS_FAILED && !failed) ||
	    (cfg_status == STATUS_SUCCESSFUL && failed))
		return 0;
	ns = now - t->enter_ns;

	if (cfg_summary) {
		struct strace_stat *s = bpf_map_lookup_elem(&stats, &slot);
		__u64 stime;

		if (s) {	/* per-CPU: no atomics needed */
			s->calls++;
			s->errors += failed;
			if (cfg_wall) {
				s->ns += ns;
			} else {
				/*
				 * strace's: the system time the kernel accounted
				 * to the thread during the call (its stime, by
				 * the tick unless the kernel accounts precisely)
				 */
				stime = BPF_CORE_READ(task, stime);
				if (stime > t->enter_stime)
					s->ns += stime - t->enter_stime;
			}
		}
	}
	if (cfg_hist) {
		struct strace_hist *h = bpf_map_lookup_elem(&hists, &slot);

		if (h)
			h->slots[hist_slot_log2(ns / 1000) & (STRACE_HIST_SLOTS - 1)]++;
	}
	if (!cfg_trace)
		return 0;

	whole = t->flags & TASK_WHOLE;
	type = whole ? EV_CALL : EV_EXIT;
	outbuf = t->outbuf;
	ai = t->retry_arg - 1;	/* whole: the output buffer argument, if any */
	/* a string the entry could not copy: in its own record, before this one */
	if (!whole && (t->flags & TASK_RETRY_STR))
		send_entry_str(t, slot, id_tgid, EV_ENTRY_STR);
	/* an output structure: its fixed size, when the call succeeded */
	osize = STRACE_CAP_OSTRUCT(cap) ? STRACE_CAP_OSIZE(cap) : 0;
	dirents = STRACE_CAP_OSTRUCT(cap) && (cap & STRACE_CAP_DIRENTS) && ret >= 0;
	/* poll: fd, events and revents, nfds of them, in the array at exit */
	poll = STRACE_CAP_OSTRUCT(cap) && (cap & STRACE_CAP_POLL) && ret >= 0;
	/* readv, recvmsg: the iovec block; getsockopt: the length, then the value */
	iov = (cap & STRACE_CAP_IOV_EXIT) && whole && ret >= 0;
	olen = (cap & STRACE_CAP_OLEN) && whole && ret >= 0;
	oaddr = (cap & STRACE_CAP_OADDR) && whole && ret > 0;
	if (dirents)
		big = false;
	else if (iov || olen)
		big = ai < 6;
	else if (poll)
		big = whole ? ai < 6 : outbuf != 0;
	else if (whole)
		big = ai < 6 && (ret > 0 || (osize && ret == 0));
	else
		big = outbuf && (ret > 0 || (osize && ret == 0));
	/* a short output (a 1-byte read) goes in a short record */
	if (osize && (cap & STRACE_CAP_OARRAY))	/* epoll_wait: ret elements */
		n = ret > 0 ? ((__u64)ret * osize < STRACE_STR_MAX ? ret * osize : STRACE_STR_MAX) : 0;
	else if (osize)
		n = osize;
	else if (ret > 0)
		n = (__u64)ret < cfg_strsize ? (__u64)ret : cfg_strsize;
	else	/* nothing to copy; and no negative length for older verifiers */
		n = 0;
	tiny = big && !poll && !iov && !olen && !oaddr && n <= STRACE_CAP_TINY;
	/*
	 * Each record size has its own branch, reservation to submission: an
	 * older verifier does not relate a size chosen in one branch to a copy
	 * made in another (the flags spill to the stack and lose their value).
	 */
	if (tiny) {
		e = event_new(STRACE_EXIT_SMALL + STRACE_CAP_TINY, type, slot, id_tgid, now);
		if (!e)
			return 0;
		if (fill_exit(e, regs, t, slot, ret, whole, ai, &outbuf, false)) {
			bpf_ringbuf_discard(e, 0);
			return 0;
		}
		clamp_len(n, 32, 0x3f);	/* STRACE_CAP_TINY */
		e->cap_len = bpf_probe_read_user(e->cap, n, (void *)outbuf) ? -14 : (int)n;
		submit(e, STRACE_EXIT_SMALL + STRACE_CAP_TINY);
	} else if (big) {
		e = event_new(sizeof(*e), type, slot, id_tgid, now);
		if (!e)
			return 0;
		if (fill_exit(e, regs, t, slot, ret, whole, ai, &outbuf, false)) {
			bpf_ringbuf_discard(e, 0);
			return 0;
		}
		if (iov) {
			e->cap_arg = ai;
			e->cap_str = STRACE_CAP_IOV_BLOCK;
			e->cap_len = copy_iov(e->cap, outbuf, arg_at(e->args, ai + 1), ret,
					      cap & STRACE_CAP_IOV_MSG);
		} else if (oaddr && e->args[4]) {
			__u32 len = 0;

			_Static_assert(STRACE_ADDR_DATA == 128 && STRACE_ADDR_MAX == 110, "literals");
			clamp_len(n, 128, 0x1ff);	/* STRACE_ADDR_DATA */
			e->cap_len = bpf_probe_read_user(e->cap, n, (void *)outbuf) ? -14 : (int)n;
			e->cap_str = STRACE_CAP_ADDR;
			bpf_probe_read_user(&len, sizeof(len), (void *)e->args[5]);
			*(__u32 *)(e->cap + STRACE_ADDR_OFF) = len;
			n = len;
			clamp_len(n, 110, 0x7f);	/* STRACE_ADDR_MAX */
			if (bpf_probe_read_user(e->cap + STRACE_ADDR_OFF + 4, n, (void *)e->args[4]))
				*(__u32 *)(e->cap + STRACE_ADDR_OFF) = 0;
		} else if (olen) {
			__u32 len = 0;

			/* the length the call left, then that much of the value */
			bpf_probe_read_user(&len, sizeof(len), (void *)arg_at(e->args, ai + 1));
			n = len < osize ? len : osize;
			clamp_len(n, 252, 0x1ff);
			*(__u32 *)e->cap = len;
			e->cap_len = bpf_probe_read_user(e->cap + 4, n, (void *)outbuf) ? -14 : (int)n + 4;
		} else if (poll) {
			/* nfds is the next argument: whole calls only (nothing at entry) */
			n = whole ? arg_at(e->args, ai + 1) * 8 : 0;
			clamp_len(n, 256, 0x1ff);	/* STRACE_STR_MAX */
			e->cap_len = bpf_probe_read_user(e->cap, n, (void *)outbuf) ? -14 : (int)n;
		} else {
			clamp_len(n, 256, 0x1ff);	/* STRACE_STR_MAX */
			e->cap_len = bpf_probe_read_user(e->cap, n, (void *)outbuf) ? -14 : (int)n;
		}
		submit(e, sizeof(*e));
	} else {
		e = event_new(STRACE_EXIT_SMALL, type, slot, id_tgid, now);
		if (!e)
			return 0;
		if (fill_exit(e, regs, t, slot, ret, whole, ai, &outbuf, dirents)) {
			bpf_ringbuf_discard(e, 0);
			return 0;
		}
		submit(e, STRACE_EXIT_SMALL);
	}
	return 0;
}

/*
 * A traced thread leaving the CPU asleep inside a call (not preempted, not
 * runnable) is blocked in it: user space gets the call's entry now, so
 * the entry half of its line shows while it blocks, as strace's does. Once
 * a call; calls that return without sleeping cost nothing here. sched_switch
 * runs on the thread leaving: it is current.
 */
static __always_inline int handle_switch(bool btf, bool preempt, struct task_struct *prev)
{
	__u64 id_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id_tgid;
	struct strace_task *t;
	struct strace_enter *e;

	if (preempt || !tid)
		return 0;
	if (btf) {
		/* no creation: a thread without a slot is in no traced call */
		struct task_slot *ts = bpf_task_storage_get(&tasks, bpf_get_current_task_btf(), 0, 0);

		if (!ts || !ts->traced)
			return 0;
		t = &ts->t;
	} else {
		t = bpf_map_lookup_elem(&traced, &tid);
		if (!t)
			return 0;
	}
	if (t->slot >= STRACE_SLOTS || (t->flags & TASK_SHOWN) || is_noreturn(t->slot) ||
	    get_task_state(prev) == TASK_RUNNING)
		return 0;
	t->flags |= TASK_SHOWN;
	/*
	 * A string sys_enter could not read (its page not faulted in yet) is
	 * in memory now, the call has read it: it comes with the entry half
	 * printed now, as strace's shows it.
	 */
	if (t->flags & TASK_RETRY_STR) {
		send_entry_str(t, t->slot, id_tgid, EV_BLOCKED);
		return 0;
	}
	e = event_new(STRACE_ENTER_SMALL, EV_BLOCKED, t->slot, id_tgid, t->enter_ns);
	if (!e)
		return 0;
	/* an entry sent at sys_enter has its arguments: only a whole call's are read */
	if (!(t->flags & TASK_WHOLE) || !t->regs ||
	    read_args((struct pt_regs *)t->regs, t->slot >= STRACE_IA32, e->args))
		__builtin_memset(e->args, 0, sizeof(e->args));
	e->cap_len[0] = e->cap_len[1] = 0;
	e->cap_arg[0] = e->cap_arg[1] = 0xff;
	submit(e, STRACE_ENTER_SMALL);
	return 0;
}

/* -f: children and threads of traced threads are traced from birth. */
static __always_inline int handle_fork(bool btf, struct task_struct *parent,
				       struct task_struct *child)
{
	struct strace_task n = { .slot = STRACE_SLOT_NONE };
	struct task_slot *ts;
	__u32 ptid, ctid;

	if (!cfg_follow)
		return 0;
	ptid = BPF_CORE_READ(parent, pid);
	if (!bpf_map_lookup_elem(&traced, &ptid))
		return 0;
	ctid = BPF_CORE_READ(child, pid);
	if (bpf_map_update_elem(&traced, &ctid, &n, BPF_ANY)) {
		loss_inc(map_full);
		return 0;
	}
	if (btf) {	/* the child's slot, up to date (else its first call looks it up) */
		ts = bpf_task_storage_get(&tasks, child, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (ts) {
			ts->t = n;
			ts->traced = 1;
			ts->gen = set_gen;
		}
	}
	if (cfg_trace) {	/* user space counts the traced threads, as strace */
		__u64 id_tgid = (__u64)BPF_CORE_READ(child, tgid) << 32 | ctid;
		struct strace_fork *e = event_new(sizeof(*e), EV_FORK, STRACE_SLOT_NONE, id_tgid,
						  bpf_ktime_get_ns());

		if (!e)
			return 0;
		/* -y: a new process starts with a copy of its parent's fds */
		e->parent_tgid = BPF_CORE_READ(parent, tgid);
		e->files_shared = BPF_CORE_READ(parent, files) == BPF_CORE_READ(child, files);
		submit(e, sizeof(*e));
	}
	return 0;
}

#define SIGNAL_GROUP_EXIT 0x00000004	/* include/linux/sched/signal.h */

static __always_inline int handle_exit_task(struct task_struct *p)
{
	__u32 tid = BPF_CORE_READ(p, pid);
	struct strace_proc_exit *e;

	if (!bpf_map_lookup_elem(&traced, &tid))
		return 0;
	if (cfg_trace) {
		e = event_new(sizeof(*e), EV_PROC_EXIT, STRACE_SLOT_NONE,
			      (__u64)BPF_CORE_READ(p, tgid) << 32 | tid, bpf_ktime_get_ns());
		if (e) {
			/* wait(2)'s rule: the group's code once the group exits */
			e->group_exit = !!(BPF_CORE_READ(p, signal, flags) & SIGNAL_GROUP_EXIT);
			e->exit_code = e->group_exit ? BPF_CORE_READ(p, signal, group_exit_code) :
				       BPF_CORE_READ(p, exit_code);
			/* the end of a process: wake the reader now */
			bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
		}
	}
	bpf_map_delete_elem(&traced, &tid);
	return 0;
}

/* "--- SIGCHLD {...} ---": signals as they are delivered to traced threads. */
static __always_inline int handle_signal(int sig, struct kernel_siginfo *info)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct strace_signal *e;

	/*
	 * A fatal signal reaches here as a synthetic SIGKILL without siginfo
	 * (the group is already exiting); strace shows none: "+++ killed by"
	 * tells it.
	 */
	if (!cfg_trace || sig == 9 || !bpf_map_lookup_elem(&traced, &tid))
		return 0;
	e = event_new(sizeof(*e), EV_SIGNAL, STRACE_SLOT_NONE, bpf_get_current_pid_tgid(),
		      bpf_ktime_get_ns());
	if (!e)
		return 0;
	e->signo = sig;
	e->code = BPF_CORE_READ(info, si_code);
	e->pid = BPF_CORE_READ(info, _sifields._kill._pid);
	e->uid = BPF_CORE_READ(info, _sifields._kill._uid);
	e->status = BPF_CORE_READ(info, _sifields._sigchld._status);
	e->pad = 0;
	e->utime = BPF_CORE_READ(info, _sifields._sigchld._utime);
	e->stime = BPF_CORE_READ(info, _sifields._sigchld._stime);
	submit(e, sizeof(*e));
	return 0;
}

TP_PROG(signal_deliver, signal_deliver, int sig, struct kernel_siginfo *info)
{
	return handle_signal(sig, info);
}

TP_PROG(sys_enter, sys_enter, struct pt_regs *regs, long id)
{
	return handle_enter(tp_btf, regs, id);
}

TP_PROG(sys_exit, sys_exit, struct pt_regs *regs, long ret)
{
	return handle_exit(tp_btf, regs, ret);
}

TP_PROG(sched_switch, sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	return handle_switch(tp_btf, preempt, prev);
}

TP_PROG(sched_process_fork, sched_process_fork, struct task_struct *parent, struct task_struct *child)
{
	return handle_fork(tp_btf, parent, child);
}

TP_PROG(sched_process_exit, sched_process_exit, struct task_struct *p)
{
	return handle_exit_task(p);
}

char LICENSE[] SEC("license") = "GPL";
