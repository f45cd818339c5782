// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "load/attach.h"
#include "load/light.h"
#include "run/msg.h"

/* The objects loaded here (a tool may load more than one: profile-lite --off-cpu). */
#define LIGHT_MAX_OBJS 4
static struct light_obj {
	const struct bpf_object *obj;
	int *prog_fds;		/* by program index in obj */
	int nr_prog_fds;
	int *link_fds;		/* what light__detach() closes */
	int nr_link_fds;
} loaded[LIGHT_MAX_OBJS];
static int nr_loaded;

static struct light_obj *find(const struct bpf_object *obj)
{
	for (int i = 0; i < nr_loaded; i++)
		if (loaded[i].obj == obj)
			return &loaded[i];
	return NULL;
}

bool light__loaded(const struct bpf_object *obj)
{
	return find(obj) != NULL;
}

void light__detach(const struct bpf_object *obj)
{
	struct light_obj *l = find(obj);

	while (l && l->nr_link_fds > 0)
		close(l->link_fds[--l->nr_link_fds]);
}

int light__prog_fd(const struct bpf_program *prog)
{
	struct bpf_program *p;

	for (int k = 0; k < nr_loaded; k++) {
		int i = 0;

		bpf_object__for_each_program(p, loaded[k].obj) {
			if (p == prog)
				return i < loaded[k].nr_prog_fds && loaded[k].prog_fds[i] > 0 ?
				       loaded[k].prog_fds[i] : -1;
			i++;
		}
	}
	return bpf_program__fd(prog);
}

/* Program slots the loader's context leaves for subprograms. */
#define LIGHT_SUBPROGS 512

/*
 * The loader's context (the ctx of its one run): this header, then per map
 * its fd (out), max_entries and initial value (in, unused here), then per
 * program its fd (out), in the order libbpf loads them. libbpf lays it out
 * by struct bpf_loader_ctx, bpf_map_desc and bpf_prog_desc of its
 * <bpf/skel_internal.h>, a header for generated light skeletons that it
 * says may change between versions; not included here. The three are the
 * same in every libbpf from 1.0 to 1.7 (read in libbpf's git); the build
 * links Debian 12's libbpf 1.1 statically (pkg-config libbpf: 1.1.2), and
 * another must be read again before the range below is widened.
 */
struct loader_ctx {
	__u32 sz;		/* of the whole context */
	__u32 flags;
	__u32 log_level;
	__u32 log_size;
	__u64 log_buf;
};
struct loader_map {
	int map_fd;
	__u32 max_entries;
	__u64 initial_value __attribute__((aligned(8)));
};
struct loader_prog {
	int prog_fd;
};
#define LOADER_CTX_KNOWN(major, minor) ((major) == 1 && (minor) <= 7)
#if !LOADER_CTX_KNOWN(LIBBPF_MAJOR_VERSION, LIBBPF_MINOR_VERSION)
#error "check struct loader_ctx, loader_map, loader_prog against this libbpf's skel_internal.h"
#endif
_Static_assert(sizeof(struct loader_ctx) == 24 && sizeof(struct loader_map) == 16 &&
	       sizeof(struct loader_prog) == 4, "the loader's context as libbpf 1.0-1.7 lays it out");

/*
 * Load the loader program (BPF_PROG_TYPE_SYSCALL, its data in an array
 * that is its fd_array[0]) and run it once on ctx, as a light skeleton's
 * bpf_load_and_run() does. 0, or -errno with *what set.
 */
static int load_and_run(const struct gen_loader_opts *g, struct loader_ctx *ctx,
			const char **what)
{
	LIBBPF_OPTS(bpf_prog_load_opts, lo, .prog_flags = BPF_F_SLEEPABLE);
	LIBBPF_OPTS(bpf_test_run_opts, ro, .ctx_in = ctx, .ctx_size_in = ctx->sz);
	int key = 0, map_fd, prog_fd = -1, err;

	*what = "create the loader's map";
	err = map_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "__loader.map", 4, g->data_sz, 1, NULL);
	if (map_fd < 0)
		return err;
	*what = "fill the loader's map";
	err = bpf_map_update_elem(map_fd, &key, g->data, 0);
	if (err)
		goto out;
	*what = "load the loader";
	lo.fd_array = &map_fd;
	err = prog_fd = bpf_prog_load(BPF_PROG_TYPE_SYSCALL, "__loader.prog", "Dual BSD/GPL",
				      (const struct bpf_insn *)g->insns,
				      g->insns_sz / sizeof(struct bpf_insn), &lo);
	if (prog_fd < 0)
		goto out;
	*what = "run the loader";
	err = bpf_prog_test_run_opts(prog_fd, &ro);
	if (!err && (int)ro.retval < 0)	/* the loader's own -errno */
		err = (int)ro.retval;
out:
	if (prog_fd >= 0)
		close(prog_fd);
	close(map_fd);
	return err;
}

/*
 * Whether fd is program p. The loader hands back its programs' fds in the
 * order libbpf loaded them, which is libbpf's business: each is checked.
 * The kernel keeps a name's first BPF_OBJ_NAME_LEN - 1 characters (and
 * gen_loader passes them: libbpf assumes the newest kernel when it writes
 * a loader), too few to tell sys_exit_openat from sys_exit_openat2 or
 * sched_process_exec_btf from sched_process_exit_btf; so the program's
 * first function in the kernel's func_info must also be p's function in
 * the object's BTF, which the loader loaded with the same type ids.
 */
static bool is_prog(int fd, const struct bpf_program *p, const struct btf *btf)
{
	const char *name = bpf_program__name(p);
	size_t n = strnlen(name, BPF_OBJ_NAME_LEN - 1);
	struct bpf_func_info fi = { 0 };
	struct bpf_prog_info info = {
		.nr_func_info = 1,
		.func_info_rec_size = sizeof(fi),
		.func_info = (unsigned long)&fi,
	};
	__u32 len = sizeof(info);
	int id = btf ? btf__find_by_name_kind(btf, name, BTF_KIND_FUNC) : -ENOENT;

	if (fd <= 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
		return false;
	if (info.type != bpf_program__type(p) || strncmp(info.name, name, n) || info.name[n])
		return false;
	return id < 0 || (info.nr_func_info > 0 && fi.type_id == (__u32)id);
}

/* Open the same embedded object again, with the tool's settings. */
static struct bpf_object *twin(const struct bpf_object_skeleton *s)
{
	LIBBPF_OPTS(bpf_object_open_opts, o, .object_name = s->name);
	struct bpf_object *obj = bpf_object__open_mem(s->data, s->data_sz, &o);
	struct bpf_program *p, *q;
	struct bpf_map *m, *n;
	const void *init;
	size_t sz;
	int err = 0;

	if (!obj)
		return NULL;
	q = bpf_object__next_program(obj, NULL);
	bpf_object__for_each_program(p, *s->obj) {
		if (!q)
			goto mismatch;
		bpf_program__set_autoload(q, bpf_program__autoload(p));
		q = bpf_object__next_program(obj, q);
	}
	n = bpf_object__next_map(obj, NULL);
	bpf_object__for_each_map(m, *s->obj) {
		if (!n || strcmp(bpf_map__name(m), bpf_map__name(n)))
			goto mismatch;
		init = bpf_map__initial_value(m, &sz);
		if (init)	/* rodata, bss, data: the tool's values */
			err = bpf_map__set_initial_value(n, init, sz);
		else
			err = bpf_map__set_max_entries(n, bpf_map__max_entries(m)) ?:
			      bpf_map__set_value_size(n, bpf_map__value_size(m)) ?:
			      bpf_map__set_key_size(n, bpf_map__key_size(m)) ?:
			      bpf_map__set_map_flags(n, bpf_map__map_flags(m));
		if (err)
			goto fail;
		n = bpf_object__next_map(obj, n);
	}
	if (!n)
		return obj;
mismatch:
	err = -EINVAL;
fail:
	bpf_object__close(obj);
	errno = -err;
	return NULL;
}

/* The id of tracepoint "cat/name" in tracefs. */
static int tracepoint_id(const char *tp)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char path[256], buf[32];
	int i, fd;
	ssize_t n;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/events/%s/id", roots[i], tp);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			return -EINVAL;
		buf[n] = 0;
		return atoi(buf);
	}
	return -ENOENT;
}

/* Attach a loaded program the way its section says; the link's fd or -errno. */
static int attach_one(const struct bpf_program *prog, int fd)
{
	const char *sec = bpf_program__section_name(prog);
	const char *tp = strchr(sec, '/');
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_TRACEPOINT,
				     .sample_period = 1, .wakeup_events = 1 };
	int id, pfd, lfd;

	if (!tp)
		return -EOPNOTSUPP;
	tp++;
	if (!strncmp(sec, "tp_btf/", 7))
		lfd = bpf_raw_tracepoint_open(NULL, fd);
	else if (!strncmp(sec, "raw_tp/", 7) || !strncmp(sec, "raw_tracepoint/", 15))
		lfd = bpf_raw_tracepoint_open(tp, fd);
	else if (!strncmp(sec, "tracepoint/", 11) || !strncmp(sec, "tp/", 3)) {
		id = tracepoint_id(tp);
		if (id < 0)
			return id;
		a.config = id;
		pfd = syscall(__NR_perf_event_open, &a, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
		if (pfd < 0)
			return -errno;
		lfd = bpf_link_create(fd, pfd, BPF_PERF_EVENT, NULL);
		if (lfd < 0 && (ioctl(pfd, PERF_EVENT_IOC_SET_BPF, fd) ||
				ioctl(pfd, PERF_EVENT_IOC_ENABLE, 0))) {
			lfd = -errno;
			close(pfd);
			return lfd;
		}
		if (lfd >= 0)
			close(pfd);	/* the link holds the event */
		else
			lfd = pfd;
		return lfd;
	} else
		return -EOPNOTSUPP;
	return lfd < 0 ? -errno : lfd;
}

/*
 * Map the kernel's global data arrays (rodata, bss, data) and point the
 * skeleton there. libbpf's own copies stay until the object is closed.
 */
static int map_data(struct bpf_object_skeleton *s, const int *map_fds,
		    const struct bpf_object *obj)
{
	long page = sysconf(_SC_PAGESIZE);
	void *addr[s->map_cnt];
	size_t sz[s->map_cnt];
	int i, err = 0;

	for (i = 0; i < s->map_cnt; i++) {
		const struct bpf_map *m = *s->maps[i].map;
		struct bpf_map *p;
		int j = 0;

		addr[i] = NULL;
		if (!s->maps[i].mmaped || !*s->maps[i].mmaped)
			continue;
		if (!(bpf_map__map_flags(m) & BPF_F_MMAPABLE)) {	/* as libbpf does */
			addr[i] = MAP_FAILED;
			continue;
		}
		bpf_object__for_each_map(p, obj) {
			if (p == m)
				break;
			j++;
		}
		sz[i] = ((bpf_map__value_size(m) + 7) / 8 * 8 * bpf_map__max_entries(m) +
			 page - 1) / page * page;
		addr[i] = mmap(NULL, sz[i], PROT_READ | (bpf_map__map_flags(m) & BPF_F_RDONLY_PROG ?
					       0 : PROT_WRITE), MAP_SHARED, map_fds[j], 0);
		if (addr[i] == MAP_FAILED) {
			addr[i] = NULL;
			err = -errno;
			msg__verbose("light loader: cannot map %s", bpf_map__name(m));
			break;
		}
	}
	for (i = 0; i < s->map_cnt; i++) {
		if (!addr[i])
			continue;
		if (addr[i] == MAP_FAILED)	/* not mappable: no pointer */
			*s->maps[i].mmaped = err ? *s->maps[i].mmaped : NULL;
		else if (err)
			munmap(addr[i], sz[i]);
		else
			*s->maps[i].mmaped = addr[i];
	}
	return err;
}

int light__load_attach(struct bpf_object_skeleton *s, bool raw, int (*then)(void *arg),
		       void *arg)
{
	struct bpf_object *gen, *obj = *s->obj;
	LIBBPF_OPTS(gen_loader_opts, g);
	struct loader_ctx *ctx = NULL;
	struct loader_map *maps = NULL;
	struct loader_prog *progs = NULL;
	struct bpf_program *p;
	struct bpf_map *m;
	int nr_maps = 0, nr_progs = 0, nr_slots = 0, *links = NULL, *fds = NULL, *pfds = NULL;
	int nl = 0, i, j, err;
	const char *what;
	size_t sz;

	if (nr_loaded == LIGHT_MAX_OBJS)
		return -E2BIG;
	if (!LOADER_CTX_KNOWN(libbpf_major_version(), libbpf_minor_version())) {
		msg__verbose("light loader: libbpf %s: its loader's context is not known here",
			     libbpf_version_string());
		return -EOPNOTSUPP;
	}
	attach__pick(obj, raw);
	bpf_object__for_each_map(m, obj)
		nr_maps++;
	bpf_object__for_each_program(p, obj)
		nr_progs++;

	gen = twin(s);
	if (!gen) {
		err = -errno;
		msg__verbose("light loader: cannot open the object: %s", strerror(-err));
		return err;
	}
	err = bpf_object__gen_loader(gen, &g) ?: bpf_object__load(gen);
	if (err) {
		msg__verbose("light loader: cannot generate the loader: %s", strerror(-err));
		goto out;
	}
	/* room for the subprograms too; the loader checks it has enough */
	nr_slots = nr_progs + LIGHT_SUBPROGS;
	sz = sizeof(*ctx) + nr_maps * sizeof(*maps) + nr_slots * sizeof(*progs);
	ctx = calloc(1, sz);
	links = calloc(nr_progs + 1, sizeof(int));
	fds = calloc(nr_maps + 1, sizeof(int));
	pfds = calloc(nr_progs + 1, sizeof(int));
	if (!ctx || !links || !fds || !pfds) {
		err = -ENOMEM;
		goto out;
	}
	ctx->sz = sz;
	maps = (void *)(ctx + 1);
	progs = (void *)(maps + nr_maps);
	err = load_and_run(&g, ctx, &what);
	if (err) {
		err = err < 0 ? err : -EINVAL;
		msg__verbose("light loader: cannot %s: %s", what, strerror(-err));
		goto out;
	}

	/* one fd for each program loaded, in the object's order, each checked */
	i = 0;
	j = 0;
	bpf_object__for_each_program(p, obj) {
		pfds[i] = -1;
		if (bpf_program__autoload(p)) {
			pfds[i] = j < nr_slots ? progs[j++].prog_fd : -1;
			if (!is_prog(pfds[i], p, bpf_object__btf(obj)))
				break;
		}
		i++;
	}
	if (i < nr_progs || (j < nr_slots && progs[j].prog_fd > 0)) {
		err = -EPROTO;
		if (i < nr_progs)
			msg__verbose("light loader: the loader's fd for %s is another program",
				     bpf_program__name(p));
		else
			msg__verbose("light loader: the loader loaded more programs than the object's");
		goto out;
	}
	for (i = 0; i < nr_maps; i++)
		fds[i] = maps[i].map_fd;
	err = map_data(s, fds, obj);
	if (err) {
		msg__verbose("light loader: cannot map global data: %s", strerror(-err));
		goto out;
	}
	/* from here on the tool's object owns the maps */
	i = 0;
	bpf_object__for_each_map(m, obj) {
		err = bpf_map__reuse_fd(m, maps[i].map_fd);
		if (err) {	/* short of fds: part of the object is the loader's now */
			msg__fail(err, "take over the BPF maps");
			err = LIGHT_FINAL;
			goto out;
		}
		close(maps[i].map_fd);
		maps[i++].map_fd = 0;
	}
	/* the maps filled before any program runs (bpf_map__fd() works from here) */
	if (then) {
		err = then(arg);
		if (err)
			goto out;
	}
	i = 0;
	bpf_object__for_each_program(p, obj) {
		/* perf_event programs are attached by the tool, to its own events */
		if (bpf_program__autoload(p) && bpf_program__autoattach(p) &&
		    bpf_program__type(p) != BPF_PROG_TYPE_PERF_EVENT) {
			int lfd = pfds[i] < 0 ? -ENOENT : attach_one(p, pfds[i]);

			if (lfd < 0) {
				err = lfd;
				msg__verbose("light loader: cannot attach %s: %s", bpf_program__name(p),
					     strerror(-err));
				goto out;
			}
			links[nl++] = lfd;
		}
		i++;
	}
	loaded[nr_loaded++] = (struct light_obj){
		.obj = obj,
		.prog_fds = pfds,
		.nr_prog_fds = nr_progs,
		.link_fds = links,
		.nr_link_fds = nl,
	};
	pfds = NULL;
	links = NULL;
	nl = 0;
	err = 0;
out:
	while (nl > 0)
		close(links[--nl]);
	if (err && maps) {	/* a step after the loader failed (a failed loader leaves no fds) */
		for (i = 0; i < nr_maps; i++)
			if (maps[i].map_fd > 0)
				close(maps[i].map_fd);
		for (i = 0; i < nr_slots; i++)
			if (progs[i].prog_fd > 0)
				close(progs[i].prog_fd);
	}
	free(links);
	free(fds);
	free(pfds);
	free(ctx);
	bpf_object__close(gen);
	return err;
}
