// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the unwinding tables' reader: any bytes as an ELF
 * image must give an error or a table of bounded rows, sorted, never a
 * crash, a hang or a leak. Seeds: tests/unit/corpus.
 */
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include "syms/unwind_tables.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct unw_table t;
	char why[128];

	if (unw_table__build_mem(data, size, 4096, &t, why, sizeof(why)))
		return 0;
	if (t.n > 4096)
		abort();
	for (unsigned int i = 1; i < t.n; i++)
		if (t.rows[i].pc < t.rows[i - 1].pc)
			abort();
	unw_table__find(&t, t.n ? t.rows[t.n - 1].pc + 1 : 0);
	unw_table__free(&t);
	return 0;
}
