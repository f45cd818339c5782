/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Python frames as BPF records them (common/bpf/python.bpf.h) and user
 * space reads and names them (common/syms/python.c). __u32/__u64 only.
 *
 * At a sample, BPF finds the sampled thread's PyThreadState in the
 * interpreter's list by native thread id, walks its frames from the
 * innermost and stores, per frame, the code object's address and the
 * instruction offset in a stack of its own ("py_stacks", keyed by a hash
 * of the frames, as the unwinder's storage). Where the interpreter keeps
 * these is per minor version: user space passes the offsets per process
 * ("py_procs", keyed by tgid) with the address of _PyRuntime.
 */
#ifndef BPFLITE_PYTHON_ABI_H
#define BPFLITE_PYTHON_ABI_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Frames per Python stack; deeper stacks are cut and marked (PY_STACK_TRUNCATED). */
#define PY_MAX_FRAMES		64
/* Thread states looked at to find the sampled thread's. */
#define PY_MAX_THREADS		64
/* Processes with Python frames at once (py_procs). */
#define PY_PROCS_DEFAULT	256
/* Python stacks held (py_stacks): 536 bytes each. */
#define PY_STACKS_DEFAULT	1024

/* An offset a version does not have. */
#define PY_OFF_NONE		0xffffffffu

/*
 * Byte offsets in the interpreter's structures, per minor version
 * (python.c): 3.10 chains PyFrameObjects (tstate->frame, f_back, f_code,
 * f_lasti), each run by a _PyEval_EvalFrameDefault call of its own, and
 * knows a thread by pthread_self() only (PY_O_PTHREAD_ID); 3.11/3.12
 * keep a thread's innermost frame in its _PyCFrame, 3.13 in the thread
 * state itself; 3.12+ put an entry frame
 * of the C stack (owner FRAME_OWNED_BY_CSTACK) between the runs of two
 * _PyEval_EvalFrameDefault calls where 3.11 flags the run's first frame
 * with is_entry.
 */
struct py_offsets {
	__u32 runtime_interp_head;	/* _PyRuntimeState.interpreters.head */
	__u32 interp_threads_head;	/* PyInterpreterState.threads.head */
	__u32 tstate_next;		/* PyThreadState.next */
	__u32 tstate_interp;		/* PyThreadState.interp */
	__u32 tstate_native_tid;	/* PyThreadState.native_thread_id (3.10: .thread_id) */
	__u32 tstate_frame;		/* .cframe (3.11, 3.12), .current_frame (3.13), .frame (3.10) */
	__u32 cframe_current;		/* _PyCFrame.current_frame; PY_OFF_NONE: tstate_frame is the frame */
	__u32 frame_code;		/* _PyInterpreterFrame.f_code (.f_executable 3.13) */
	__u32 frame_previous;		/* _PyInterpreterFrame.previous (3.10: f_back) */
	__u32 frame_prev_instr;		/* .prev_instr (.instr_ptr 3.13): the current code unit;
					 * 3.10: f_lasti, an int in code units */
	__u32 frame_is_entry;		/* .is_entry (3.11), else PY_OFF_NONE */
	__u32 frame_owner;		/* .owner (3.12+: entry frames skipped), else PY_OFF_NONE */
	__u32 code_units;		/* PyCodeObject.co_code_adaptive: the first code unit */
	__u32 flags;			/* PY_O_* */
};

/*
 * 3.10: the thread state's id is pthread_self(), on x86_64 the thread's
 * fs base (glibc's TCB); its frames are PyFrameObjects, f_lasti an int,
 * every frame the entry frame of its own eval call.
 */
#define PY_O_PTHREAD_ID		1u
#define PY_O_FRAME_OBJECTS	2u

/* _PyInterpreterFrame.owner of a frame on the C stack (3.12+): no Python frame */
#define PY_OWNED_BY_CSTACK	3

struct py_proc {
	__u64 runtime;			/* address of _PyRuntime in the process */
	struct py_offsets o;
};

/*
 * One frame in a word: the code object's address (user addresses fit in
 * 47 bits), the instruction offset in code units (PY_LASTI_NONE when it
 * is out of range) and whether the frame is the entry frame of one
 * _PyEval_EvalFrameDefault call (its run of frames ends there).
 */
#define PY_CODE_MASK		((1ull << 48) - 1)
#define PY_LASTI_SHIFT		48
#define PY_LASTI_NONE		0x3fffu
#define PY_ENTRY		(1ull << 62)
#define PY_FRAME(code, lasti, entry)					\
	(((code) & PY_CODE_MASK) | ((__u64)(lasti) << PY_LASTI_SHIFT) |	\
	 ((entry) ? PY_ENTRY : 0))

/* py_stack.flags */
#define PY_STACK_TRUNCATED	1u	/* more than PY_MAX_FRAMES frames */
#define PY_STACK_ERROR		2u	/* a read failed before the outermost frame */

struct py_stack {
	__u64 hash;			/* of the process and frames: a collision is seen */
	__u32 n;			/* frames, innermost first */
	__u32 flags;
	__u32 tgid;			/* whose code objects these are */
	__u32 pad;
	__u64 frames[PY_MAX_FRAMES];
};

/* The walk's counters, in the BPF object's .bss. */
struct py_counts {
	__u64 samples;		/* samples of a process in py_procs */
	__u64 no_thread;	/* its thread state not found (not a Python thread) */
	__u64 idle;		/* a thread state without a frame */
	__u64 stacks;		/* Python stacks recorded */
	__u64 truncated;	/* cut at PY_MAX_FRAMES */
	__u64 errors;		/* a read failed mid-walk */
	__u64 collisions;	/* two stacks, one key: the second is lost */
	__u64 dropped;		/* storage full */
};

#endif
