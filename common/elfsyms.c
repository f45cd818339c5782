// SPDX-License-Identifier: GPL-2.0
/*
 * Function symbols of one ELF file through libelf. Nothing the file says
 * is trusted: libelf checks section bounds against the file size, and
 * this file checks every string, note and count it uses on top.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "elfsyms.h"

/* Bounds on what one file may cost (a hostile file could claim more). */
#define MAX_SYMS	(4u << 20)
#define MAX_SECTIONS	65536
#define MAX_NAME	1024

static void libelf_init(void)
{
	static int done;

	if (!done) {
		elf_version(EV_CURRENT);
		done = 1;
	}
}

static int add_sym(struct elf_syms *e, size_t *cap, size_t *strs_cap, const char *name,
		   __u64 addr, __u64 size)
{
	size_t len = strnlen(name, MAX_NAME);

	if (e->nr >= MAX_SYMS)
		return -E2BIG;
	if (e->nr == *cap) {
		size_t n = *cap ? *cap * 2 : 256;
		void *p = realloc(e->syms, n * sizeof(*e->syms));

		if (!p)
			return -ENOMEM;
		e->syms = p;
		*cap = n;
	}
	if (e->strs_len + len + 1 > *strs_cap || e->strs_len + len + 1 > 0xffffffffu) {
		size_t n = *strs_cap ? *strs_cap * 2 : 4096;
		void *p;

		while (n < e->strs_len + len + 1)
			n *= 2;
		if (n > 0xffffffffu)
			return -E2BIG;
		p = realloc(e->strs, n);
		if (!p)
			return -ENOMEM;
		e->strs = p;
		*strs_cap = n;
	}
	memcpy(e->strs + e->strs_len, name, len);
	e->strs[e->strs_len + len] = '\0';
	e->syms[e->nr].addr = addr;
	e->syms[e->nr].size = size;
	e->syms[e->nr].name = e->strs_len;
	e->strs_len += len + 1;
	e->nr++;
	return 0;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct elf_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* at one address, the sized symbol first (it is the function) */
	return x->size > y->size ? -1 : x->size < y->size;
}

/* Sort, drop duplicates at one address, give back spare memory. */
static void finish(struct elf_syms *e)
{
	size_t i, j = 0;

	if (e->nr) {
		qsort(e->syms, e->nr, sizeof(*e->syms), cmp_sym);
		for (i = 0; i < e->nr; i++) {
			if (j && e->syms[j - 1].addr == e->syms[i].addr)
				continue;
			e->syms[j++] = e->syms[i];
		}
		e->nr = j;
		e->syms = realloc(e->syms, e->nr * sizeof(*e->syms)) ?: e->syms;
	}
	if (e->strs_len)
		e->strs = realloc(e->strs, e->strs_len) ?: e->strs;
	e->bytes = sizeof(*e) + e->nr * sizeof(*e->syms) + e->strs_len;
}

static void read_symtab(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct elf_syms *e,
			size_t *cap, size_t *strs_cap)
{
	size_t ent = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT), n, i;
	Elf_Data *d = elf_getdata(scn, NULL);

	if (!d || !d->d_buf || !ent || sh->sh_link == 0)
		return;
	n = d->d_size / ent;
	for (i = 0; i < n; i++) {
		GElf_Sym sym;
		const char *name;
		int type;

		if (!gelf_getsym(d, i, &sym))
			break;
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
		    !sym.st_value)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		if (add_sym(e, cap, strs_cap, name, sym.st_value, sym.st_size))
			break;
	}
}

static void read_notes(Elf_Scn *scn, struct elf_syms *e)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	if (!d || !d->d_buf)
		return;
	while (off < d->d_size && (next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > off) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && nh.n_descsz > 0 &&
		    nh.n_descsz <= ELFSYMS_BUILD_ID_MAX && name_off + 4 <= d->d_size &&
		    desc_off + nh.n_descsz <= d->d_size &&
		    !memcmp((char *)d->d_buf + name_off, "GNU", 4)) {
			memcpy(e->build_id, (char *)d->d_buf + desc_off, nh.n_descsz);
			e->build_id_len = nh.n_descsz;
			return;
		}
		off = next;
	}
}

static void read_debuglink(Elf_Scn *scn, struct elf_syms *e)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t len;

	if (!d || !d->d_buf || !d->d_size)
		return;
	len = strnlen(d->d_buf, d->d_size);
	/* a name, NUL-terminated, without a path: it is looked up in fixed dirs */
	if (len == 0 || len >= d->d_size || len >= sizeof(e->debuglink) ||
	    memchr(d->d_buf, '/', len))
		return;
	memcpy(e->debuglink, d->d_buf, len);
	e->debuglink[len] = '\0';
}

static struct elf_syms *load(Elf *elf)
{
	size_t cap = 0, strs_cap = 0, nphdr = 0, shstrndx = 0, i, nsec = 0;
	struct elf_syms *e;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;

	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		errno = ENOEXEC;
		return NULL;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;

	if (elf_getphdrnum(elf, &nphdr) == 0) {
		for (i = 0; i < nphdr && i < 4096; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(elf, i, &ph))
				break;
			if (ph.p_type != PT_LOAD || e->nr_loads == ELFSYMS_MAX_LOADS)
				continue;
			e->loads[e->nr_loads].offset = ph.p_offset;
			e->loads[e->nr_loads].vaddr = ph.p_vaddr;
			e->loads[e->nr_loads].filesz = ph.p_filesz;
			e->nr_loads++;
		}
	}

	if (elf_getshdrstrndx(elf, &shstrndx))
		shstrndx = 0;
	while ((scn = elf_nextscn(elf, scn)) && nsec++ < MAX_SECTIONS) {
		const char *name;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		switch (sh.sh_type) {
		case SHT_SYMTAB:
			e->has_symtab = true;
			/* fall through */
		case SHT_DYNSYM:
			read_symtab(elf, scn, &sh, e, &cap, &strs_cap);
			break;
		case SHT_NOTE:
			if (!e->build_id_len)
				read_notes(scn, e);
			break;
		case SHT_PROGBITS:
			name = shstrndx ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
			if (name && !strcmp(name, ".gnu_debuglink"))
				read_debuglink(scn, e);
			break;
		}
	}
	finish(e);
	return e;
}

struct elf_syms *elf_syms__load_fd(int fd)
{
	struct elf_syms *e;
	Elf *elf;

	libelf_init();
	/* ELF_C_READ, not mmap: a file truncated under us must not SIGBUS */
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf) {
		errno = ENOEXEC;
		return NULL;
	}
	e = load(elf);
	elf_end(elf);
	return e;
}

struct elf_syms *elf_syms__load_mem(const void *buf, size_t len)
{
	struct elf_syms *e;
	char *copy;
	Elf *elf;

	libelf_init();
	/* libelf may convert data in place: give it a private copy */
	copy = malloc(len ? len : 1);
	if (!copy)
		return NULL;
	memcpy(copy, buf, len);
	elf = elf_memory(copy, len);
	if (!elf) {
		free(copy);
		errno = ENOEXEC;
		return NULL;
	}
	e = load(elf);
	elf_end(elf);
	free(copy);
	return e;
}

int elf_syms__merge(struct elf_syms *dst, const struct elf_syms *src)
{
	size_t cap = dst->nr, strs_cap = dst->strs_len, i;
	int err = 0;

	for (i = 0; i < src->nr && !err; i++)
		err = add_sym(dst, &cap, &strs_cap, src->strs + src->syms[i].name,
			      src->syms[i].addr, src->syms[i].size);
	dst->has_symtab |= src->has_symtab;
	finish(dst);
	return err;
}

bool elf_syms__vaddr(const struct elf_syms *e, __u64 off, __u64 *vaddr)
{
	int i;

	if (!e->nr_loads) {
		*vaddr = off;
		return true;
	}
	for (i = 0; i < e->nr_loads; i++) {
		const struct elf_load *l = &e->loads[i];

		if (off >= l->offset && off - l->offset < l->filesz) {
			*vaddr = off - l->offset + l->vaddr;
			return true;
		}
	}
	return false;
}

const char *elf_syms__find(const struct elf_syms *e, __u64 vaddr, __u64 *off)
{
	size_t lo = 0, hi = e->nr, i, k;

	if (!e->nr || vaddr < e->syms[0].addr)
		return NULL;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (e->syms[mid].addr <= vaddr)
			lo = mid;
		else
			hi = mid;
	}
	/* the nearest symbol below, or one a few below that still covers it */
	for (k = 0, i = lo; k < 8; k++, i--) {
		const struct elf_sym *s = &e->syms[i];

		/* an unsized symbol (assembly) only when it is the nearest one */
		if ((!s->size && k == 0) || (s->size && vaddr - s->addr < s->size)) {
			*off = vaddr - s->addr;
			return e->strs + s->name;
		}
		if (i == 0)
			break;
	}
	return NULL;
}

void elf_syms__free(struct elf_syms *e)
{
	if (!e)
		return;
	free(e->syms);
	free(e->strs);
	free(e);
}

void elf_syms__build_id_hex(const struct elf_syms *e, char *buf, size_t len)
{
	size_t o = 0;
	int i;

	if (!len)
		return;
	buf[0] = '\0';
	for (i = 0; i < e->build_id_len && o + 3 <= len; i++)
		o += snprintf(buf + o, len - o, "%02x", e->build_id[i]);
}
