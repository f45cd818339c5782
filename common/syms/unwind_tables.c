// SPDX-License-Identifier: GPL-2.0
/*
 * Unwinding tables from .eh_frame, read by libdw (unwind_tables.h).
 *
 * The FDEs are found through .eh_frame_hdr's sorted table (every x86_64
 * toolchain writes it: the C runtime's own unwinder needs it), else by a
 * walk of .eh_frame itself; code built without unwind tables but with -g
 * has its FDEs in .debug_frame, which is walked as well when the file has
 * one (an unstripped file: a static binary's own functions there, the C
 * library's in .eh_frame). Each one is evaluated row by row with
 * dwarf_cfi_addrframe() (.eh_frame's CFI first): a frame's
 * [start, end) is the row's range, so the next row starts at its end.
 * Rows that unwind alike are merged. The CFI interpreter is libdw's, not
 * ours; what we parse ourselves is the header's table, bounds-checked.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dwarf.h>
#include <gelf.h>
#include <elfutils/libdw.h>
#include "run/timefmt.h"
#include "syms/sorted.h"
#include "syms/unwind_tables.h"

/* x86_64 DWARF register numbers (System V psABI, figure 3.36) */
#define DW_RBP	6
#define DW_RSP	7
#define DW_RA	16

/*
 * libdw evaluates a function's CFI from its start for each row asked, so
 * a function's rows cost the square of its length: past this many rows
 * the rest of a function is left to frame pointers (real code has a few
 * dozen; a crafted FDE could have millions). And a file's build stops
 * after UNW_BUILD_NS, keeping the rows built so far.
 */
#define UNW_MAX_ROWS_PER_FDE	1024
#define UNW_BUILD_NS		2000000000ull

struct build {
	struct unw_table *t;
	unsigned int cap;	/* rows allocated */
	unsigned int max;	/* rows at most, the end mark included */
	__u64 plt_lo, plt_hi;	/* .plt: the lazy stubs' CFA expression */
};

static int grow(struct build *b)
{
	struct unw_table *t = b->t;
	unsigned int cap;
	struct unw_row *q;

	if (t->n < b->cap)
		return 0;
	cap = b->cap ? b->cap * 2 : 1024;
	if (cap > b->max)
		cap = b->max;
	q = realloc(t->rows, cap * sizeof(*q));
	if (!q)
		return -ENOMEM;
	t->rows = q;
	b->cap = cap;
	return 0;
}

static int push_row(struct build *b, const struct unw_row *r)
{
	struct unw_table *t = b->t;
	int err;

	if (t->n) {
		struct unw_row *last = &t->rows[t->n - 1];

		/* the same rule as the row before: one row */
		if (last->kind == r->kind && last->cfa_off8 == r->cfa_off8 &&
		    last->rbp_off8 == r->rbp_off8)
			return 0;
		/* a row that starts where the last one did replaces it */
		if (last->pc == r->pc) {
			*last = *r;
			return 0;
		}
	}
	if (t->n >= b->max - 1) {	/* the last one is the end mark's */
		t->capped = true;
		return -E2BIG;
	}
	err = grow(b);
	if (err)
		return err;
	t->rows[t->n++] = *r;
	return 0;
}

/*
 * A build that stopped early (the row cap, the time budget): from pc on,
 * nothing is known, so frame pointers (without this mark the last row's
 * rule would reach over the rest of the file). push_row() keeps room.
 */
static void push_end(struct build *b, __u64 pc)
{
	struct unw_table *t = b->t;

	if (t->n && t->rows[t->n - 1].kind == UNW_NONE)
		return;
	if (t->n && t->rows[t->n - 1].pc == pc) {
		t->rows[t->n - 1].kind = UNW_NONE;
		return;
	}
	if (grow(b))
		return;
	t->rows[t->n++] = (struct unw_row){ .pc = (__u32)pc, .kind = UNW_NONE };
}

/* Is ops "CFA + off" (libdw: DW_OP_call_frame_cfa then an offset)? */
static bool cfa_offset(const Dwarf_Op *ops, size_t nops, __s64 *off)
{
	if (nops == 1 && ops[0].atom == DW_OP_call_frame_cfa) {
		*off = 0;
		return true;
	}
	if (nops != 2 || ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	switch (ops[1].atom) {
	case DW_OP_plus_uconst:
		*off = (__s64)ops[1].number;
		return true;
	case DW_OP_consts:	/* followed by DW_OP_plus in longer forms */
		*off = (__s64)ops[1].number;
		return true;
	}
	return false;
}

/* One libdw frame state as a row for BPF. */
static void frame_row(struct build *b, Dwarf_Frame *f, __u64 pc, struct unw_row *r)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;
	__s64 off;

	memset(r, 0, sizeof(*r));
	r->pc = pc;
	r->kind = UNW_FP;

	/* The return address: undefined in the outermost frame (_start, clone) */
	if (dwarf_frame_register(f, DW_RA, mem, &ops, &nops))
		return;
	if (nops == 0 && ops == mem) {
		r->kind = UNW_END;
		return;
	}
	if (!cfa_offset(ops, nops, &off) || off != -8)
		return;

	if (dwarf_frame_cfa(f, &ops, &nops) || nops == 0)
		return;
	if (nops == 1 && (ops[0].atom == DW_OP_bregx ||
			  (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31))) {
		__u64 reg = ops[0].atom == DW_OP_bregx ? ops[0].number :
			    (__u64)(ops[0].atom - DW_OP_breg0);
		__s64 o = (__s64)(ops[0].atom == DW_OP_bregx ? ops[0].number2 : ops[0].number);

		if (o % 8 || o / 8 < INT16_MIN || o / 8 > INT16_MAX)
			return;
		if (reg == DW_RSP)
			r->kind = UNW_CFA_RSP;
		else if (reg == DW_RBP)
			r->kind = UNW_CFA_RBP;
		else
			return;
		r->cfa_off8 = (__s16)(o / 8);
	} else if (pc >= b->plt_lo && pc < b->plt_hi) {
		/*
		 * The lazy PLT's expression, rsp + 8 + ((rip & 15) >= 11) * 8:
		 * each 16-byte stub pushes once, at offset 11. BPF computes it.
		 */
		r->kind = UNW_PLT;
		return;
	} else {
		return;
	}

	/* The caller's rbp: unchanged, or saved at CFA + off */
	if (dwarf_frame_register(f, DW_RBP, mem, &ops, &nops)) {
		r->kind = UNW_FP;
		return;
	}
	if (nops == 0)
		return;		/* same value (or undefined: no better guess) */
	if (cfa_offset(ops, nops, &off) && off && !(off % 8) && off / 8 >= INT8_MIN &&
	    off / 8 <= INT8_MAX) {
		r->rbp_off8 = (__s8)(off / 8);
		return;
	}
	r->kind = UNW_FP;
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * The section called name (with data: of type SHT_PROGBITS, or
 * SHT_X86_64_UNWIND, as lld types .eh_frame and .eh_frame_hdr), its header in
 * *sh: its data (NULL when empty), else NULL with sh zeroed.
 */
static Elf_Data *section(Elf *elf, const char *name, bool data, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	memset(sh, 0, sizeof(*sh));
	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *s;

		if (!gelf_getshdr(scn, sh))
			break;
		s = elf_strptr(elf, shstrndx, sh->sh_name);
		if (!s || strcmp(s, name))
			continue;
		if (!data)
			return NULL;
		if (sh->sh_type != SHT_PROGBITS && sh->sh_type != SHT_X86_64_UNWIND)
			break;
		return elf_getdata(scn, NULL);
	}
	memset(sh, 0, sizeof(*sh));
	return NULL;
}

/*
 * The FDEs' start addresses from .eh_frame_hdr (version 1), in the form
 * every linker writes: count udata4, table of datarel sdata4 pairs.
 */
static int hdr_starts(Elf *elf, __u64 **out, size_t *n, char *why, size_t why_len)
{
	GElf_Shdr sh;
	Elf_Data *d = section(elf, ".eh_frame_hdr", true, &sh);
	__u64 hdr_addr = sh.sh_addr;
	const unsigned char *p;
	unsigned int cnt, off;
	__u64 *v;

	*out = NULL;
	*n = 0;
	if (!d || !d->d_buf) {
		snprintf(why, why_len, "no .eh_frame_hdr");
		return -ENOENT;
	}
	p = d->d_buf;
	if (d->d_size < 12 || p[0] != 1) {
		snprintf(why, why_len, "bad .eh_frame_hdr");
		return -EINVAL;
	}
	/* eh_frame_ptr: 4 bytes in the sdata4/udata4 forms */
	if ((p[1] & 0x0f) != 0x03 && (p[1] & 0x0f) != 0x0b) {
		snprintf(why, why_len, ".eh_frame_hdr encoding 0x%x not handled", p[1]);
		return -EINVAL;
	}
	if (p[2] != 0x03 || p[3] != 0x3b) {
		snprintf(why, why_len, ".eh_frame_hdr table encoding 0x%x/0x%x not handled",
			 p[2], p[3]);
		return -EINVAL;
	}
	memcpy(&cnt, p + 8, 4);
	off = 12;
	if (cnt > (d->d_size - off) / 8) {
		snprintf(why, why_len, "truncated .eh_frame_hdr (%u FDEs)", cnt);
		return -EINVAL;
	}
	v = malloc((cnt + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (unsigned int i = 0; i < cnt; i++) {
		__s32 loc;

		memcpy(&loc, p + off + 8 * i, 4);
		v[i] = hdr_addr + (__s64)loc;
	}
	qsort(v, cnt, sizeof(*v), cmp_u64);
	*out = v;
	*n = cnt;
	return 0;
}

/* Bytes of a fixed-size DWARF pointer encoding; 0 for the LEB128 forms. */
static unsigned int enc_size(unsigned char enc)
{
	switch (enc & 0x0f) {
	case 0x00: return 8;		/* absptr, on a 64-bit file */
	case 0x02: case 0x0a: return 2;
	case 0x03: case 0x0b: return 4;
	case 0x04: case 0x0c: return 8;
	}
	return 0;
}

/* The FDE pointer encoding a CIE's augmentation names ('R'); -1: unknown. */
static int cie_fde_enc(const Dwarf_CIE *c)
{
	const char *a = c->augmentation;
	const uint8_t *d = c->augmentation_data;
	size_t i = 0, len = c->augmentation_data_size;

	if (!a || a[0] != 'z')
		return a && !a[0] ? 0 : -1;	/* no augmentation: absolute */
	for (a++; *a; a++) {
		switch (*a) {
		case 'R':
			return i < len ? d[i] : -1;
		case 'L':
			i++;
			break;
		case 'P': {
			unsigned int sz;

			if (i >= len)
				return -1;
			sz = enc_size(d[i++]);
			if (!sz)
				while (i < len && (d[i++] & 0x80))
					;
			i += sz;
			break;
		}
		case 'S': case 'B':
			break;
		default:
			return -1;
		}
	}
	return 0;
}

/*
 * Without .eh_frame_hdr (static binaries: gcc asks the linker for one only
 * when linking dynamically), the FDEs' starts from .eh_frame itself, walked
 * by dwarf_next_cfi(); we decode only each FDE's initial location, in the
 * encoding its CIE names. The same for .debug_frame (eh false: its CIEs
 * have no augmentation, so each location is an absolute address; 0 is a
 * function the linker dropped).
 */
static int frame_starts(Elf *elf, const char *section_name, bool eh, __u64 **out, size_t *n,
			char *why, size_t why_len)
{
	GElf_Shdr sh;
	size_t cap = 0, ncie = 0, ciecap = 0;
	Elf_Data *d = section(elf, section_name, true, &sh);
	__u64 addr = sh.sh_addr, *v = NULL;
	struct { Dwarf_Off off; int enc; } *cies = NULL;
	const unsigned char *ident = (const unsigned char *)elf_getident(elf, NULL);
	Dwarf_Off off = 0, next;
	int err = 0;

	*out = NULL;
	*n = 0;
	if (!ident)
		return -EINVAL;
	if (!d || !d->d_buf || !d->d_size) {
		snprintf(why, why_len, "no %s", section_name);
		return -ENOENT;
	}
	for (unsigned int guard = 0; guard < UNW_MAX_ROWS_PER_FILE; guard++) {
		Dwarf_CFI_Entry e;
		Dwarf_Off cur = off;
		int r = dwarf_next_cfi(ident, d, eh, off, &next, &e);

		if (r == 1 || next <= off)
			break;
		if (r) {
			off = next;	/* an entry we cannot read: the next one */
			continue;
		}
		off = next;
		if (dwarf_cfi_cie_p(&e)) {
			if (ncie == ciecap) {
				void *q = realloc(cies, (ciecap = ciecap ? ciecap * 2 : 16) * sizeof(*cies));

				if (!q) {
					err = -ENOMEM;
					break;
				}
				cies = q;
			}
			cies[ncie].off = cur;
			cies[ncie].enc = cie_fde_enc(&e.cie);
			ncie++;
			continue;
		}
		{
			/* the CIEs were met in file order: sorted by offset */
			__typeof__(cies) cie = SORTED_LAST_LE(cies, ncie, off, e.fde.CIE_pointer);
			int enc = cie && cie->off == e.fde.CIE_pointer ? cie->enc : -1;
			unsigned int sz;
			const uint8_t *p = e.fde.start;
			__u64 loc = 0;

			if (enc < 0 || (enc & 0x70) > 0x10 || !(sz = enc_size(enc)) ||
			    p + sz > e.fde.end)
				continue;
			switch (sz) {
			case 2: { __s16 x; memcpy(&x, p, 2); loc = enc & 0x08 ? (__u64)(__s64)x : (__u16)x; break; }
			case 4: { __s32 x; memcpy(&x, p, 4); loc = enc & 0x08 ? (__u64)(__s64)x : (__u32)x; break; }
			default: memcpy(&loc, p, 8);
			}
			if ((enc & 0x70) == 0x10)	/* pcrel: from the field's own address */
				loc += addr + (p - (const uint8_t *)d->d_buf);
			if (!eh && !loc)
				continue;
			if (*n == cap) {
				void *q = realloc(v, (cap = cap ? cap * 2 : 256) * sizeof(*v));

				if (!q) {
					err = -ENOMEM;
					break;
				}
				v = q;
			}
			v[(*n)++] = loc;
		}
	}
	free(cies);
	if (err || !*n) {
		free(v);
		*n = 0;
		if (!err)
			snprintf(why, why_len, "no FDE in %s", section_name);
		return err ?: -ENOENT;
	}
	qsort(v, *n, sizeof(*v), cmp_u64);
	*out = v;
	return 0;
}

static void find_plt(Elf *elf, struct build *b)
{
	GElf_Shdr sh;

	section(elf, ".plt", false, &sh);
	b->plt_lo = sh.sh_addr;
	b->plt_hi = sh.sh_addr + sh.sh_size;
}

static int build_elf(Elf *elf, unsigned int max_rows, struct unw_table *t, char *why,
		     size_t why_len)
{
	struct build b = { .t = t, .max = max_rows ? max_rows : UNW_MAX_ROWS_PER_FILE };
	__u64 t0 = timefmt__mono_ns(), stop = 0;
	unsigned int calls = 0;
	Dwarf_CFI *cfi, *dcfi = NULL;
	Dwarf *dw = NULL;
	__u64 *starts, *dstarts;
	size_t n, dn;
	char dwhy[64];
	int err, derr;

	memset(t, 0, sizeof(*t));
	if (b.max < 2)
		b.max = 2;
	if (elf_kind(elf) != ELF_K_ELF || gelf_getclass(elf) != ELFCLASS64) {
		snprintf(why, why_len, "not a 64-bit ELF file");
		return -EINVAL;
	}
	if (elf_getphdrnum(elf, &n) == 0) {
		for (size_t i = 0; i < n && t->nload < 4; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
				t->load[t->nload++] = (struct unw_load){ ph.p_offset, ph.p_filesz,
									 ph.p_vaddr };
		}
	}
	if (!t->nload) {
		snprintf(why, why_len, "no executable segment");
		return -ENOENT;
	}
	err = hdr_starts(elf, &starts, &n, why, why_len);
	if (err == -ENOENT)
		err = frame_starts(elf, ".eh_frame", true, &starts, &n, why, why_len);
	derr = frame_starts(elf, ".debug_frame", false, &dstarts, &dn, dwhy, sizeof(dwhy));
	if (!derr) {
		dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
		dcfi = dw ? dwarf_getcfi(dw) : NULL;
		if (!dcfi) {
			if (dw)
				dwarf_end(dw);
			dw = NULL;
			free(dstarts);
			derr = -ENOENT;
		}
	}
	if (err == -ENOENT && !derr) {
		/* .debug_frame is all there is */
		starts = dstarts;
		n = dn;
		err = 0;
	} else if (!err && !derr) {
		__u64 *v = realloc(starts, (n + dn) * sizeof(*v));

		if (!v) {
			err = -ENOMEM;
			free(starts);
		} else {
			memcpy(v + n, dstarts, dn * sizeof(*v));
			starts = v;
			n += dn;
			qsort(starts, n, sizeof(*starts), cmp_u64);
		}
		free(dstarts);
	} else if (!derr) {
		free(dstarts);
	}
	if (err) {
		if (dw)
			dwarf_end(dw);
		return err;
	}
	why[0] = '\0';
	find_plt(elf, &b);
	cfi = dwarf_getcfi_elf(elf);
	if (!cfi && !dcfi) {
		snprintf(why, why_len, "no .eh_frame: %s", dwarf_errmsg(-1));
		free(starts);
		return -ENOENT;
	}
	for (size_t i = 0; i < n && !err; i++) {
		__u64 next = i + 1 < n ? starts[i + 1] : UINT64_MAX;
		__u64 pc = starts[i];
		struct unw_row r;

		if (i && starts[i] == starts[i - 1])
			continue;
		t->fdes++;
		for (unsigned int rows = 0; pc < next; rows++) {
			Dwarf_Frame *f;
			Dwarf_Addr lo, hi;
			bool sig;

			if (rows == UNW_MAX_ROWS_PER_FDE) {
				t->fallback++;	/* the rest: a gap row below */
				break;
			}
			if (!(++calls % 256) && timefmt__mono_ns() - t0 > UNW_BUILD_NS) {
				err = -ETIME;
				break;
			}

			if (pc > UINT32_MAX) {
				snprintf(why, why_len, "code above 4 GiB (0x%llx)",
					 (unsigned long long)pc);
				err = -ERANGE;
				break;
			}
			if ((!cfi || dwarf_cfi_addrframe(cfi, pc, &f)) &&
			    (!dcfi || dwarf_cfi_addrframe(dcfi, pc, &f)))
				break;
			dwarf_frame_info(f, &lo, &hi, &sig);
			frame_row(&b, f, pc, &r);
			free(f);
			if (r.kind == UNW_FP)
				t->fallback++;
			err = push_row(&b, &r);
			if (err || hi <= pc)
				break;
			pc = hi;
		}
		if (err)
			stop = pc;
		/* a gap before the next FDE (or after the last): no CFI there */
		if (!err && pc < next && pc <= UINT32_MAX) {
			memset(&r, 0, sizeof(r));
			r.pc = pc;
			r.kind = UNW_NONE;
			err = push_row(&b, &r);
			if (err)
				stop = pc;
		}
	}
	if (cfi)
		dwarf_cfi_end(cfi);
	if (dw)
		dwarf_end(dw);	/* and dcfi, which it owns */
	free(starts);
	if (err == -E2BIG || err == -ETIME) {
		/* the rows so far are right: keep them, frame pointers after */
		push_end(&b, stop);
		t->capped = true;
		if (err == -E2BIG)
			snprintf(why, why_len, "capped at %u rows", b.max);
		else
			snprintf(why, why_len, "stopped after %llu s at 0x%llx",
				 UNW_BUILD_NS / 1000000000ull, (unsigned long long)stop);
		return 0;
	}
	if (err) {
		if (err == -ENOMEM)
			snprintf(why, why_len, "out of memory");
		unw_table__free(t);
		return err;
	}
	if (!t->n) {
		snprintf(why, why_len, "no usable CFI");
		return -ENOENT;
	}
	return 0;
}

/* elf's table (NULL: not an ELF file), elf ended. */
static int build_from(Elf *elf, unsigned int max_rows, struct unw_table *t, char *why,
		      size_t why_len)
{
	int err;

	if (!elf) {
		snprintf(why, why_len, "not an ELF file: %s", elf_errmsg(-1));
		memset(t, 0, sizeof(*t));
		return -EINVAL;
	}
	err = build_elf(elf, max_rows, t, why, why_len);
	elf_end(elf);
	return err;
}

int unw_table__build(int fd, unsigned int max_rows, struct unw_table *t, char *why,
		     size_t why_len)
{
	elf_version(EV_CURRENT);
	return build_from(elf_begin(fd, ELF_C_READ_MMAP, NULL), max_rows, t, why, why_len);
}

int unw_table__build_mem(const void *buf, size_t len, unsigned int max_rows,
			 struct unw_table *t, char *why, size_t why_len)
{
	elf_version(EV_CURRENT);
	return build_from(elf_memory((char *)buf, len), max_rows, t, why, why_len);
}

void unw_table__free(struct unw_table *t)
{
	free(t->rows);
	t->rows = NULL;
	t->n = 0;
}

const struct unw_row *unw_table__find(const struct unw_table *t, __u64 pc)
{
	return SORTED_LAST_LE(t->rows, t->n, pc, pc);
}
