// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the ELF reader of the symbolizer: any bytes, as an
 * image in memory and as a file on an fd, must give an error or symbols,
 * never a crash, a hang or a leak. Seeds: tests/unit/corpus.
 */
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
#include "syms/elfsyms.h"

static void exercise(struct elf_syms *e)
{
	__u64 off, vaddr, symoff;
	char id[2 * ELFSYMS_BUILD_ID_MAX + 1];

	if (!e)
		return;
	elf_syms__build_id_hex(e, id, sizeof(id));
	for (off = 0; off < 0x4000; off += 0x40)
		if (elf_syms__vaddr(e, off, &vaddr))
			elf_syms__find(e, vaddr, &symoff);
	if (e->nr)
		elf_syms__find(e, e->syms[e->nr - 1].addr + 1, &symoff);
	elf_syms__free(e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;

	exercise(elf_syms__load_mem(data, size));
	/* the fd path reads with pread through libelf's ELF_C_READ */
	if (fd < 0)
		fd = memfd_create("fuzz_elf", 0);
	if (fd >= 0 && !ftruncate(fd, 0) && pwrite(fd, data, size, 0) == (ssize_t)size)
		exercise(elf_syms__load_fd(fd));
	return 0;
}
