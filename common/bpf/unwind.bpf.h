/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User stacks unwound in BPF from tables built out of each file's
 * .eh_frame (common/syms/unwind.c fills the maps; abi/unwind_abi.h is the
 * format), for code built without frame pointers. A tool includes this
 * once and calls unw_user_stack() where it would call
 * bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK), and unw_kernel_stack()
 * for the kernel stack: the result is an id in unw_stacks (or a negative
 * errno), the frames stored under it.
 *
 * Per frame: the mapping holding the pc (the process's sorted list), the
 * row holding it (binary search in the file's run of unw_rows), the CFA
 * from rsp or rbp, the return address at CFA - 8 and rbp where the row
 * says it was saved. A mapping without a table (JIT code, a file whose
 * CFI we could not read) and a row that BPF cannot compute take one
 * frame-pointer step instead. The frame loop is bpf_loop() (5.17+): one
 * verified body whatever the depth, where an unrolled 127-frame loop
 * with two binary searches inside would not pass 6.1's verifier.
 */
#ifndef BPFLITE_UNWIND_BPF_H
#define BPFLITE_UNWIND_BPF_H

#include "abi/unwind_abi.h"
#include "bpf/errno.bpf.h"


/* Rows of every table; sized by user space before load. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct unw_row);
} unw_rows SEC(".maps");

/* Every process's mappings; sized by user space before load. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct unw_map);
} unw_maps SEC(".maps");

/* tgid -> its mappings. Preallocated: perf_event programs need it. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct unw_proc);
} unw_procs SEC(".maps");

/*
 * Processes whose walk met code mapped after their list was built (a
 * library dlopen()ed since): user space builds their list again and then
 * deletes the entry. While it is there, nothing more is asked.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, UNW_REMAP_ENTRIES);
	__type(key, __u32);	/* tgid */
	__type(value, __u8);
} unw_remap SEC(".maps");

/* Our own stack storage: (hash of the frames, part) -> frames (unwind_abi.h). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, struct unw_part_key);
	__type(value, struct unw_part);
} unw_stacks SEC(".maps");

/*
 * The stack being built, as its parts; flat holds a kernel stack as the
 * helper writes it. Frame i of a walk is word (i / 16) * 18 + i % 16.
 */
struct unw_scratch {
	struct unw_part p[UNW_MAX_PARTS];	/* 144 words */
	__u64 flat[128];			/* the masks below stay inside */
	/*
	 * In the map, not in the walk's state: the verifier knows nothing of
	 * a map's values, so testing them after the walk makes no value of
	 * the steps precise, and their states still converge.
	 */
	__u64 sure;		/* the frame's pc is the leaf, or a row found it: no guess */
	__u64 unlisted;		/* a sure pc in no mapping of the list */
};

#define UNW_PART_WORDS	(sizeof(struct unw_part) / 8)
_Static_assert(sizeof(struct unw_scratch) / 8 > 255, "a slot masked by 255 stays in the scratch");
#define UNW_SLOT(i)	((((i) >> 4) * UNW_PART_WORDS + ((i) & 15)) & 255)

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct unw_scratch);
} unw_scratch SEC(".maps");

/*
 * After an exec the process's mappings are another program's: the old
 * ones would unwind its stacks by the wrong tables. Without an entry BPF
 * walks frame pointers (counted as before their tables) until user space,
 * told by procsnap_note(), has built the new ones.
 */
static __always_inline void unw_exec(struct task_struct *p)
{
	__u32 tgid = BPF_CORE_READ(p, tgid);

	bpf_map_delete_elem(&unw_procs, &tgid);
}

/*
 * At a process's end (its last thread's exit) its list goes: the map
 * holds the live processes' lists, not those of every process a churn
 * left behind (user space takes the slot back when it needs one).
 */
static __always_inline void unw_exit(struct task_struct *p)
{
	__u32 tgid = BPF_CORE_READ(p, tgid);

	if (BPF_CORE_READ(p, signal, live.counter) == 0)
		bpf_map_delete_elem(&unw_procs, &tgid);
}

/* Read at exit by user space (unwind_abi.h) */
struct unw_counts unw_counts = {};

struct unw_walk {
	__u64 ip, sp, bp;
	__u64 hash;
	__u32 nr, slot;		/* the process's mappings (unw_proc) */
	__u32 rows;		/* unw_rows' size */
};


/* Set by user space: walk by the tables, of unw_rows' size */
const volatile bool cfg_unwind_tables = false;
const volatile __u32 cfg_unw_rows = 1;

static __always_inline long unw_cnt(__u64 *c)
{
	return __sync_fetch_and_add(c, 1);
}

/*
 * The binary searches, one halving per bpf_loop() step: the verifier
 * checks a halving once, whatever the table's size, where an unrolled
 * search (21 halvings for a 1 Mi-row table) inside the frame loop made
 * 6.18's verifier explore past its million instructions. The search's
 * state lives in the caller's frame, so its values stay imprecise and the
 * callback's states converge at once.
 */
struct unw_search {
	__u64 pc;		/* what is looked for (file vaddr, or address) */
	__u32 base;		/* first key of the run searched */
	__u32 lo, hi;		/* the answer is in [lo, hi) from base */
	bool failed;		/* a key out of the map */
};

static long unw_map_half(__u32 i, void *vctx)
{
	struct unw_search *s = vctx;
	struct unw_map *m;
	__u32 mid, k;

	if (s->hi - s->lo <= 1)
		return 1;
	mid = s->lo + (s->hi - s->lo) / 2;
	k = s->base + mid;
	m = bpf_map_lookup_elem(&unw_maps, &k);
	if (!m) {
		s->failed = true;
		return 1;
	}
	if (m->start <= s->pc)
		s->lo = mid;
	else
		s->hi = mid;
	return 0;
}

static long unw_row_half(__u32 i, void *vctx)
{
	struct unw_search *s = vctx;
	struct unw_row *r;
	__u32 mid, k;

	if (s->hi - s->lo <= 1)
		return 1;
	mid = s->lo + (s->hi - s->lo) / 2;
	k = s->base + mid;
	r = bpf_map_lookup_elem(&unw_rows, &k);
	if (!r) {
		s->failed = true;
		return 1;
	}
	if (r->pc <= s->pc)
		s->lo = mid;
	else
		s->hi = mid;
	return 0;
}

/* The mapping that holds pc: the last one starting at or below it. */
static __always_inline struct unw_map *unw_find_map(__u32 slot, __u32 nr, __u64 pc)
{
	struct unw_search s = { .pc = pc, .base = slot * UNW_MAX_MAPS, .hi = nr };
	struct unw_map *m;
	__u32 k;

	if (!nr || nr > UNW_MAX_MAPS)
		return NULL;
	/* log2(UNW_MAX_MAPS) + 1 halvings */
	bpf_loop(7, unw_map_half, &s, 0);
	if (s.failed)
		return NULL;
	k = s.base + s.lo;
	m = bpf_map_lookup_elem(&unw_maps, &k);
	if (!m || pc < m->start || pc >= m->end)
		return NULL;
	return m;
}

/* The row of a table that holds file vaddr pc. */
static __always_inline struct unw_row *unw_find_row(__u32 base, __u32 count, __u64 pc)
{
	struct unw_search s = { .pc = pc, .base = base, .hi = count };
	struct unw_row *r;
	__u32 k;

	if (!count || pc > 0xffffffffull)
		return NULL;
	/* 21 halvings cover UNW_MAX_ROWS_PER_FILE (2^20) rows */
	bpf_loop(21, unw_row_half, &s, 0);
	if (s.failed)
		return NULL;
	k = s.base + s.lo;
	r = bpf_map_lookup_elem(&unw_rows, &k);
	if (!r || r->pc > pc)
		return NULL;
	return r;
}

/*
 * One frame: record ip, find the caller's ip, sp, bp. 1 stops the loop.
 * Frame i goes to slot i, bpf_loop()'s own index: a count kept in the
 * walk's state and used as an index would be a precise value, and the
 * verifier (6.7+ verifies callbacks as called any number of times) would
 * then check the callback once per value of it.
 */
static long unw_step(__u32 i, void *vctx)
{
	struct unw_walk *w = vctx;
	struct unw_scratch *s;
	struct unw_map *m = NULL;
	struct unw_row *r = NULL;
	__u64 cfa, ra, bp, pc, *slot;
	__u32 zero = 0, idx;
	__u8 kind = UNW_NONE;

	s = bpf_map_lookup_elem(&unw_scratch, &zero);
	if (!s || i >= UNW_MAX_FRAMES)
		return 1;
	/*
	 * Slots through a mask, where they are written: the compiler may test
	 * the bound on a copy of i, which 6.1's verifier does not carry over.
	 * The scratch is 272 words: the mask (255) cannot leave the value.
	 */
	slot = (__u64 *)s;
	idx = i;
	asm volatile("" : "+r"(idx));	/* the compiler would drop the mask */
	if (i == UNW_MAX_FRAMES - 1) {
		/* frames remain below: say so in place of the last one */
		slot[UNW_SLOT(idx)] = UNW_MARK_TRUNCATED;
		w->hash = (w->hash ^ UNW_MARK_TRUNCATED) * 0x100000001b3ull;
		unw_cnt(&unw_counts.truncated);
		return 1;
	}
	slot[UNW_SLOT(idx)] = w->ip;
	w->hash = (w->hash ^ w->ip) * 0x100000001b3ull;

	/* a return address points after its call: look up the call itself */
	pc = i ? w->ip - 1 : w->ip;
	if (w->nr) {
		m = unw_find_map(w->slot, w->nr, pc);
		/* mapped since the list was built (a pc by frame pointers may be junk) */
		if (!m)
			s->unlisted |= s->sure;
	}
	s->sure = 0;
	if (m && m->row_base != UNW_NO_TABLE) {
		__u32 base = m->row_base, count = m->row_count;

		if (base < w->rows && count <= w->rows - base)
			r = unw_find_row(base, count, pc - m->adj);
		if (r)
			kind = r->kind;
	}

	switch (kind) {
	case UNW_END:
		return 1;
	case UNW_CFA_RSP:
		cfa = w->sp + (__s64)r->cfa_off8 * 8;
		break;
	case UNW_CFA_RBP:
		cfa = w->bp + (__s64)r->cfa_off8 * 8;
		break;
	case UNW_PLT:
		cfa = w->sp + 8 + ((w->ip & 15) >= 11 ? 8 : 0);
		break;
	default:
		/* frame pointers: [rbp] is the caller's rbp, [rbp + 8] the return */
		/*
		 * The outermost frame of fp code zeroes rbp (_start, clone): an
		 * end, in a file's code. A pc in no mapping of the list (mapped
		 * since) or in code of no file is no thread's root: cut short.
		 */
		if (!w->bp) {
			if (w->nr && (!m || (m->row_base == UNW_NO_TABLE && m->row_count == UNW_ANON)))
				goto fail;
			return 1;
		}
		if (w->bp < w->sp)
			goto fail;
		cfa = w->bp + 16;
		if (bpf_probe_read_user(&bp, sizeof(bp), (void *)(w->bp)))
			goto fail;
		if (bpf_probe_read_user(&ra, sizeof(ra), (void *)(cfa - 8)))
			goto fail;
		unw_cnt(&unw_counts.fp_frames);
		goto next;
	}
	if (bpf_probe_read_user(&ra, sizeof(ra), (void *)(cfa - 8)))
		goto fail;
	bp = w->bp;
	if (r && r->rbp_off8 &&
	    bpf_probe_read_user(&bp, sizeof(bp), (void *)(cfa + (__s64)r->rbp_off8 * 8)))
		goto fail;
	unw_cnt(&unw_counts.dwarf_frames);
	s->sure = 1;
next:
	if (!ra)
		return 1;
	/* the stack grows down: a caller's frame is above, or the walk loops */
	if (cfa <= w->sp)
		goto fail;
	w->ip = ra;
	w->sp = cfa;
	w->bp = bp;
	return 0;
fail:
	/* the walk stopped before the outermost frame: say so in-line */
	if (i + 1 < UNW_MAX_FRAMES) {
		slot[UNW_SLOT(idx + 1)] = UNW_MARK_ERROR;
		w->hash = (w->hash ^ UNW_MARK_ERROR) * 0x100000001b3ull;
	}
	unw_cnt(&unw_counts.errors);
	return 1;
}

/*
 * The scratch stack s, of hash h, into unw_stacks: its id, or -errno. The
 * parts after the first go in before it, so a stack whose part 0 is found
 * is whole.
 */
static __always_inline long unw_store(struct unw_scratch *s, __u64 h)
{
	struct unw_part_key k = { .id = (__u32)(h ^ (h >> 32)) & 0x7fffffff };
	struct unw_part *old;
	__u32 np = 1;
	long err;

	/* non-negative, as a stack id: the caller's key holds it as __s32 */
	old = bpf_map_lookup_elem(&unw_stacks, &k);
	if (old) {
		if (old->hash != h) {
			unw_cnt(&unw_counts.collisions);
			return -EEXIST;
		}
		return k.id;
	}
	/* frames are contiguous from the first: a part is used if its first is */
#pragma unroll
	for (int p = 1; p < UNW_MAX_PARTS; p++)
		if (np == p && s->p[p].ips[0])
			np++;
#pragma unroll
	for (int p = 0; p < UNW_MAX_PARTS; p++) {
		s->p[p].hash = h;
		s->p[p].nparts = np;
		s->p[p].pad = 0;
	}
#pragma unroll
	for (int p = UNW_MAX_PARTS - 1; p > 0; p--) {
		if (p >= np)
			continue;
		k.part = p;
		if (bpf_map_update_elem(&unw_stacks, &k, &s->p[p], BPF_ANY))
			goto undo;
	}
	k.part = 0;
	err = bpf_map_update_elem(&unw_stacks, &k, &s->p[0], BPF_NOEXIST);
	if (!err) {
		__sync_fetch_and_add(&unw_counts.stored, np);
		return k.id;
	}
	old = bpf_map_lookup_elem(&unw_stacks, &k);
	if (old && old->hash == h)
		return k.id;	/* another CPU stored it meanwhile: its parts are ours */
undo:
	/* full: the parts put in go again */
#pragma unroll
	for (int p = 1; p < UNW_MAX_PARTS; p++) {
		if (p < np) {
			k.part = p;
			bpf_map_delete_elem(&unw_stacks, &k);
		}
	}
	unw_cnt(&unw_counts.dropped);
	return -ENOMEM;
}

/*
 * Walk the current task's user stack into unw_scratch (its frames in
 * its parts, frame i at UNW_SLOT(i), 0 after the last; their hash in w).
 * The number of slots used (marks included), or -errno. Only for a user
 * task: the caller checks it is not a kernel thread.
 */
static __always_inline long unw_walk_current(__u32 tgid, struct unw_walk *w)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	struct unw_scratch *s;
	struct unw_proc *proc;
	__u32 zero = 0;
	long n;

	s = bpf_map_lookup_elem(&unw_scratch, &zero);
	if (!s)
		return -ENOENT;
	/* the rest of each part: unw_store() */
#pragma unroll
	for (int p = 0; p < UNW_MAX_PARTS; p++)
		__builtin_memset(s->p[p].ips, 0, sizeof(s->p[p].ips));
	w->hash = 0xcbf29ce484222325ull;
	w->nr = w->slot = 0;
	w->ip = BPF_CORE_READ(regs, ip);
	w->sp = BPF_CORE_READ(regs, sp);
	w->bp = BPF_CORE_READ(regs, bp);
	w->rows = cfg_unw_rows;
	s->sure = 1;		/* the leaf */
	s->unlisted = 0;
	proc = bpf_map_lookup_elem(&unw_procs, &tgid);
	if (proc) {
		w->nr = proc->nr;
		w->slot = proc->slot;
	} else {
		/* not built yet (user space builds it when procsnap names it) */
		unw_cnt(&unw_counts.no_proc);
	}
	unw_cnt(&unw_counts.stacks);
	if (!w->ip)
		return -ENOENT;
	n = bpf_loop(UNW_MAX_FRAMES, unw_step, w, 0);
	if (s->unlisted) {
		__u8 one = 1;

		/* the list is out of date: ask user space for a new one, once */
		unw_cnt(&unw_counts.unlisted);
		bpf_map_update_elem(&unw_remap, &tgid, &one, BPF_NOEXIST);
	}
	/* a step that failed put its mark in the slot after its frame */
	if (n > 0 && n < UNW_MAX_FRAMES) {
		__u64 idx = n;

		/* the mask in the register: 6.1's verifier loses n's bounds in a copy */
		asm volatile("%0 &= 127" : "+r"(idx));
		if (((__u64 *)s)[UNW_SLOT(idx)])
			n++;
	}
	return n;
}

/*
 * The current task's user stack into unw_stacks: its key (>= 0), or
 * -errno (a loss for the caller to count). Only for a user task: the
 * caller checks it is not a kernel thread.
 */
static __always_inline long unw_user_stack(__u32 tgid)
{
	struct unw_walk w = {};
	struct unw_scratch *s;
	__u32 zero = 0;
	long err;

	err = unw_walk_current(tgid, &w);
	if (err < 0)
		return err;
	s = bpf_map_lookup_elem(&unw_scratch, &zero);
	if (!s)
		return -ENOENT;
	return unw_store(s, w.hash);
}

/*
 * The kernel stack at ctx into unw_stacks, as bpf_get_stackid() would put
 * it in a stack map: its key (>= 0) or -errno. A hash map of our own
 * takes as many stacks as it has entries (a stack map loses a stack to
 * any other of the same bucket), so it can be sized to what is used.
 */
static __always_inline long unw_kernel_stack(void *ctx)
{
	__u64 h = 0x84222325cbf29ce4ull;	/* apart from user stacks' */
	struct unw_scratch *s;
	__u32 zero = 0;
	long n;

	s = bpf_map_lookup_elem(&unw_scratch, &zero);
	if (!s)
		return -ENOENT;
	/* the helper zeroes what it does not fill */
	n = bpf_get_stack(ctx, s->flat, UNW_MAX_FRAMES * 8, 0);
	if (n < 0)
		return n;
	if (!n)
		return -EFAULT;
	s->flat[UNW_MAX_FRAMES] = 0;
	for (int i = 0; i < UNW_MAX_FRAMES; i++)
		h = (h ^ s->flat[i]) * 0x100000001b3ull;
#pragma unroll
	for (int p = 0; p < UNW_MAX_PARTS; p++)
		__builtin_memcpy(s->p[p].ips, &s->flat[p * UNW_PART_FRAMES], sizeof(s->p[p].ips));
	return unw_store(s, h);
}

#endif
