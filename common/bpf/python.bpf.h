/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Python frames read at the event (abi/python_abi.h is the format,
 * common/syms/python.c the user side). For a process user space found to
 * be a CPython it can read (py_procs), the current thread's thread state
 * is looked up in the interpreter's list by native thread id (each
 * thread's own: the GIL holder is another thread whenever this one waits
 * or runs C code without the GIL), then its frames are walked from the
 * innermost, at most PY_MAX_FRAMES (and a frame of the C stack between
 * each two, 3.12+), each read bounded and checked:
 * the interpreter's memory is the traced process's and may be garbage.
 * Both loops are bpf_loop() (5.17), one verified body each.
 */
#ifndef BPFLITE_PYTHON_BPF_H
#define BPFLITE_PYTHON_BPF_H

#include "abi/python_abi.h"
#include "bpf/errno.bpf.h"
#include "bpf/loss.bpf.h"


/* Set by user space with --python */
const volatile bool cfg_python = false;

/* tgid -> where its interpreter is; sized by user space. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct py_proc);
} py_procs SEC(".maps");

/* Python stacks by the hash of their frames; sized by user space. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct py_stack);
} py_stacks SEC(".maps");

/* The stack being built (536 bytes: more than BPF's stack). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct py_stack);
} py_scratch SEC(".maps");

/* Read at exit by user space (-v) */
struct py_counts py_counts = {};

struct py_walk {
	struct py_offsets o;
	__u64 tstate;		/* the thread state looked at, then found */
	__u64 frame;		/* the next frame to record */
	__u64 tid;
	bool found, failed;
};

static __always_inline long py_cnt(__u64 *c)
{
	return __sync_fetch_and_add(c, 1);
}

/* After an exec the process is another program; at its end the tgid is free. */
static __always_inline void py_exec(struct task_struct *p)
{
	__u32 tgid = BPF_CORE_READ(p, tgid);

	bpf_map_delete_elem(&py_procs, &tgid);
}

static __always_inline void py_exit(struct task_struct *p)
{
	__u32 tgid = BPF_CORE_READ(p, tgid);

	if (BPF_CORE_READ(p, signal, live.counter) == 0)
		bpf_map_delete_elem(&py_procs, &tgid);
}

/* One thread state of the list: is it the current thread's? */
static long py_thread_step(__u32 i, void *vctx)
{
	struct py_walk *w = vctx;
	__u64 tid = 0;

	if (!w->tstate)
		return 1;
	if (bpf_probe_read_user(&tid, sizeof(tid), (void *)(w->tstate + w->o.tstate_native_tid))) {
		w->failed = true;
		return 1;
	}
	if (tid == w->tid) {
		w->found = true;
		return 1;
	}
	if (bpf_probe_read_user(&w->tstate, sizeof(w->tstate), (void *)(w->tstate + w->o.tstate_next))) {
		w->failed = true;
		return 1;
	}
	return 0;
}

/*
 * One frame: its code object and instruction offset into the scratch's
 * slot s->n. 3.12+'s frames of the C stack are no Python frames: each is
 * the entry frame of an eval call (only _PyEval_EvalFrameDefault makes
 * them) and flags the frame recorded before it as its run's first
 * (3.11's is_entry).
 */
static long py_frame_step(__u32 i, void *vctx)
{
	struct py_walk *w = vctx;
	struct py_stack *s;
	__u64 code = 0, instr = 0, prev = 0, lasti = PY_LASTI_NONE, units;
	__u32 zero = 0, idx;
	__u8 entry = 0, owner = 0;

	s = bpf_map_lookup_elem(&py_scratch, &zero);
	if (!s || !w->frame)
		return 1;
	if (bpf_probe_read_user(&code, sizeof(code), (void *)(w->frame + w->o.frame_code)) ||
	    bpf_probe_read_user(&prev, sizeof(prev), (void *)(w->frame + w->o.frame_previous)) ||
	    (w->o.frame_owner != PY_OFF_NONE &&
	     bpf_probe_read_user(&owner, sizeof(owner), (void *)(w->frame + w->o.frame_owner)))) {
		s->flags |= PY_STACK_ERROR;
		return 1;
	}
	if (w->o.frame_owner != PY_OFF_NONE && owner == PY_OWNED_BY_CSTACK) {
		idx = s->n - 1;
		asm volatile("" : "+r"(idx));
		if (s->n && !(s->frames[idx & (PY_MAX_FRAMES - 1)] & PY_ENTRY)) {
			s->frames[idx & (PY_MAX_FRAMES - 1)] |= PY_ENTRY;
			s->hash = (s->hash ^ PY_ENTRY) * 0x100000001b3ull;
		}
		w->frame = prev;
		return 0;
	}
	/*
	 * The count lives in the map value, not in w on the caller's stack:
	 * before 6.7 the verifier checks a bpf_loop() callback once, with
	 * w's values of the first call (n == 0), and dropped this branch as
	 * dead code (6.1: a 100-deep stack was never cut, its n passed 64).
	 */
	if (s->n >= PY_MAX_FRAMES) {
		/* frames remain: the stack is cut here, and says so */
		s->flags |= PY_STACK_TRUNCATED;
		return 1;
	}
	if (w->o.flags & PY_O_FRAME_OBJECTS) {
		/* 3.10: f_lasti, -1 before the first instruction */
		__s32 fl = -1;

		if (bpf_probe_read_user(&fl, sizeof(fl), (void *)(w->frame + w->o.frame_prev_instr)) ||
		    !code || code > PY_CODE_MASK) {
			s->flags |= PY_STACK_ERROR;
			return 1;
		}
		if (fl >= 0 && fl < PY_LASTI_NONE)
			lasti = fl;
		entry = 1;
		goto record;
	}
	if (bpf_probe_read_user(&instr, sizeof(instr), (void *)(w->frame + w->o.frame_prev_instr)) ||
	    (w->o.frame_is_entry != PY_OFF_NONE &&
	     bpf_probe_read_user(&entry, sizeof(entry), (void *)(w->frame + w->o.frame_is_entry))) ||
	    !code || code > PY_CODE_MASK) {
		s->flags |= PY_STACK_ERROR;
		return 1;
	}
	/* the instruction's code unit (2 bytes each) in the code object */
	units = code + w->o.code_units;
	if (instr >= units && (instr - units) / 2 < PY_LASTI_NONE)
		lasti = (instr - units) / 2;
record:
	idx = s->n;
	asm volatile("" : "+r"(idx));	/* the compiler would drop the mask */
	s->frames[idx & (PY_MAX_FRAMES - 1)] = PY_FRAME(code, lasti, entry);
	s->hash = (s->hash ^ PY_FRAME(code, lasti, entry)) * 0x100000001b3ull;
	s->n = idx + 1;
	w->frame = prev;
	return 0;
}

/*
 * The current thread's Python stack into py_stacks: its id (>= 0);
 * -EFAULT when there is none to take (not a Python process or thread, no
 * frame running: not a loss); another -errno is a loss.
 */
static __always_inline long py_user_stack(__u32 tgid, __u32 tid)
{
	struct py_walk w = { .tid = tid };
	struct py_stack *s, *old;
	struct py_proc *p;
	__u64 interp = 0, cframe = 0, fp;
	__u32 zero = 0, id;

	p = bpf_map_lookup_elem(&py_procs, &tgid);
	if (!p)
		return -EFAULT;
	py_cnt(&py_counts.samples);
	w.o = p->o;
	if (w.o.flags & PY_O_PTHREAD_ID) {
		/* 3.10 knows a thread by pthread_self(): glibc's TCB, the fs base */
#ifdef __TARGET_ARCH_x86
		struct task_struct *t = (struct task_struct *)bpf_get_current_task();

		w.tid = BPF_CORE_READ(t, thread.fsbase);
#else
		goto no_thread;
#endif
	}
	if (bpf_probe_read_user(&interp, sizeof(interp),
				(void *)(p->runtime + w.o.runtime_interp_head)) || !interp ||
	    bpf_probe_read_user(&w.tstate, sizeof(w.tstate),
				(void *)(interp + w.o.interp_threads_head)))
		goto no_thread;
	bpf_loop(PY_MAX_THREADS, py_thread_step, &w, 0);
	if (!w.found)
		goto no_thread;
	/* 3.11, 3.12: tstate->cframe->current_frame; 3.13: tstate->current_frame */
	fp = w.tstate + w.o.tstate_frame;
	if (w.o.cframe_current != PY_OFF_NONE) {
		if (bpf_probe_read_user(&cframe, sizeof(cframe), (void *)fp) || !cframe)
			fp = 0;
		else
			fp = cframe + w.o.cframe_current;
	}
	if (!fp || bpf_probe_read_user(&w.frame, sizeof(w.frame), (void *)fp) || !w.frame) {
		py_cnt(&py_counts.idle);
		return -EFAULT;
	}
	s = bpf_map_lookup_elem(&py_scratch, &zero);
	if (!s)
		return -ENOMEM;
	/* per process: its code objects are named from its memory */
	s->hash = (0xcbf29ce484222325ull ^ tgid) * 0x100000001b3ull;
	s->n = 0;
	s->flags = 0;
	s->tgid = tgid;
	s->pad = 0;
	/* up to PY_MAX_FRAMES, each maybe after a frame of the C stack, and one past */
	bpf_loop(2 * PY_MAX_FRAMES + 1, py_frame_step, &w, 0);
	if (w.frame && !s->flags)
		s->flags |= PY_STACK_TRUNCATED;
	if (!s->n) {
		/* only frames of the C stack: between two Python calls */
		py_cnt(s->flags ? &py_counts.errors : &py_counts.idle);
		return -EFAULT;
	}
	if (s->flags & PY_STACK_TRUNCATED)
		py_cnt(&py_counts.truncated);
	if (s->flags & PY_STACK_ERROR)
		py_cnt(&py_counts.errors);
	s->hash = (s->hash ^ s->flags) * 0x100000001b3ull;
	/* the frames past n are left from earlier stacks: the hash does not cover them */
	id = (__u32)(s->hash ^ (s->hash >> 32)) & 0x7fffffff;
	py_cnt(&py_counts.stacks);
	old = bpf_map_lookup_elem(&py_stacks, &id);
	if (old) {
		if (old->hash == s->hash)
			return id;
		py_cnt(&py_counts.collisions);
		return -EEXIST;
	}
	if (bpf_map_update_elem(&py_stacks, &id, s, BPF_NOEXIST)) {
		old = bpf_map_lookup_elem(&py_stacks, &id);
		if (old && old->hash == s->hash)
			return id;	/* another CPU stored it meanwhile */
		py_cnt(&py_counts.dropped);
		return -ENOMEM;
	}
	return id;
no_thread:
	py_cnt(&py_counts.no_thread);
	return -EFAULT;
}

/*
 * With --python: the current thread's Python stack (py_user_stack()), a
 * failure other than -EFAULT (nothing to take) counted as a lost stack;
 * without: -EFAULT.
 */
static __always_inline __s32 py_take_stack(__u32 tgid, __u32 tid)
{
	long id;

	if (!cfg_python)
		return -EFAULT;
	id = py_user_stack(tgid, tid);
	if (id < 0 && id != -EFAULT)
		loss_inc(stacks);
	return id;
}

#endif
