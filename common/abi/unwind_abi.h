/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space unwinding tables as BPF reads them (common/bpf/unwind.bpf.h
 * walks them; common/syms/unwind.c fills them with what
 * common/syms/unwind_tables.c builds). __u32/__u64 only.
 *
 * A file's table is a run of rows in the one array "unw_rows", sorted by
 * pc (the file's own virtual address, what its .eh_frame speaks of); a row
 * holds from its pc to the next row's. A process's executable mappings are
 * one sorted list, UNW_MAX_MAPS entries of the array "unw_maps" from
 * slot * UNW_MAX_MAPS, each naming its table's run of rows; "unw_procs"
 * gives a tgid's slot and count. Arrays indexed by a key, not one map
 * value indexed by a variable: the verifier then need not track the
 * binary searches' indexes, whose paths it would explore one by one.
 */
#ifndef BPFLITE_UNWIND_ABI_H
#define BPFLITE_UNWIND_ABI_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* How the caller's frame is found from a row (unw_row.kind). */
enum unw_kind {
	UNW_CFA_RSP = 0,	/* CFA = rsp + 8 * cfa_off8 */
	UNW_CFA_RBP = 1,	/* CFA = rbp + 8 * cfa_off8 */
	UNW_PLT = 2,		/* x86_64 lazy PLT stub: rsp + 8, + 8 past its push */
	UNW_END = 3,		/* return address undefined: the outermost frame */
	UNW_FP = 4,		/* the CFI says what BPF cannot compute: frame pointer */
	UNW_NONE = 5,		/* no CFI covers this pc: frame pointer */
};

/*
 * 8 bytes (a BPF array rounds values up to 8): libc's ~28,000 rows take
 * ~220 KiB. Offsets are in words: x86-64 code moves rsp and saves
 * registers 8 bytes at a time; a rule that does not fit is UNW_FP.
 */
struct unw_row {
	__u32 pc;		/* file vaddr; files above 4 GiB get no table */
	__s16 cfa_off8;		/* CFA = rsp|rbp + 8 * cfa_off8 (+-256 KiB) */
	__s8 rbp_off8;		/* caller's rbp at CFA + 8 * rbp_off8; 0: unchanged */
	__u8 kind;		/* enum unw_kind */
};

/* Executable mappings per process: more are left to frame pointers. */
#define UNW_MAX_MAPS		64
/* Processes that may wait at once for a new list of mappings (unw_remap). */
#define UNW_REMAP_ENTRIES	256
/* Frames per stack; the last slot may hold a mark (below). */
#define UNW_MAX_FRAMES		127
#define UNW_NO_TABLE		0xffffffffu

struct unw_map {
	__u64 start, end;	/* [start, end) of the mapping */
	__u64 adj;		/* file vaddr = pc - adj */
	__u32 row_base;		/* first row in unw_rows; UNW_NO_TABLE: frame pointers */
	__u32 row_count;	/* with UNW_NO_TABLE: UNW_ANON for a mapping of no file */
};
/*
 * Code of no file (a JIT's, the vdso's): no thread's outermost frame is
 * there, so a walk that finds rbp = 0 in it stopped short.
 */
#define UNW_ANON		1u

struct unw_proc {
	__u32 nr;		/* mappings, sorted by start */
	__u32 slot;		/* in unw_maps: from slot * UNW_MAX_MAPS */
};

/*
 * Marks in place of a frame: the stack goes on below but the walk
 * stopped (out of frames, or a step failed). A stack never ends silently.
 */
#define UNW_MARK_TRUNCATED	0xfffffffffffffff1ull	/* UNW_MAX_FRAMES reached */
#define UNW_MARK_ERROR		0xfffffffffffffff2ull	/* a step failed */

/*
 * Stack storage, "unw_stacks": a stack's id is a hash of its frames, and
 * its frames are stored in parts of UNW_PART_FRAMES, keyed by (id, part):
 * most stacks take one or two parts, so the map's memory is what the
 * stacks use rather than 127 frames each. Part 0 says how many there are.
 * User and kernel stacks share it (their hashes start apart).
 */
#define UNW_PART_FRAMES		16
#define UNW_MAX_PARTS		8	/* UNW_MAX_FRAMES frames */

struct unw_part_key {
	__u32 id;			/* the stack id the tools' keys hold */
	__u32 part;
};

struct unw_part {
	__u64 ips[UNW_PART_FRAMES];	/* leaf first, 0 after the last */
	__u64 hash;			/* the whole stack's full hash: a collision is seen */
	__u32 nparts;			/* part 0: parts of the stack */
	__u32 pad;
};

/* The walk's counters, in the BPF object's .bss: __u64s only (COUNTERS_ADD()). */
struct unw_counts {
	__u64 stacks;		/* user stacks walked */
	__u64 dwarf_frames;	/* frames found by a table row */
	__u64 fp_frames;	/* frames found by frame pointer */
	__u64 truncated;	/* UNW_MAX_FRAMES reached */
	__u64 errors;		/* a step failed: [unwind error] */
	__u64 collisions;	/* two stacks, one key: the second is lost */
	__u64 dropped;		/* storage full */
	__u64 no_proc;		/* process without mappings in unw_procs yet */
	__u64 stored;		/* parts added to unw_stacks */
	__u64 unlisted;		/* stacks through code mapped since their list (dlopen) */
};

#endif
