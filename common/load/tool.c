// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "load/light.h"
#include "run/loss.h"
#include "run/timefmt.h"
#include "load/tool.h"

int tool__open_opts(struct bpf_object_open_opts *o)
{
	return attach__open_opts(o, env.btf_path);
}

void tool__open_failed(int err)
{
	msg__fail(err, "open BPF object");
	msg__hint_for(err);
}

/*
 * Whether a map of obj was given another object's map before load
 * (bpf_map__reuse_fd(): profile-lite --off-cpu's unwinding tables): the
 * light loader's loader creates every map of the object itself.
 */
static bool shares_maps(const struct bpf_object *obj)
{
	struct bpf_map *m;

	bpf_object__for_each_map(m, obj)
		if (bpf_map__fd(m) >= 0)
			return true;
	return false;
}

/* Why the libbpf skeleton loads obj, or NULL when the light loader may try. */
static const char *libbpf_reason(const struct bpf_object *obj)
{
	if (env.force_libbpf || attach__env("BPFLITE_FORCE_LIBBPF"))
		return "forced";
	if (env.btf_path)
		return "--btf FILE: the kernel cannot relocate against it";
	if (!attach__kernel_btf())
		return "no kernel BTF";
	if (shares_maps(obj))
		return "maps shared with another object";
	return NULL;
}

/* The per-task state of the tool's object (tool__task_storage()). */
static struct {
	struct bpf_object *obj;
	struct bpf_map *task_map, *tid_map;
	__u32 tid_entries;	/* tid_map's size when it is used */
} pts;

int tool__task_storage(struct bpf_object *obj, struct bpf_map *task_map, struct bpf_map *tid_map)
{
	pts.obj = obj;
	pts.task_map = task_map;
	pts.tid_map = tid_map;
	pts.tid_entries = tid_map ? bpf_map__max_entries(tid_map) : 0;
	return 0;
}

/*
 * Where obj keeps its per-task state when all_btf (every pair on tp_btf)
 * says how it attaches: task storage, or the hash, which needs every pair
 * on raw_tp (*all_raw set: the caller switches them). The -v line, or NULL
 * for an object without per-task state.
 */
static const char *task_state(struct bpf_object *obj, bool all_btf, bool *all_raw)
{
	*all_raw = false;
	if (pts.obj != obj)
		return NULL;
	if (all_btf && libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, NULL) == 1) {
		if (pts.tid_map)	/* unused: the smallest a hash may be */
			bpf_map__set_max_entries(pts.tid_map, 1);
		return "per-task state: task storage";
	}
	/* raw_tp programs cannot use task storage, and a tool keeps its state in one place */
	*all_raw = true;
	if (pts.tid_map)
		bpf_map__set_max_entries(pts.tid_map, pts.tid_entries);
	return "per-task state: hash by tid";
}

/* The light loader: tp_btf, else raw_tp for every pair. */
static int light_load(struct bpf_object_skeleton *s, int (*loaded)(void *arg), void *arg)
{
	bool raw = env.force_raw_tp || attach__env("BPFLITE_FORCE_RAW_TP"), all_raw;
	const char *state = task_state(*s->obj, !raw, &all_raw);
	int err = light__load_attach(s, raw || all_raw, loaded, arg);

	if (err && err != LIGHT_FINAL && !raw && !all_raw && attach__pick(*s->obj, true)) {
		state = task_state(*s->obj, false, &all_raw);
		err = light__load_attach(s, true, loaded, arg);
		if (!err)
			attach__report(*s->obj, " (tp_btf failed to load)");
	} else if (!err) {
		attach__report(*s->obj, raw ? " (forced)" : all_raw ? " (task storage missing)" : "");
	}
	if (!err && state)
		msg__verbose("%s", state);
	return err;
}

static void verbose_maps(struct bpf_object *obj)
{
	struct bpf_map *m;

	if (!msg_verbose)
		return;
	bpf_object__for_each_map(m, obj)
		msg__verbose("map %s: %u entries of %u+%u bytes", bpf_map__name(m),
			     bpf_map__max_entries(m), bpf_map__key_size(m),
			     bpf_map__value_size(m));
}

/* The objects this tool loaded: loss__report() asks their programs what the kernel skipped. */
#define TOOL_MAX_OBJS 4
static struct bpf_object *objs[TOOL_MAX_OBJS];
static int nr_objs;

/*
 * Runs of the tool's programs the kernel skipped because the same program
 * was already running on that CPU (an interrupt's event inside a process
 * context's): bpf_prog_info.recursion_misses, counted by every kernel
 * since 5.12 at no cost to the tool, 0 where the kernel has no such count.
 */
static __u64 tool_missed(void)
{
	struct bpf_program *p;
	__u64 n = 0;

	for (int i = 0; i < nr_objs; i++) {
		bpf_object__for_each_program(p, objs[i]) {
			struct bpf_prog_info info = {};
			__u32 len = sizeof(info);
			int fd = light__prog_fd(p);

			if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len))
				n += info.recursion_misses;
		}
	}
	return n;
}

static void remember(struct bpf_object *obj)
{
	if (nr_objs < TOOL_MAX_OBJS)
		objs[nr_objs++] = obj;
	loss__missed_from(tool_missed);
}

int tool__load_attach(struct bpf_object_skeleton *s)
{
	return tool__load_attach_then(s, NULL, NULL);
}

int tool__load_attach_then(struct bpf_object_skeleton *s, int (*loaded)(void *arg), void *arg)
{
	const char *why = libbpf_reason(*s->obj), *state;
	bool all_raw;
	int err;

	if (!why) {
		err = light_load(s, loaded, arg);
		if (!err) {
			msg__verbose("loader: light (CO-RE relocations by the kernel)");
			msg__verbose("attached (%s)", attach__mode());
			verbose_maps(*s->obj);
			remember(*s->obj);
			return 0;
		}
		if (err == LIGHT_FINAL)	/* printed; the object is half taken over */
			return err;
		why = "the light loader failed";
	}
	msg__verbose("loader: libbpf skeleton (%s)", why);
	err = attach__choose(*s->obj, env.force_raw_tp);
	if (err)
		return err;
	state = task_state(*s->obj, !strcmp(attach__mode(), "tp_btf"), &all_raw);
	if (all_raw && strcmp(attach__mode(), "raw_tp")) {
		err = attach__choose(*s->obj, true);
		if (err)
			return err;
	}
	if (all_raw)	/* may not exist in the kernel (before 5.11) */
		bpf_map__set_autocreate(pts.task_map, false);
	if (state)
		msg__verbose("%s", state);
	err = bpf_object__load_skeleton(s);
	if (err) {
		attach__load_failed(err);
		return err;
	}
	if (loaded) {
		err = loaded(arg);
		if (err)
			return err;
	}
	err = bpf_object__attach_skeleton(s);
	if (err) {
		msg__fail(err, "attach BPF programs");
		msg__hint_for(err);
		return err;
	}
	msg__verbose("attached (%s)", attach__mode());
	verbose_maps(*s->obj);
	remember(*s->obj);
	/*
	 * Loading parsed the kernel's BTF (two copies of ~5.5 MB in libbpf
	 * 1.1): give that memory back, a tool may run for hours.
	 */
	malloc_trim(0);
	return 0;
}

void tool__detach(struct bpf_object_skeleton *s)
{
	if (light__loaded(*s->obj))
		light__detach(*s->obj);
	else
		bpf_object__detach_skeleton(s);
}

int tool__iter_create(const struct bpf_program *prog)
{
	int link, fd;

	link = bpf_link_create(light__prog_fd(prog), 0, BPF_TRACE_ITER, NULL);
	if (link < 0)
		return -errno;
	fd = bpf_iter_create(link);
	fd = fd < 0 ? -errno : fd;
	close(link);	/* the iterator holds the program */
	return fd;
}

int tool__attach_perf_event(const struct bpf_program *prog, int pfd)
{
	int fd = light__prog_fd(prog);

	if (fd < 0)
		return -ENOENT;
	if (ioctl(pfd, PERF_EVENT_IOC_SET_BPF, fd) || ioctl(pfd, PERF_EVENT_IOC_ENABLE, 0))
		return -errno;
	return 0;
}

struct ring_buffer *tool__ringbuf(struct bpf_map *map, ring_buffer_sample_fn fn, void *ctx)
{
	struct ring_buffer *rb = ring_buffer__new(bpf_map__fd(map), fn, ctx, NULL);

	if (!rb) {
		int err = errno;

		msg__fail(-err, "create ring buffer");
		errno = err;
	}
	return rb;
}

static const char *serving_url;

void tool__serving(const char *url)
{
	serving_url = url;
}

void tool__tracing(const char *what)
{
	if (serving_url)
		fprintf(stderr, "Tracing %s, serving %s/metrics... Hit Ctrl-C to end.\n", what,
			serving_url);
	else
		fprintf(stderr, "Tracing %s... Hit Ctrl-C to end.\n", what);
}

void tool__json_interval(struct json *j, const char *hms)
{
	json__begin(j, stdout);
	json__str(j, "type", "interval");
	json__fixed(j, "timestamp", timefmt__epoch(), 6);
	json__str(j, "time", hms);
}

