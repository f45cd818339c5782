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
#include "syms/elfsyms.h"
#include "syms/sorted.h"

/* Bounds on what one file may cost (a hostile file could claim more). */
#define MAX_SYMS	(4u << 20)
#define MAX_SECTIONS	65536
#define MAX_NAME	1024
#define DEFAULT_MAX_BYTES (64u << 20)

static void libelf_init(void)
{
	static int done;

	if (!done) {
		elf_version(EV_CURRENT);
		done = 1;
	}
}

/*
 * A table being built. Every byte it allocates is counted against
 * e->max_bytes before it is allocated, and names are interned: a file
 * whose symbols all share one long name costs one copy of it.
 */
struct builder {
	struct elf_syms *e;
	size_t cap, strs_cap;
	__u32 *hash;		/* open addressing: name offset + 1, 0 empty */
	size_t hash_cap;	/* a power of 2, at most half full */
	size_t names;		/* distinct names in strs */
};

static size_t cost(const struct builder *b, size_t cap, size_t strs_cap, size_t hash_cap)
{
	(void)b;
	return sizeof(struct elf_syms) + cap * sizeof(struct elf_sym) + strs_cap +
	       hash_cap * sizeof(__u32);
}

static bool fits(const struct builder *b, size_t cap, size_t strs_cap, size_t hash_cap)
{
	if (cost(b, cap, strs_cap, hash_cap) <= b->e->max_bytes)
		return true;
	b->e->truncated = true;
	return false;
}

static __u32 name_hash(const char *s, size_t len)
{
	__u32 h = 2166136261u;		/* FNV-1a */

	while (len--)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/* The slot of name (len bytes) in the hash: its entry, or the empty one. */
static __u32 *hash_slot(const struct builder *b, const char *name, size_t len)
{
	size_t i = name_hash(name, len) & (b->hash_cap - 1);

	for (;; i = (i + 1) & (b->hash_cap - 1)) {
		__u32 v = b->hash[i];

		if (!v || (!strncmp(b->e->strs + v - 1, name, len) && !b->e->strs[v - 1 + len]))
			return &b->hash[i];
	}
}

static int hash_grow(struct builder *b)
{
	const struct elf_syms *e = b->e;
	size_t n = b->hash_cap ? b->hash_cap * 2 : 1024, i;
	struct builder nb = *b;

	while (n < 2 * (b->names + 1))	/* a merge starts with names and no hash */
		n *= 2;
	if (!fits(b, b->cap, b->strs_cap, n + b->hash_cap))
		return -E2BIG;
	nb.hash = calloc(n, sizeof(*nb.hash));
	if (!nb.hash)
		return -ENOMEM;
	nb.hash_cap = n;
	/* every name once: walk the strings */
	for (i = 0; i < e->strs_len; i += strlen(e->strs + i) + 1)
		*hash_slot(&nb, e->strs + i, strlen(e->strs + i)) = i + 1;
	free(b->hash);
	b->hash = nb.hash;
	b->hash_cap = n;
	return 0;
}

/* Room for n more symbols at once, within the budget. */
static void reserve(struct builder *b, size_t n)
{
	size_t want = b->e->nr + n, room;
	void *p;

	if (want <= b->cap)
		return;
	/* at most half of what is left: the names and their hash need room too */
	room = b->e->max_bytes > cost(b, b->cap, b->strs_cap, b->hash_cap) ?
	       (b->e->max_bytes - cost(b, b->cap, b->strs_cap, b->hash_cap)) / 2 /
	       sizeof(struct elf_sym) : 0;
	if (want - b->cap > room)
		want = b->cap + room;
	if (want > MAX_SYMS)
		want = MAX_SYMS;
	if (want <= b->cap)
		return;
	p = realloc(b->e->syms, want * sizeof(*b->e->syms));
	if (!p)
		return;
	b->e->syms = p;
	b->cap = want;
}

static int add_sym(struct builder *b, const char *name, __u64 addr, __u64 size)
{
	struct elf_syms *e = b->e;
	size_t len = strnlen(name, MAX_NAME);
	__u32 *slot, off;

	if (e->nr >= MAX_SYMS)
		return -E2BIG;
	if (e->nr == b->cap) {
		size_t n = b->cap ? b->cap * 2 : 256;
		void *p;

		while (n > b->cap + 1 && !fits(b, n, b->strs_cap, b->hash_cap))
			n = b->cap + (n - b->cap) / 2;
		if (!fits(b, n, b->strs_cap, b->hash_cap))
			return -E2BIG;
		p = realloc(e->syms, n * sizeof(*e->syms));
		if (!p)
			return -ENOMEM;
		e->syms = p;
		b->cap = n;
	}
	if (2 * (b->names + 1) > b->hash_cap && hash_grow(b))
		return -E2BIG;
	slot = hash_slot(b, name, len);
	if (*slot) {
		off = *slot - 1;
	} else {
		if (e->strs_len + len + 1 > b->strs_cap) {
			size_t n = b->strs_cap ? b->strs_cap * 2 : 4096;
			void *p;

			while (n < e->strs_len + len + 1)
				n *= 2;
			if (n > 0xffffffffu)
				return -E2BIG;
			if (!fits(b, b->cap, n, b->hash_cap))
				n = e->strs_len + len + 1;
			if (!fits(b, b->cap, n, b->hash_cap))
				return -E2BIG;
			p = realloc(e->strs, n);
			if (!p)
				return -ENOMEM;
			e->strs = p;
			b->strs_cap = n;
		}
		off = e->strs_len;
		memcpy(e->strs + off, name, len);
		e->strs[off + len] = '\0';
		e->strs_len += len + 1;
		*slot = off + 1;
		b->names++;
	}
	e->syms[e->nr].addr = addr;
	e->syms[e->nr].size = size;
	e->syms[e->nr].name = off;
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

static void read_symtab(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct builder *b)
{
	size_t ent = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT), n, i;
	Elf_Scn *strscn = elf_getscn(elf, sh->sh_link);
	GElf_Shdr strsh;
	Elf_Data *d;

	if (!ent || sh->sh_link == 0 || !strscn || !gelf_getshdr(strscn, &strsh))
		return;
	/*
	 * libelf reads a section whole. Names: a string table over twice the
	 * budget is not read (its names could not be kept). Symbols: only the
	 * first ones that could be kept are read.
	 */
	if (strsh.sh_size / 2 > b->e->max_bytes) {
		b->e->truncated = true;
		return;
	}
	if (sh->sh_size / 2 > b->e->max_bytes) {
		b->e->truncated = true;
		d = elf_getdata_rawchunk(elf, sh->sh_offset, b->e->max_bytes / ent * ent, ELF_T_SYM);
	} else {
		d = elf_getdata(scn, NULL);
	}
	if (!d || !d->d_buf)
		return;
	n = d->d_size / ent;
	reserve(b, n);
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
		if (add_sym(b, name, sym.st_value, sym.st_size))
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

static struct elf_syms *load(Elf *elf, size_t max_bytes)
{
	size_t nphdr = 0, shstrndx = 0, i, nsec = 0;
	struct builder b = { 0 };
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
	e->max_bytes = max_bytes ? max_bytes : DEFAULT_MAX_BYTES;
	b.e = e;

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
			read_symtab(elf, scn, &sh, &b);
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
	free(b.hash);
	finish(e);
	return e;
}

struct elf_syms *elf_syms__load_fd(int fd)
{
	return elf_syms__load_fd_max(fd, 0);
}

struct elf_syms *elf_syms__load_fd_max(int fd, size_t max_bytes)
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
	e = load(elf, max_bytes);
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
	e = load(elf, 0);
	elf_end(elf);
	free(copy);
	return e;
}

int elf_syms__merge(struct elf_syms *dst, const struct elf_syms *src)
{
	struct builder b = { .e = dst, .cap = dst->nr, .strs_cap = dst->strs_len };
	size_t i;
	int err = 0;

	for (i = 0; i < dst->strs_len; i += strlen(dst->strs + i) + 1)
		b.names++;
	reserve(&b, src->nr);
	for (i = 0; i < src->nr && !err; i++)
		err = add_sym(&b, src->strs + src->syms[i].name, src->syms[i].addr,
			      src->syms[i].size);
	free(b.hash);
	dst->has_symtab |= src->has_symtab;
	dst->truncated |= src->truncated;
	finish(dst);
	return err;
}

bool elf_syms__same(const struct elf_syms *a, const struct elf_syms *b)
{
	return a->build_id_len == b->build_id_len &&
	       !memcmp(a->build_id, b->build_id, a->build_id_len) && a->nr == b->nr &&
	       a->strs_len == b->strs_len && a->nr_loads == b->nr_loads &&
	       !memcmp(a->loads, b->loads, a->nr_loads * sizeof(*a->loads)) &&
	       (!a->nr || !memcmp(a->syms, b->syms, a->nr * sizeof(*a->syms))) &&
	       (!a->strs_len || !memcmp(a->strs, b->strs, a->strs_len));
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
	const struct elf_sym *nearest = SORTED_LAST_LE(e->syms, e->nr, addr, vaddr);
	size_t i, k;

	if (!nearest)
		return NULL;
	/* the nearest symbol below, or one a few below that still covers it */
	for (k = 0, i = nearest - e->syms; k < 8; k++, i--) {
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

int elf_syms__dynamic(int fd, const char *const *names, __u64 *vaddrs, int n,
		      __u64 *first_load)
{
	size_t nphdr = 0, nsec = 0, ent, i;
	Elf_Scn *scn = NULL;
	int err = -ENOENT;
	GElf_Ehdr eh;
	Elf *elf;

	libelf_init();
	for (int j = 0; j < n; j++)
		vaddrs[j] = 0;
	*first_load = ~0ull;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		err = -ENOEXEC;
		goto out;
	}
	if (elf_getphdrnum(elf, &nphdr) == 0) {
		for (i = 0; i < nphdr && i < 4096; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD &&
			    ph.p_vaddr < *first_load)
				*first_load = ph.p_vaddr;
		}
	}
	ent = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	while (ent && (scn = elf_nextscn(elf, scn)) && nsec++ < MAX_SECTIONS) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_link)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			continue;
		for (i = 0; i < d->d_size / ent && i < MAX_SYMS; i++) {
			const char *name;
			GElf_Sym sym;

			if (!gelf_getsym(d, i, &sym))
				break;
			if (sym.st_shndx == SHN_UNDEF || !sym.st_value)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			for (int j = 0; name && j < n; j++) {
				if (!vaddrs[j] && !strcmp(name, names[j])) {
					vaddrs[j] = sym.st_value;
					err = 0;
				}
			}
		}
	}
	if (*first_load == ~0ull)
		err = -ENOEXEC;
out:
	if (elf)
		elf_end(elf);
	return err;
}
