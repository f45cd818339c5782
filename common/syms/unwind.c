// SPDX-License-Identifier: GPL-2.0
/*
 * Unwinding tables into BPF maps (unwind.h). Files are opened as the
 * symbolizer opens them: /proc/PID/map_files (the very file mapped, even
 * deleted or in another mount namespace) through safeopen.
 */
#include <errno.h>
#include <limits.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "load/maps.h"
#include "out/esc.h"
#include "run/msg.h"
#include "run/timefmt.h"
#include "run/opts.h"
#include "syms/procsnap.h"
#include "syms/python.h"
#include "syms/safeopen.h"
#include "syms/stacks.h"
#include "syms/syms.h"
#include "syms/unwind.h"
#include "syms/unwind_tables.h"

struct unw_file {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	struct unw_table t;
	int err;		/* the build's result */
	char why[96];
	__u32 row_base;		/* in unw_rows; UNW_NO_TABLE until pushed */
	char path[256];		/* as named in /proc/PID/maps, escaped for messages */
	bool said;		/* -v named its fallback once */
};

/*
 * One process's mappings as user space builds them, before unw_maps:
 * every executable one, those without a table too (anonymous JIT code, the
 * vDSO, a file without .eh_frame): BPF walks them by frame pointers, and
 * tells a walk that ends in code of no file (cut short) from one that ends
 * in a file's.
 */
#define UNW_SEEN_MAPS	(4 * UNW_MAX_MAPS)

struct maplist {
	__u32 nr;
	struct unw_map maps[UNW_SEEN_MAPS];
};

static void maplist_add(struct maplist *p, __u64 start, __u64 end, __u64 adj,
			__u32 base, __u32 count)
{
	struct unw_map *m;

	if (p->nr == UNW_SEEN_MAPS)
		return;
	m = &p->maps[p->nr++];
	m->start = start;
	m->end = end;
	m->adj = adj;
	m->row_base = base;
	m->row_count = count;
}

/*
 * To UNW_MAX_MAPS: the mappings without a table go first (a pc in none
 * takes a frame-pointer step as theirs do), then tables from the highest
 * address (frame pointers there). Order is kept.
 */
static void maplist_trim(struct maplist *p, pid_t pid, bool verbose)
{
	__u32 over = p->nr > UNW_MAX_MAPS ? p->nr - UNW_MAX_MAPS : 0, n = 0;

	for (__u32 i = p->nr; over && i-- > 0;)
		if (p->maps[i].row_base == UNW_NO_TABLE) {
			p->maps[i].row_count = UINT32_MAX;	/* dropped */
			over--;
		}
	for (__u32 i = p->nr; over && i-- > 0;)
		if (p->maps[i].row_count != UINT32_MAX) {
			p->maps[i].row_count = UINT32_MAX;
			over--;
			if (verbose)
				msg__verbose("unwind: pid %d: more than %d executable mappings, frame pointers from 0x%llx",
					     pid, UNW_MAX_MAPS, (unsigned long long)p->maps[i].start);
		}
	for (__u32 i = 0; i < p->nr; i++)
		if (p->maps[i].row_count != UINT32_MAX)
			p->maps[n++] = p->maps[i];
	p->nr = n;
}

struct unwinder {
	struct unw_file *files;
	size_t nfiles, cap;
	struct { pid_t tgid; __u32 slot; } *slots;	/* unw_maps' slots in use */
	__u32 *free_slots, nfree;
	pid_t *queue;			/* processes to add, from unwinder__queue() */
	__u32 nqueue;
	__u32 nslots, slots_cap;
	int rows_fd, maps_fd, procs_fd, stacks_fd, remap_fd;
	struct usyms *usyms;		/* told of a process's new mappings */
	unsigned long long remap_at;	/* unw_remap last read */
	__u32 rows_cap, rows_used;
	__u32 stacks_cap;		/* unw_stacks' size */
	pid_t pid;			/* -p/-t's process, 0: system-wide */
	bool verbose, rows_full_said;
	unsigned long long build_ns;
	long long budget_ns;		/* unwinder__drain()'s, refilled ... */
	unsigned long long budget_at;	/* ... by elapsed time since */
};

static const struct safeopen map_files_open = {
	.min_size = 52,
	.max_size = 16ll << 30,
	.follow = true,
};

enum unw_mode unwinder__choose(enum unw_mode mode, int prog_type)
{
	/* bpf_loop() is 5.17, bpf_task_pt_regs() 5.15 */
	if (mode == UNW_MODE_FP ||
	    (libbpf_probe_bpf_helper(prog_type, BPF_FUNC_loop, NULL) == 1 &&
	     libbpf_probe_bpf_helper(prog_type, BPF_FUNC_task_pt_regs, NULL) == 1))
		return mode;
	/* before 5.17: the kernel's frame-pointer walk */
	if (mode == UNW_MODE_DWARF)
		msg__warn("--unwind dwarf needs bpf_loop() (Linux 5.17): frame pointers");
	else
		msg__verbose("unwind: frame pointers (no bpf_loop() before Linux 5.17)");
	return UNW_MODE_FP;
}

enum unw_mode unwinder__mode(const char *arg)
{
	if (!strcmp(arg, "fp"))
		return UNW_MODE_FP;
	if (!strcmp(arg, "auto"))
		return UNW_MODE_AUTO;
	if (!strcmp(arg, "dwarf"))
		return UNW_MODE_DWARF;
	msg__usage("--unwind: auto, dwarf or fp, not '%s'", arg);
}

static struct unwinder *unwinder__new(bool verbose)
{
	struct unwinder *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->verbose = verbose;
	u->rows_fd = u->maps_fd = u->procs_fd = u->stacks_fd = u->remap_fd = -1;
	return u;
}

void unwinder__free(struct unwinder *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->nfiles; i++) {
		unw_table__free(&u->files[i].t);
	}
	free(u->files);
	free(u->slots);
	free(u->free_slots);
	free(u->queue);
	free(u);
}

/* The table of the file open at fd: found by identity, else built. */
static struct unw_file *file_table(struct unwinder *u, int fd, const char *path)
{
	struct unw_file *f;
	struct stat st;
	unsigned long long t0;

	if (fstat(fd, &st))
		return NULL;
	for (size_t i = 0; i < u->nfiles; i++) {
		f = &u->files[i];
		if (f->dev == st.st_dev && f->ino == st.st_ino && f->size == st.st_size &&
		    f->mtime.tv_sec == st.st_mtim.tv_sec && f->mtime.tv_nsec == st.st_mtim.tv_nsec)
			return f;
	}
	if (u->nfiles == u->cap) {
		size_t cap = u->cap ? u->cap * 2 : 32;
		struct unw_file *q = realloc(u->files, cap * sizeof(*q));

		if (!q)
			return NULL;
		u->files = q;
		u->cap = cap;
	}
	f = &u->files[u->nfiles++];
	memset(f, 0, sizeof(*f));
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	f->size = st.st_size;
	f->mtime = st.st_mtim;
	f->row_base = UNW_NO_TABLE;
	/* the name other users chose, as a terminal may show it */
	path = esc__cstr(f->path, sizeof(f->path), path, 0);
	t0 = timefmt__mono_ns();
	f->err = unw_table__build(fd, 0, &f->t, f->why, sizeof(f->why));
	u->build_ns += timefmt__mono_ns() - t0;
	if (f->t.capped)
		msg__warn("unwinding table of %s capped at %u rows: frame pointers past them",
			  path, f->t.n);
	else if (f->err && f->err != -ENOENT)
		msg__warn("cannot unwind %s by its .eh_frame (%s): frame pointers there",
			  path, f->why);
	else if (f->err && u->verbose)
		msg__verbose("unwind: %s: frame pointers (%s)", path, f->why);
	return f;
}

/* Copy a table into unw_rows, once. */
static int push_table(struct unwinder *u, struct unw_file *f)
{
	__u32 n = f->t.n, *keys;
	int err = 0;

	if (f->row_base != UNW_NO_TABLE || f->err || !n)
		return f->err ?: (n ? 0 : -ENOENT);
	if (u->rows_fd < 0)
		return 0;
	if (n > u->rows_cap - u->rows_used) {
		if (!u->rows_full_said)
			msg__warn("unwinding tables full (%u rows): frame pointers for %s and later files",
				  u->rows_cap, f->path);
		u->rows_full_said = true;
		return -ENOSPC;
	}
	keys = malloc(n * sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	for (__u32 i = 0; i < n; i++)
		keys[i] = u->rows_used + i;
	{
		LIBBPF_OPTS(bpf_map_batch_opts, o);
		__u32 cnt = n;

		if (bpf_map_update_batch(u->rows_fd, keys, f->t.rows, &cnt, &o)) {
			/* no batch ops (before 5.6): one by one */
			for (__u32 i = 0; i < n && !err; i++)
				if (bpf_map_update_elem(u->rows_fd, &keys[i], &f->t.rows[i], 0))
					err = -errno;
		}
	}
	free(keys);
	if (err)
		return err;
	f->row_base = u->rows_used;
	u->rows_used += n;
	return 0;
}

/* The map's adjustment: file vaddr = pc - adj, from the PT_LOAD holding off. */
static bool map_adj(const struct unw_table *t, __u64 start, __u64 off, __u64 *adj)
{
	for (unsigned int i = 0; i < t->nload; i++) {
		const struct unw_load *l = &t->load[i];
		__u64 lo = l->off & ~4095ull;

		if (off >= lo && off < l->off + l->filesz) {
			*adj = start - off + l->off - l->vaddr;
			return true;
		}
	}
	return false;
}

/* The mappings' list of one process, from /proc/PID/maps. */
static int build_proc(struct unwinder *u, pid_t pid, struct maplist *p)
{
	char path[64], line[4096];
	FILE *maps;

	memset(p, 0, sizeof(*p));
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	maps = fopen(path, "re");
	if (!maps)
		return -errno;
	while (fgets(line, sizeof(line), maps)) {
		unsigned long long start, end, off, ino;
		char perms[8], file[4096] = "";
		struct unw_file *f;
		__u64 adj;
		int fd, n = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %llu %n", &start, &end, perms, &off,
			   &ino, &n) < 5)
			continue;
		if (perms[2] != 'x')
			continue;
		if (!ino) {
			maplist_add(p, start, end, 0, UNW_NO_TABLE, UNW_ANON);
			continue;
		}
		if (n > 0) {
			snprintf(file, sizeof(file), "%s", line + n);
			file[strcspn(file, "\n")] = '\0';
		}
		snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", pid, start, end);
		fd = safeopen(-1, path, &map_files_open);
		f = fd < 0 ? NULL : file_table(u, fd, file);
		if (fd >= 0)
			close(fd);
		if (!f || f->err) {
			maplist_add(p, start, end, 0, UNW_NO_TABLE, 0);
			continue;
		}
		if (push_table(u, f)) {
			if (!f->said)
				msg__verbose("unwind: %s: frame pointers (its table is not in BPF)",
					     f->path);
			f->said = true;
			maplist_add(p, start, end, 0, UNW_NO_TABLE, 0);
			continue;
		}
		if (!map_adj(&f->t, start, off, &adj)) {
			msg__verbose("unwind: %s: frame pointers (offset 0x%llx in no executable segment)",
				     f->path, off);
			maplist_add(p, start, end, 0, UNW_NO_TABLE, 0);
			continue;
		}
		maplist_add(p, start, end, adj, f->row_base, f->t.n);
	}
	fclose(maps);
	maplist_trim(p, pid, u->verbose);
	return 0;
}

/*
 * The maps' sizes: with pid, the rows of its files' tables and a quarter
 * more for what it dlopens later, UNW_ROWS_DEFAULT at least (a wrapper
 * shell execs the program: the tables of files not mapped yet, python3.11
 * and its libraries 100 Ki rows), lists for a few processes (its
 * children); system-wide, UNW_ROWS_DEFAULT rows and UNW_PROCS_DEFAULT
 * lists. Stacks in parts of 16 frames: two a stack on
 * average (a kernel and a user stack, each 10-30 deep).
 */
static unsigned int size_maps(struct unwinder *u, const struct unw_bpf_maps *m, pid_t pid,
			      unsigned int nstacks)
{
	unsigned int need = 0, nprocs = UNW_PROCS_DEFAULT;
	struct maplist *p;

	if (pid && (p = malloc(sizeof(*p)))) {
		build_proc(u, pid, p);
		free(p);
	}
	if (pid) {
		for (size_t i = 0; i < u->nfiles; i++)
			if (!u->files[i].err)
				need += u->files[i].t.n;
		need += need / 4;
		if (need < UNW_ROWS_DEFAULT)
			need = UNW_ROWS_DEFAULT;
		nprocs = 8;
	} else {
		need = UNW_ROWS_DEFAULT;
	}
	u->rows_cap = need;
	u->slots_cap = nprocs;
	bpf_map__set_max_entries(m->rows, need);
	bpf_map__set_max_entries(m->maps, nprocs * UNW_MAX_MAPS);
	bpf_map__set_max_entries(m->procs, nprocs);
	u->stacks_cap = 2 * (nstacks ? nstacks : UNW_STACKS_DEFAULT);
	bpf_map__set_max_entries(m->stacks, u->stacks_cap);
	return need;
}

enum unw_mode unwinder__start(const struct unw_start *s, const struct unw_bpf_maps *m,
			      struct unwinder **u)
{
	enum unw_mode mode = unwinder__choose(s->mode, s->prog_type);

	*u = NULL;
	if (mode == UNW_MODE_FP)
		return mode;
	*u = unwinder__new(env.verbose);
	if (!*u) {
		msg__fail(-ENOMEM, "set up the unwinder");
		return mode;
	}
	*m->tables = true;
	(*u)->pid = env.pid ? env.pid : env.tid ? unwinder__tgid(env.tid) : 0;
	*m->nrows = size_maps(*u, m, (*u)->pid, s->nstacks);
	if (m->fp_stacks)	/* a tool whose stack map holds its kernel stacks keeps it */
		bpf_map__set_max_entries(m->fp_stacks, 1);
	/* a stack is stored whole, and printed so unless asked */
	if (!s->depth_set)
		*s->depth = UNW_MAX_FRAMES;
	return mode;
}

void unwinder__attach(struct unwinder *u, const struct unw_bpf_maps *m)
{
	if (!u)
		return;
	/* maps of a second load (a loader's retry): nothing is in them yet */
	if (u->rows_fd >= 0) {
		for (size_t i = 0; i < u->nfiles; i++)
			u->files[i].row_base = UNW_NO_TABLE;
		u->rows_used = 0;
		free(u->slots);
		free(u->free_slots);
		u->slots = NULL;
		u->free_slots = NULL;
		u->nslots = u->nfree = 0;
	}
	u->rows_fd = bpf_map__fd(m->rows);
	u->maps_fd = bpf_map__fd(m->maps);
	u->procs_fd = bpf_map__fd(m->procs);
	u->stacks_fd = bpf_map__fd(m->stacks);
	u->remap_fd = bpf_map__fd(m->remap);
	if (u->pid)
		unwinder__add_pid(u, u->pid);
}

int unwinder__share(struct unwinder *u, const struct unw_bpf_maps *m)
{
	if (!u)
		return 0;

	struct { struct bpf_map *map; int fd; } maps[] = {
		{ m->rows, u->rows_fd }, { m->maps, u->maps_fd }, { m->procs, u->procs_fd },
		{ m->stacks, u->stacks_fd }, { m->remap, u->remap_fd },
	};

	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++) {
		/* u's fds are its loaded maps' (after unwinder__attach()) */
		int err = map__share(maps[i].map, maps[i].fd, "unwinding");

		if (err)
			return err;
	}
	*m->tables = true;
	*m->nrows = u->rows_cap;
	if (m->fp_stacks)
		bpf_map__set_max_entries(m->fp_stacks, 1);
	msg__verbose("unwind: a second BPF object walks by the same tables into the same stack storage");
	return 0;
}

/*
 * Slots of processes that have exited, taken back: their unw_procs entry
 * goes (a new process reusing the tgid is added again when BPF first sees
 * it). 0 or the number reclaimed.
 */
static __u32 reclaim_slots(struct unwinder *u)
{
	__u32 n = 0, i = 0;
	char path[32];

	while (i < u->nslots) {
		__u32 key = u->slots[i].tgid;

		snprintf(path, sizeof(path), "/proc/%d", u->slots[i].tgid);
		if (!access(path, F_OK)) {
			i++;
			continue;
		}
		bpf_map_delete_elem(u->procs_fd, &key);
		u->free_slots[u->nfree++] = u->slots[i].slot;
		u->slots[i] = u->slots[--u->nslots];
		n++;
	}
	return n;
}

/*
 * The slot of tgid in unw_maps: a new one, or -ENOSPC. A process that has
 * one gets another while one is free (*old: the slot to free once its
 * entry names the new one, or UINT32_MAX): BPF may be walking the old list.
 */
static int proc_slot(struct unwinder *u, pid_t tgid, __u32 *slot, __u32 *old)
{
	*old = UINT32_MAX;
	for (__u32 i = 0; i < u->nslots; i++)
		if (u->slots[i].tgid == tgid) {
			*slot = u->slots[i].slot;
			if (u->nfree) {
				*old = *slot;
				*slot = u->slots[i].slot = u->free_slots[--u->nfree];
			}
			return 0;
		}
	if (!u->slots) {
		u->slots = calloc(u->slots_cap, sizeof(*u->slots));
		u->free_slots = calloc(u->slots_cap, sizeof(*u->free_slots));
		if (!u->slots || !u->free_slots)
			return -ENOMEM;
		/* every slot free, the lowest first */
		for (__u32 i = 0; i < u->slots_cap; i++)
			u->free_slots[i] = u->slots_cap - 1 - i;
		u->nfree = u->slots_cap;
	}
	if (!u->nfree && !reclaim_slots(u))
		return -ENOSPC;
	u->slots[u->nslots].tgid = tgid;
	u->slots[u->nslots].slot = u->free_slots[--u->nfree];
	*slot = u->slots[u->nslots++].slot;
	return 0;
}

int unwinder__add_pid(struct unwinder *u, pid_t pid)
{
	struct maplist *p = malloc(sizeof(*p));
	struct unw_proc proc = { 0 };
	__u32 key = pid, old = UINT32_MAX;
	int err;

	if (!p)
		return -ENOMEM;
	err = build_proc(u, pid, p);
	if (!err && p->nr) {
		err = proc_slot(u, pid, &proc.slot, &old);
		if (err == -ENOSPC)
			msg__verbose("unwind: pid %d: all %u process slots taken, frame pointers",
				     pid, u->slots_cap);
	}
	/* the mappings first: BPF finds the process only once they are there */
	for (__u32 i = 0; !err && i < p->nr; i++) {
		__u32 k = proc.slot * UNW_MAX_MAPS + i;

		if (bpf_map_update_elem(u->maps_fd, &k, &p->maps[i], BPF_ANY))
			err = -errno;
	}
	proc.nr = p->nr;
	if (!err && p->nr && bpf_map_update_elem(u->procs_fd, &key, &proc, BPF_ANY))
		err = -errno;
	if (old != UINT32_MAX) {
		/* the entry names the new list now, or failed to: the old slot goes */
		if (err)
			for (__u32 i = 0; i < u->nslots; i++)
				if (u->slots[i].tgid == pid)
					u->slots[i].slot = old, old = proc.slot;
		u->free_slots[u->nfree++] = old;
	}
	free(p);
	return err;
}

#define UNW_QUEUE	4096

/*
 * Read again even when BPF holds a list (-p's at start): an announcement
 * comes once per process and program, and a list read just before an exec
 * and pushed just after it (the exec's hook deleted the old one between)
 * is the old program's; the new program's first sample announces it, and
 * this read puts it right within a poll. The files' tables are built once.
 */
void unwinder__queue(struct unwinder *u, pid_t tgid)
{
	if (!u->queue && !(u->queue = calloc(UNW_QUEUE, sizeof(*u->queue))))
		return;
	for (__u32 i = 0; i < u->nqueue; i++)
		if (u->queue[i] == tgid)
			return;
	/* full: the process stays on frame pointers (counted by BPF as no_proc) */
	if (u->nqueue < UNW_QUEUE)
		u->queue[u->nqueue++] = tgid;
}

void unwinder__symbolizer(struct unwinder *u, struct usyms *usyms)
{
	if (u)
		u->usyms = usyms;
}

/*
 * Processes whose walk met code mapped after their list was built (a
 * library dlopen()ed since, unw_remap): queued to be built again, their
 * symbols read again too (the library's names stay if the process exits
 * before the report). Read every 250 ms at most: a process that maps new
 * code all the time (a JIT's anonymous code is listed, but a loader of
 * plugins) costs a rebuild of its list four times a second at most, and
 * the files it already had are not built again. BPF asks again until the
 * new list is in; the queue holds a process once.
 */
#define UNW_REMAP_NS	250000000ull

static void take_remaps(struct unwinder *u)
{
	unsigned long long now;
	__u32 *keys, n;

	if (u->remap_fd < 0)
		return;
	now = timefmt__mono_ns();
	if (now - u->remap_at < UNW_REMAP_NS)
		return;
	u->remap_at = now;
	/* keys first: a deletion restarts a walk */
	if (map__keys(u->remap_fd, sizeof(*keys), UNW_REMAP_ENTRIES, (void **)&keys, &n))
		return;
	for (__u32 i = 0; i < n; i++) {
		bpf_map_delete_elem(u->remap_fd, &keys[i]);
		if (u->usyms)
			usyms__refresh(u->usyms, keys[i]);
		if (u->verbose)
			msg__verbose("unwind: pid %u mapped code since its list was built: built again",
				     keys[i]);
		unwinder__queue(u, keys[i]);
	}
	free(keys);
}

/*
 * About a fifth of the time goes to building tables, in bursts of 20 ms:
 * a storm of new processes with new files (a build, a fork bomb) cannot
 * stall the tool. Only building is charged: a process whose files are
 * known (most of them: libc, the shell) is added within a poll of its
 * first sample. One file is never cut short: a burst that ran over (a
 * big library's table, hundreds of ms under emulation) delays the next
 * by 100 ms at most.
 */
#define UNW_DRAIN_BURST_NS	20000000ll
#define UNW_DRAIN_SHARE		5

void unwinder__drain(struct unwinder *u)
{
	unsigned long long now, built;
	__u32 i = 0;

	if (!u)
		return;
	take_remaps(u);
	if (!u->nqueue)
		return;
	now = timefmt__mono_ns();
	if (!u->budget_at)
		u->budget_ns = UNW_DRAIN_BURST_NS;
	else
		u->budget_ns += (now - u->budget_at) / UNW_DRAIN_SHARE;
	if (u->budget_ns > UNW_DRAIN_BURST_NS)
		u->budget_ns = UNW_DRAIN_BURST_NS;
	u->budget_at = now;
	while (i < u->nqueue && u->budget_ns > 0) {
		built = u->build_ns;
		unwinder__add_pid(u, u->queue[i++]);
		u->budget_ns -= u->build_ns - built;
	}
	if (u->budget_ns < -UNW_DRAIN_BURST_NS)
		u->budget_ns = -UNW_DRAIN_BURST_NS;
	memmove(u->queue, u->queue + i, (u->nqueue - i) * sizeof(*u->queue));
	u->nqueue -= i;
}

int unwinder__procsnap_event(void *ctx, void *data, size_t len)
{
	struct unw_procsnap *ps = ctx;

	if (ps->u && len >= sizeof(__u32))
		unwinder__queue(ps->u, *(const __u32 *)data);
	if (ps->py && len >= sizeof(__u32))
		python__queue(ps->py, *(const __u32 *)data);
	return procsnap__event(ps->usyms, data, len);
}

void unwinder__procsnap_pid(const struct unw_procsnap *ps, pid_t pid)
{
	if (!pid)
		return;
	if (ps->usyms)
		usyms__snapshot(ps->usyms, pid);
	if (ps->py)
		python__add_pid(ps->py, pid);
}

int unwinder__read(struct unwinder *u, __s32 id, __u64 *ips, int max, struct stack *s)
{
	struct unw_part_key k = { .id = id };
	struct unw_part v;
	__u32 np = 1;
	__u64 hash = 0;
	int n = 0;

	if (!stacks__begin(s, id, ips))
		return 0;
	for (k.part = 0; k.part < np; k.part++) {
		if (bpf_map_lookup_elem(u->stacks_fd, &k, &v) ||
		    (k.part && v.hash != hash)) {
			/* gone, or a part of another stack: no frames rather than wrong ones */
			s->n = 0;
			s->missed = true;
			return k.part ? -ESTALE : -errno;
		}
		if (!k.part) {
			hash = v.hash;
			np = v.nparts >= 1 && v.nparts <= UNW_MAX_PARTS ? v.nparts : 1;
		}
		for (int i = 0; i < UNW_PART_FRAMES && v.ips[i] && n < max && n < UNW_MAX_FRAMES; i++)
			ips[n++] = v.ips[i];
	}
	s->n = n;
	return 0;
}

static int cmp_id(const void *a, const void *b)
{
	__s32 x = *(const __s32 *)a, y = *(const __s32 *)b;

	return x < y ? -1 : x > y;
}

int unwinder__addrs(struct unwinder *u, __s32 *ids, size_t n, struct stack_addrs *a)
{
	__u64 ips[UNW_MAX_FRAMES];
	struct stack s;
	int err = 0;

	qsort(ids, n, sizeof(*ids), cmp_id);
	for (size_t i = 0; i < n && !err; i++) {
		if (ids[i] < 0 || (i && ids[i] == ids[i - 1]) ||
		    unwinder__read(u, ids[i], ips, UNW_MAX_FRAMES, &s) || !s.n)
			continue;
		err = stacks__addrs_add(a, &s);
	}
	return err;
}

int unwinder__stack(struct unwinder *u, int map_fd, __s32 id, __u64 *ips, int max,
		    struct stack *s)
{
	return u ? unwinder__read(u, id, ips, max, s) : stacks__read(map_fd, id, ips, max, s);
}

int unwinder__stack_addrs(struct unwinder *u, int map_fd, __s32 *ids, size_t n, int depth,
			  struct stack_addrs *a)
{
	return u ? unwinder__addrs(u, ids, n, a) : stacks__addrs(map_fd, ids, n, depth, a);
}

void unwinder__report(struct unwinder *u, const struct unw_counts *c)
{
	size_t tables = 0, fallback = 0;

	for (size_t i = 0; i < u->nfiles; i++) {
		if (u->files[i].row_base != UNW_NO_TABLE)
			tables++;
		else
			fallback++;
	}
	msg__verbose("unwind: %zu tables, %u of %u rows in BPF (%zu KiB of %zu KiB), %zu files by frame pointers; built in %llu ms",
		  tables, u->rows_used, u->rows_cap,
		  (size_t)u->rows_used * sizeof(struct unw_row) >> 10,
		  (size_t)u->rows_cap * sizeof(struct unw_row) >> 10, fallback,
		  u->build_ns / 1000000);
	msg__verbose("unwind: %llu stacks: %llu frames by tables, %llu by frame pointers, %llu truncated, %llu stopped early, %llu through code mapped since their list, %llu before their tables; %llu collisions, %llu dropped",
		     (unsigned long long)c->stacks, (unsigned long long)c->dwarf_frames,
		     (unsigned long long)c->fp_frames, (unsigned long long)c->truncated,
		     (unsigned long long)c->errors, (unsigned long long)c->unlisted,
		     (unsigned long long)c->no_proc,
		     (unsigned long long)c->collisions, (unsigned long long)c->dropped);
	msg__verbose("unwind: stack storage: %llu of %u parts in use",
		     (unsigned long long)c->stored, u->stacks_cap);
}

pid_t unwinder__tgid(pid_t tid)
{
	char path[64], line[128];
	pid_t tgid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

