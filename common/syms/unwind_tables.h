/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Unwinding tables for one ELF file, from its .eh_frame (and .debug_frame)
 * through elfutils' libdw: the rows BPF walks (unwind_abi.h). Files are other users'
 * binaries: a crafted .eh_frame gives an error and no table (the file is
 * then walked by frame pointers), never a crash or unbounded memory.
 */
#ifndef BPFLITE_UNWIND_TABLES_H
#define BPFLITE_UNWIND_TABLES_H

#include <stdbool.h>
#include <stddef.h>
#include "abi/unwind_abi.h"

/*
 * Rows per file at most; a bigger file keeps the first ones, then a row
 * of frame pointers for the rest (said in why). The same after 2 s of
 * building (unwind_tables.c).
 */
#define UNW_MAX_ROWS_PER_FILE	(1u << 20)

struct unw_table {
	struct unw_row *rows;
	unsigned int n;
	unsigned int fdes;	/* FDEs seen */
	unsigned int fallback;	/* rows of kind UNW_FP */
	struct unw_load {		/* executable PT_LOADs: file offset -> vaddr */
		__u64 off, filesz, vaddr;
	} load[4];
	unsigned int nload;
	bool capped;		/* UNW_MAX_ROWS_PER_FILE (or the caller's cap) hit, or
				   the time budget: the last row, UNW_NONE, marks the rest */
};

/*
 * Build t from the ELF file open at fd, at most max_rows rows (0: the
 * default cap). 0, or -errno with why set to a short reason ("no
 * .eh_frame_hdr", "bad CFI at 0x...").
 */
int unw_table__build(int fd, unsigned int max_rows, struct unw_table *t, char *why,
		     size_t why_len);
/* The same from a file in memory (the fuzz target). */
int unw_table__build_mem(const void *buf, size_t len, unsigned int max_rows,
			 struct unw_table *t, char *why, size_t why_len);
void unw_table__free(struct unw_table *t);
/* The row that holds file vaddr pc, or NULL. */
const struct unw_row *unw_table__find(const struct unw_table *t, __u64 pc);

#endif
