// SPDX-License-Identifier: GPL-2.0
/* Off-CPU time as a pprof profile, whole or as a delta (offcpu_pprof.h). */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "load/maps.h"
#include "offcputime/pprof.h"
#include "offcputime.h"
#include "serve/pprof.h"
#include "syms/python.h"
#include "syms/stacks.h"
#include "syms/unwind.h"

#define NAME_LEN 512

/* One process, comm and stack pair: a thread's keys summed (no tid). */
struct snap_ent {
	__u32 tgid;
	__s32 kern_stack_id, user_stack_id;
	__s32 py_stack_id;		/* --python; -EFAULT: none */
	char comm[OFFCPU_COMM_LEN];
	__u64 total_ns, count;
};

#define SNAP_KEY_LEN	(offsetof(struct snap_ent, comm) + OFFCPU_COMM_LEN)

struct offcpu_snap {
	struct snap_ent *e;
	size_t n;
	__s64 wall_ns, mono_ns;
};

static __s64 now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int cmp_ent(const void *a, const void *b)
{
	return memcmp(a, b, SNAP_KEY_LEN);
}

void offcpu_snap__free(struct offcpu_snap *s)
{
	if (!s)
		return;
	free(s->e);
	free(s);
}

struct offcpu_snap *offcpu_snap__take(const struct offcpu_src *src)
{
	struct offcpu_snap *s = calloc(1, sizeof(*s));
	struct offcpu_key *keys = NULL;
	struct offcpu_val v;
	__u32 n = 0, k;
	size_t i, o;
	int err;

	if (!s)
		return NULL;
	s->wall_ns = now_ns(CLOCK_REALTIME);
	s->mono_ns = now_ns(CLOCK_MONOTONIC);
	/*
	 * A walk, not a batch: nothing is deleted, and BPF adding keys meanwhile
	 * only decides whether their first events fall before or after it.
	 */
	err = map__keys(src->info_fd, sizeof(*keys), src->max_entries, (void **)&keys, &n);
	s->e = err ? NULL : calloc(n ? n : 1, sizeof(*s->e));
	if (!s->e) {
		free(keys);
		offcpu_snap__free(s);
		errno = err ? -err : ENOMEM;
		return NULL;
	}
	for (k = 0; k < n; k++) {
		if (bpf_map_lookup_elem(src->info_fd, &keys[k], &v))
			continue;	/* folded away since the walk */
		s->e[s->n].tgid = keys[k].tgid;
		s->e[s->n].kern_stack_id = keys[k].kern_stack_id;
		s->e[s->n].user_stack_id = keys[k].user_stack_id;
		s->e[s->n].py_stack_id = keys[k].py_stack_id;
		memcpy(s->e[s->n].comm, keys[k].comm, OFFCPU_COMM_LEN);
		s->e[s->n].total_ns = v.total_ns;
		s->e[s->n].count = v.count;
		s->n++;
	}
	free(keys);
	/* sum each process's threads: a fold moves counts between tids only */
	if (s->n)
		qsort(s->e, s->n, sizeof(*s->e), cmp_ent);
	for (i = 0, o = 0; i < s->n; i++) {
		if (o && !cmp_ent(&s->e[o - 1], &s->e[i])) {
			s->e[o - 1].total_ns += s->e[i].total_ns;
			s->e[o - 1].count += s->e[i].count;
		} else {
			s->e[o++] = s->e[i];
		}
	}
	s->n = o;
	return s;
}

/* end - since, per pair; what is unchanged is dropped. */
static void subtract(struct offcpu_snap *end, const struct offcpu_snap *since)
{
	size_t i, o = 0;

	for (i = 0; i < end->n; i++) {
		struct snap_ent *e = &end->e[i];
		const struct snap_ent *b = since && since->n ?
			bsearch(e, since->e, since->n, sizeof(*e), cmp_ent) : NULL;

		if (b) {
			/* below the start: counts lost to a full map meanwhile */
			e->total_ns = e->total_ns > b->total_ns ? e->total_ns - b->total_ns : 0;
			e->count = e->count > b->count ? e->count - b->count : 0;
		}
		if (e->count || e->total_ns)
			end->e[o++] = *e;
	}
	end->n = o;
}

struct render {
	const struct offcpu_src *src;
	struct pprof *p;
	struct stack_printer names;
	__u64 kmap;		/* the kernel's mapping id, made on first use */
	__u64 kstart, klimit;	/* its range */
	char kbuild_id[129];
	__u64 *ips, *locs, *tmp;
	__u64 *mips;		/* a stack merged with its Python frames */
	size_t nlocs, maxlocs;
};

static void add_loc(struct render *r, __u64 map, __u64 addr, const char *name)
{
	if (r->nlocs < r->maxlocs)
		r->locs[r->nlocs++] = pprof__location(r->p, map, addr, name);
}

static void kernel_frames(struct render *r, const struct snap_ent *e)
{
	char name[NAME_LEN];
	struct stack s;
	int i;

	unwinder__stack(r->src->unw, r->src->stacks_fd, e->kern_stack_id, r->ips, r->src->depth, &s);
	if (s.missed)
		add_loc(r, 0, 0, "[missed kernel stack]");
	for (i = 0; i < s.n; i++) {
		stacks__kernel_name(&r->names, s.ips[i], name, sizeof(name));
		if (stacks__is_bpf_frame(name))
			continue;
		/*
		 * After the first user mapping when there is one: pprof takes
		 * the first mapping for the main binary.
		 */
		if (!r->kmap)
			r->kmap = pprof__mapping(r->p, r->kstart, r->klimit, 0, "[kernel.kallsyms]",
						 r->kbuild_id[0] ? r->kbuild_id : NULL, true);
		add_loc(r, r->kmap, s.ips[i], name);
	}
}

static void user_frames(struct render *r, const struct snap_ent *e)
{
	struct usyms_module mod;
	char name[NAME_LEN];
	struct stack s;
	__u64 map;
	int i;

	unwinder__stack(r->src->unw, r->src->stacks_fd, e->user_stack_id, r->ips, r->src->depth, &s);
	if (s.missed)
		add_loc(r, 0, 0, "[missed user stack]");
	if (r->src->py && e->py_stack_id != -EFAULT)
		python__merge(r->src->py, r->src->usyms, e->tgid, e->py_stack_id, &s,
			      r->src->unw != NULL, r->mips, r->src->depth + PY_MERGED_EXTRA, &s);
	for (i = 0; i < s.n; i++) {
		if (python__is_frame(s.ips[i])) {
			/* a Python function: its file and lines in pprof's own fields */
			struct python_loc loc;

			python__loc(r->src->py, e->tgid, s.ips[i], &loc);
			if (r->nlocs < r->maxlocs)
				r->locs[r->nlocs++] = pprof__location_src(r->p, 0, 0, loc.func, loc.file,
									 loc.first_line, loc.line);
			continue;
		}
		stacks__user_name(&r->names, e->tgid, s.ips[i], name, sizeof(name));
		map = 0;
		if (r->src->usyms && !usyms__module(r->src->usyms, e->tgid, s.ips[i], &mod))
			map = pprof__mapping(r->p, mod.start, mod.end, mod.pgoff, mod.path,
					     mod.build_id[0] ? mod.build_id : NULL, true);
		add_loc(r, map, s.ips[i], name);
	}
}

/* The kernel frames' names and the range of their mapping (one for the kernel). */
static void kernel_symbols(struct render *r, const struct offcpu_snap *end)
{
	struct stack_addrs a = { 0 };
	size_t i;
	__s32 *ids;

	ids = malloc((end->n ? end->n : 1) * sizeof(*ids));
	if (!ids)
		return;
	for (i = 0; i < end->n; i++)
		ids[i] = end->e[i].kern_stack_id;
	unwinder__stack_addrs(r->src->unw, r->src->stacks_fd, ids, end->n, r->src->depth, &a);
	free(ids);
	if (a.n) {
		r->kstart = r->klimit = a.v[0];
		for (i = 0; i < a.n; i++) {
			if (a.v[i] < r->kstart)
				r->kstart = a.v[i];
			if (a.v[i] >= r->klimit)
				r->klimit = a.v[i] + 1;
		}
		/* only the names this profile needs: a few KiB, not all of kallsyms */
		r->names.ksyms = ksyms__load_for(a.v, a.n);
		ksyms__build_id(r->kbuild_id, sizeof(r->kbuild_id));
	}
	free(a.v);
}

/* v[0..k) v[k..n) -> v[k..n) v[0..k), through tmp (n entries) */
static void rotate(__u64 *v, size_t k, size_t n, __u64 *tmp)
{
	memcpy(tmp, v, k * sizeof(*v));
	memmove(v, v + k, (n - k) * sizeof(*v));
	memcpy(v + n - k, tmp, k * sizeof(*v));
}

int offcpu_pprof__render(const struct offcpu_src *src, const struct offcpu_snap *since,
			 void **buf, size_t *len)
{
	struct render r = { .src = src };
	struct offcpu_snap *end;
	int err = -ENOMEM;
	size_t i;

	*buf = NULL;
	*len = 0;
	end = offcpu_snap__take(src);
	if (!end)
		return -errno;
	subtract(end, since);
	r.p = pprof__new();
	r.maxlocs = 2 * (size_t)src->depth + 2 + PY_MERGED_EXTRA;
	r.ips = calloc(src->depth > 0 ? src->depth : 1, sizeof(*r.ips));
	r.mips = calloc(src->depth + PY_MERGED_EXTRA, sizeof(*r.mips));
	r.locs = calloc(r.maxlocs, sizeof(*r.locs));
	r.tmp = calloc(r.maxlocs, sizeof(*r.tmp));
	if (!r.p || !r.ips || !r.mips || !r.locs || !r.tmp)
		goto out;
	r.names.usyms = src->usyms;
	r.names.py = src->py;
	pprof__sample_type(r.p, "samples", "count");
	pprof__sample_type(r.p, "off_cpu", "nanoseconds");
	pprof__default_sample_type(r.p, "off_cpu");
	pprof__period(r.p, "off_cpu", "nanoseconds", 1);
	if (since)
		pprof__time(r.p, since->wall_ns, end->mono_ns - since->mono_ns);
	else
		pprof__time(r.p, end->wall_ns, 0);
	if (src->kernel_stacks)
		kernel_symbols(&r, end);
	for (i = 0; i < end->n; i++) {
		const struct snap_ent *e = &end->e[i];
		__s64 values[2] = { e->count, e->total_ns };
		struct pprof_label comm = {
			.key = "comm", .str = e->comm, .str_len = strnlen(e->comm, OFFCPU_COMM_LEN),
		};

		size_t nuser;

		/*
		 * Leaf first: the kernel stack sits on top of the user stack.
		 * The user frames are added first (their mappings before the
		 * kernel's), then moved behind the kernel's.
		 */
		r.nlocs = 0;
		if (src->user_stacks)
			user_frames(&r, e);
		nuser = r.nlocs;
		if (src->kernel_stacks)
			kernel_frames(&r, e);
		rotate(r.locs, nuser, r.nlocs, r.tmp);
		if (pprof__sample(r.p, r.locs, r.nlocs, values, 2, &comm, 1))
			goto out;
	}
	err = pprof__gzip(r.p, buf, len);
out:
	ksyms__free(r.names.ksyms);
	free(r.ips);
	free(r.mips);
	free(r.locs);
	free(r.tmp);
	pprof__free(r.p);
	offcpu_snap__free(end);
	return err;
}

int offcpu_pprof__write(const struct offcpu_src *src, const struct offcpu_snap *since, int fd)
{
	size_t len, off = 0;
	ssize_t n;
	void *buf;
	int err;

	err = offcpu_pprof__render(src, since, &buf, &len);
	while (!err && off < len) {
		n = write(fd, (char *)buf + off, len - off);
		if (n < 0 && errno != EINTR)
			err = -errno;
		else if (n > 0)
			off += n;
	}
	free(buf);
	return err;
}
