/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The life of a tool, shared: open options, choose attach forms, load,
 * attach, report failures with hints. A tool's main() reads:
 *
 *	msg__init("x-lite"); opts__parse(...);
 *	skel = TOOL_OPEN(x_bpf); set rodata, map sizes, autoload;
 *	tool__load_attach(skel->skeleton); loop; report;
 *	x_bpf__destroy(skel);
 */
#ifndef BPFLITE_TOOL_H
#define BPFLITE_TOOL_H

#include <errno.h>
#include <stdbool.h>
#include <bpf/libbpf.h>
#include "load/attach.h"
#include "out/json.h"
#include "run/loss.h"
#include "run/msg.h"
#include "run/opts.h"

/* Set a skeleton's -p/-t/-c filter rodata (common/bpf/filter.bpf.h). */
#define TOOL_SET_FILTERS(skel) do {					\
	(skel)->rodata->cfg_tgid = env.pid;				\
	(skel)->rodata->cfg_tid = env.tid;				\
	(skel)->rodata->cfg_cgroup_id = env.cgroup_id;			\
} while (0)

/*
 * Open skeleton NAME (e.g. runqlat_bpf) with the --btf option; NULL after
 * printing why. Expands to an expression. The attach forms are chosen at load.
 */
#define TOOL_OPEN(name) ({						\
	LIBBPF_OPTS(bpf_object_open_opts, __oo);			\
	struct name *__s = NULL;					\
	if (!tool__open_opts(&__oo)) {					\
		__s = name##__open_opts(&__oo);				\
		if (!__s)						\
			tool__open_failed(-errno);			\
	}								\
	__s;								\
})

/* Fill open options (--btf); 0, or an error already printed. */
int tool__open_opts(struct bpf_object_open_opts *o);
/* Report a failed skeleton open. */
void tool__open_failed(int err);
/*
 * Before load, for a tool keeping per-task state in task_map (task
 * storage, used by its tp_btf programs) or tid_map (a hash by tid, used by
 * its raw_tp programs; NULL if the tool needs none): once the attach forms
 * are chosen at load, with tp_btf throughout and task storage in the
 * kernel (5.11+) tid_map shrinks to one entry; else every program becomes
 * raw_tp and task_map is not created (libbpf skeleton) or stays unused
 * (light loader). -v says which. 0 or -errno.
 */
int tool__task_storage(struct bpf_object *obj, struct bpf_map *task_map, struct bpf_map *tid_map);
/*
 * Load and attach: the light loader (common/load/light.h) when the kernel has
 * BTF and no --btf, --force-libbpf or BPFLITE_FORCE_LIBBPF=1 says
 * otherwise; on its failure, and else, the libbpf skeleton with its
 * per-tracepoint tp_btf/raw_tp choice. -v prints the loader, the attach
 * forms and map sizes; errors printed with hints. 0 or -errno.
 */
int tool__load_attach(struct bpf_object_skeleton *s);
/*
 * The same, with loaded(arg) between the load and the attach, whichever
 * the loader: the maps exist (bpf_map__fd()), no program runs yet (a
 * process's unwinding tables go in before its first switch is seen).
 */
int tool__load_attach_then(struct bpf_object_skeleton *s, int (*loaded)(void *arg), void *arg);
/* Detach every program, whichever loader attached them (the maps stay readable). */
void tool__detach(struct bpf_object_skeleton *s);
/* An iterator over a loaded SEC("iter/...") program: a readable fd, or -errno. */
int tool__iter_create(const struct bpf_program *prog);
/*
 * Run prog (of a loaded skeleton, whichever loader) on the samples of perf
 * event pfd; closing pfd detaches it. 0 or -errno.
 */
int tool__attach_perf_event(const struct bpf_program *prog, int pfd);
/*
 * The ring-buffer tail every event tool shares:
 *
 *	rb = tool__ringbuf(skel->maps.events, on_event, ctx);	(after load)
 *	header, banner; err = loop__ringbuf(rb, ...);		(common/run/loop.h)
 *	the tool's own final output;
 *	loss__report(&skel->bss->loss, env.json);		(common/run/loss.h)
 *	ring_buffer__free(rb);
 *
 * tool__ringbuf(): a ring buffer on map calling fn(ctx, ...); NULL (errno
 * set) after printing why.
 */
struct ring_buffer *tool__ringbuf(struct bpf_map *map, ring_buffer_sample_fn fn, void *ctx);
/*
 * "Tracing <what>... Hit Ctrl-C to end." on stderr; "Tracing <what>,
 * serving URL/metrics... Hit Ctrl-C to end." once the exporter serves
 * (prom__serve_start() gives tool__serving() its URL, NULL at its stop).
 */
void tool__tracing(const char *what);
void tool__serving(const char *url);
/*
 * Begin an interval's NDJSON record on stdout: {"type":"interval",
 * "timestamp":<epoch>,"time":"HH:MM:SS", ...; the caller adds its fields
 * and ends it with json__end().
 */
void tool__json_interval(struct json *j, const char *hms);

#endif
