// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "timefmt.h"
#include "tool.h"

int tool__open_opts(struct bpf_object_open_opts *o)
{
	return attach__open_opts(o, env.btf_path);
}

void tool__open_failed(int err)
{
	msg__fail(err, "open BPF object");
	msg__hint_for(err);
}

int tool__prepare(struct bpf_object *obj)
{
	return attach__choose(obj, env.force_raw_tp);
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

int tool__load_attach(struct bpf_object_skeleton *s)
{
	int err;

	err = bpf_object__load_skeleton(s);
	if (err) {
		attach__load_failed(err);
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
	/*
	 * Loading parsed the kernel's BTF (two copies of ~5.5 MB in libbpf
	 * 1.1): give that memory back, a tool may run for hours.
	 */
	malloc_trim(0);
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

void tool__tracing(const char *what)
{
	fprintf(stderr, "Tracing %s... Hit Ctrl-C to end.\n", what);
}

void tool__json_interval(struct json *j, const char *hms)
{
	json__begin(j, stdout);
	json__str(j, "type", "interval");
	json__fixed(j, "timestamp", timefmt__epoch(), 6);
	json__str(j, "time", hms);
}

int tool__task_storage(struct bpf_object *obj, struct bpf_map *task_map, struct bpf_map *tid_map)
{
	int err;

	if (!strcmp(attach__mode(), "tp_btf") &&
	    libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, NULL) == 1) {
		if (tid_map)	/* unused: the smallest a hash may be */
			bpf_map__set_max_entries(tid_map, 1);
		msg__verbose("per-task state: task storage");
		return 0;
	}
	/*
	 * raw_tp programs cannot use task storage, and both wrappers of a
	 * tool must keep their state in one place: all raw_tp then.
	 */
	if (strcmp(attach__mode(), "raw_tp")) {
		err = attach__choose(obj, true);
		if (err)
			return err;
	}
	bpf_map__set_autocreate(task_map, false);
	msg__verbose("per-task state: hash by tid");
	return 0;
}
