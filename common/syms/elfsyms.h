/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ELF reader behind the user-space symbolizer (syms.c): function
 * symbols of one ELF file (.symtab and .dynsym), its PT_LOAD segments (to
 * turn a file offset into a virtual address), its build-id and its
 * .gnu_debuglink. It reads files of arbitrary processes as root, so every
 * count, offset and string of the file is checked: a malformed file gives
 * an error or fewer symbols, never a crash (tests/fuzz/fuzz_elf.c).
 */
#ifndef BPFLITE_ELFSYMS_H
#define BPFLITE_ELFSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#define ELFSYMS_MAX_LOADS	32
#define ELFSYMS_BUILD_ID_MAX	64

struct elf_load {
	__u64 offset, vaddr, filesz;
};

struct elf_sym {
	__u64 addr, size;
	__u32 name;			/* offset in strs */
};

struct elf_syms {
	struct elf_sym *syms;		/* sorted by addr */
	size_t nr;
	char *strs;
	size_t strs_len;
	struct elf_load loads[ELFSYMS_MAX_LOADS];
	int nr_loads;
	bool has_symtab;		/* else only .dynsym (or nothing) */
	__u8 build_id[ELFSYMS_BUILD_ID_MAX];
	int build_id_len;
	char debuglink[256];		/* "" when none */
	size_t bytes;			/* memory held, for the cache bound */
	size_t max_bytes;		/* the bound it was built under */
	bool truncated;			/* symbols left out to stay under it */
};

/* Parse the ELF file open on fd (not closed). NULL with errno on error. */
struct elf_syms *elf_syms__load_fd(int fd);
/*
 * The same with the table's memory bounded by max_bytes (0: 64 MiB),
 * counted before anything is allocated; names are interned (symbols that
 * share a name share one copy). Over the bound, the symbols read so far
 * are kept and truncated is set.
 */
struct elf_syms *elf_syms__load_fd_max(int fd, size_t max_bytes);
/* Parse an ELF image in memory (buf is not modified). */
struct elf_syms *elf_syms__load_mem(const void *buf, size_t len);
/* Add the function symbols of another file (a separate debug file). */
int elf_syms__merge(struct elf_syms *dst, const struct elf_syms *src);
/*
 * The same symbols and segments (and build-id): safe to share one table.
 * A build-id alone proves nothing, anyone can write any.
 */
bool elf_syms__same(const struct elf_syms *a, const struct elf_syms *b);
/* File offset -> virtual address through the PT_LOAD segments. */
bool elf_syms__vaddr(const struct elf_syms *e, __u64 off, __u64 *vaddr);
/* The symbol covering vaddr (or NULL); *off is vaddr - symbol. */
const char *elf_syms__find(const struct elf_syms *e, __u64 vaddr, __u64 *off);
void elf_syms__free(struct elf_syms *e);

/*
 * The .dynsym symbols called names[i], of any type (data too), in
 * vaddrs[i] (0: absent), and the lowest PT_LOAD's vaddr in *first_load
 * (mapped at the start of the file's first mapping). 0 when one was
 * found; -ENOENT none; -ENOEXEC not an ELF file with segments.
 */
int elf_syms__dynamic(int fd, const char *const *names, __u64 *vaddrs, int n,
		      __u64 *first_load);

/* Build-id as lower-case hex into buf ("" when none). */
void elf_syms__build_id_hex(const struct elf_syms *e, char *buf, size_t len);

#endif
