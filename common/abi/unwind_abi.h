/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space unwinding tables as BPF will read them (common/syms/
 * unwind_tables.c builds them from a file's .eh_frame). __u32/__u64 only.
 *
 * A file's table is a run of rows sorted by pc (the file's own virtual
 * address, what its .eh_frame speaks of); a row holds from its pc to the
 * next row's.
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

#endif
