/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The life of a tool, shared: open options, choose attach forms, load,
 * attach, report failures with hints. A tool's main() reads:
 *
 *	msg__init("x-lite"); opts__parse(...);
 *	tool__open_opts(&o) ; skel = x_bpf__open_opts(&o);
 *	tool__prepare(skel->obj); set rodata;
 *	tool__load_attach(skel->skeleton); loop; report;
 *	x_bpf__destroy(skel);
 */
#ifndef BPFLITE_TOOL_H
#define BPFLITE_TOOL_H

#include <errno.h>
#include <stdbool.h>
#include <bpf/libbpf.h>
#include "attach.h"
#include "json.h"
#include "loss.h"
#include "msg.h"
#include "opts.h"

/* Set a skeleton's -p/-t/-c filter rodata (common/filter.bpf.h). */
#define TOOL_SET_FILTERS(skel) do {					\
	(skel)->rodata->cfg_tgid = env.pid;				\
	(skel)->rodata->cfg_tid = env.tid;				\
	(skel)->rodata->cfg_cgroup_id = env.cgroup_id;			\
} while (0)

/*
 * Open skeleton NAME (e.g. runqlat_bpf) with the --btf option and choose
 * the attach forms; NULL after printing why. Expands to an expression.
 */
#define TOOL_OPEN(name) ({						\
	LIBBPF_OPTS(bpf_object_open_opts, __oo);			\
	struct name *__s = NULL;					\
	if (!tool__open_opts(&__oo)) {					\
		__s = name##__open_opts(&__oo);				\
		if (!__s) {						\
			tool__open_failed(-errno);			\
		} else if (tool__prepare(__s->obj)) {			\
			name##__destroy(__s);				\
			__s = NULL;					\
		}							\
	}								\
	__s;								\
})

/* Fill open options (--btf); 0, or an error already printed. */
int tool__open_opts(struct bpf_object_open_opts *o);
/* Report a failed skeleton open. */
void tool__open_failed(int err);
/* Between open and load: pick tp_btf or raw_tp per tracepoint. */
int tool__prepare(struct bpf_object *obj);
/*
 * After tool__prepare(), for a tool keeping per-task state in task_map
 * (task storage, used by its tp_btf programs) or tid_map (a hash by tid,
 * used by its raw_tp programs): with tp_btf throughout and task storage
 * in the kernel (5.11+), tid_map (if not NULL: a tool may need it on both
 * paths) shrinks to one entry; else every
 * program becomes raw_tp and task_map is not created. 0 or -errno.
 */
int tool__task_storage(struct bpf_object *obj, struct bpf_map *task_map, struct bpf_map *tid_map);
/* Load and attach (-v: attach forms and map sizes); errors printed with hints. 0 or -errno. */
int tool__load_attach(struct bpf_object_skeleton *s);
/* A ring buffer on map calling fn(ctx, ...); NULL after printing why. */
struct ring_buffer *tool__ringbuf(struct bpf_map *map, ring_buffer_sample_fn fn, void *ctx);
/* "Tracing <what>... Hit Ctrl-C to end." on stderr. */
void tool__tracing(const char *what);
/*
 * Begin an interval's NDJSON record on stdout: {"type":"interval",
 * "timestamp":<epoch>,"time":"HH:MM:SS", ...; the caller adds its fields
 * and ends it with json__end().
 */
void tool__json_interval(struct json *j, const char *hms);

#endif
