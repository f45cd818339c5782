// SPDX-License-Identifier: GPL-2.0
/*
 * offcputime-lite: summarize off-CPU time by kernel and user stack.
 * The user side of bpf/offcputime.bpf.c. Symbols are read at report time
 * (kallsyms) or lazily (ELF), except process mappings, which are
 * snapshotted when BPF first sees a process, so processes that exit
 * before the report still get names.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "load/maps.h"
#include "load/tool.h"
#include "out/hist.h"
#include "out/json.h"
#include "run/loop.h"
#include "serve/prom.h"
#include "serve/serve.h"
#include "offcputime/pprof.h"
#include "syms/safeopen.h"
#include "offcputime/collect.h"
#include "syms/procsnap.h"
#include "syms/python.h"
#include "syms/stackopts.h"
#include "syms/stacks.h"
#include "syms/syms.h"
#include "syms/unwind.h"
#include "out/window.h"
#include "offcputime.h"
#include "offcputime.skel.h"

#define TOOL "offcputime-lite"

static struct {
	bool user_threads_only, kernel_threads_only;
	bool user_stacks_only, kernel_stacks_only;
	bool delimited, folded;
	bool state_set;
	__u32 state;
	__u64 min_us, max_us;
	bool max_set;
	const char *pprof;
} cfg = {
	.min_us = 1,
	.max_us = ~0ULL / 1000,
};
_Static_assert(OFFCPU_STACK_STORAGE == STACK_STORAGE_DEFAULT &&
	       OFFCPU_MAX_STACK_DEPTH == STACK_DEPTH_DEFAULT, "the defaults --help names");

enum { OPT_STATE = 0x100, OPT_PPROF };

static const char doc[] =
"Summarize off-CPU time by stack trace.\n"
"\v"
"EXAMPLES:\n"
"    offcputime-lite             # trace off-CPU stack time until Ctrl-C\n"
"    offcputime-lite 5           # trace for 5 seconds only\n"
"    offcputime-lite -f 5        # 5 seconds, and output in folded format\n"
"    offcputime-lite -m 1000     # only blocks of more than 1000 usec\n"
"    offcputime-lite -M 10000    # only blocks of less than 10000 usec\n"
"    offcputime-lite -p 185      # only trace threads for PID 185\n"
"    offcputime-lite -t 188      # only trace thread 188\n"
"    offcputime-lite -u          # only trace user threads (no kernel)\n"
"    offcputime-lite -k          # only trace kernel threads (no user)\n"
"    offcputime-lite -U          # only show user space stacks (no kernel)\n"
"    offcputime-lite -K          # only show kernel space stacks (no user)\n"
"    offcputime-lite --state 2   # only uninterruptible (and killable) waits\n"
"    offcputime-lite -f --python -p 185  # Python functions where\n"
"                                # a Python service waits\n"
"    offcputime-lite -df 30 | flamegraph-lite --countname us > offcpu.svg\n"
"    offcputime-lite --pprof offcpu.pb.gz 30   # a pprof profile: go tool pprof\n"
"    offcputime-lite -df --interval 10 --ring 30 -p 185  # kill -USR1 prints the\n"
"                                # last 30 windows of 10 s (a flight recorder)\n"
"    offcputime-lite --serve 9303  # profiles on 127.0.0.1:9303/debug/pprof/offcpu\n";

static const struct argp_option options[] = {
	{ "user-threads-only", 'u', NULL, 0, "User threads only (no kernel threads)", 0 },
	{ "kernel-threads-only", 'k', NULL, 0, "Kernel threads only (no user threads)", 0 },
	{ "delimited", 'd', NULL, 0, "Insert delimiter between kernel/user stacks", 0 },
	{ "folded", 'f', NULL, 0, "Output folded format, one line per stack (for flame graphs)", 0 },
	{ "min-block-time", 'm', "MIN_US", 0, "The amount of time in microseconds over which we store traces (default 1)", 0 },
	{ "max-block-time", 'M', "MAX_US", 0, "The amount of time in microseconds under which we store traces (default U64_MAX)", 0 },
	{ "state", OPT_STATE, "MASK", 0, "Only tasks whose state has a bit of this mask (2: uninterruptible, killable included; 1: interruptible; 0: preempted)", 0 },
	{ "pprof", OPT_PPROF, "FILE", 0, "Write the stacks as a gzipped pprof profile to FILE instead of stdout", 0 },
	{ 0 },
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	(void)state;
	switch (key) {
	case 'u':
		cfg.user_threads_only = true;
		break;
	case 'k':
		cfg.kernel_threads_only = true;
		break;
	case 'd':
		cfg.delimited = true;
		break;
	case 'f':
		cfg.folded = true;
		break;
	case 'm':
		cfg.min_us = opts__num(arg, "minimum block time", 0, LLONG_MAX / 1000);
		break;
	case 'M':
		cfg.max_us = opts__num(arg, "maximum block time", 0, LLONG_MAX / 1000);
		cfg.max_set = true;
		break;
	case OPT_STATE:
		/* the task state bits of include/linux/sched.h fit in 16 */
		cfg.state = opts__num(arg, "state mask", 0, 0xffff);
		cfg.state_set = true;
		break;
	case OPT_PPROF:
		if (!*arg)
			msg__usage("--pprof needs a file name");
		cfg.pprof = arg;
		break;
	case ARGP_KEY_END:
		if (cfg.user_threads_only && cfg.kernel_threads_only)
			msg__usage("-u and -k are mutually exclusive");
		if (cfg.pprof && (cfg.folded || env.json))
			msg__usage("--pprof writes the stacks to its file: no -f or --json with it");
		if (cfg.pprof && window_opts.interval_ms)
			msg__usage("--pprof writes one profile of the run: no --interval with it");
		if (serve__spec() && (cfg.pprof || cfg.folded || window_opts.interval_ms))
			msg__usage("--serve answers with profiles: no --pprof, -f or --interval with it");
		if (cfg.max_set && cfg.min_us > cfg.max_us)
			msg__usage("minimum block time (-m %llu) is above the maximum (-M %llu)",
				   (unsigned long long)cfg.min_us, (unsigned long long)cfg.max_us);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

struct run {
	struct offcputime_bpf *skel;
	struct usyms *usyms;
	struct unwinder *unw;	/* --unwind auto|dwarf: stacks in its unw_stacks */
	struct unw_procsnap ps;	/* the ring buffer's callback's */
	struct offcpu_collect c;
	struct windows *windows;
	struct pyframes *py;	/* --python */
};

static int on_tick(void *ctx)
{
	struct run *r = ctx;
	int err = windows__tick(r->windows);
	int fd = r->c.info_fd;
	size_t ksz = sizeof(struct offcpu_key);

	if (err)
		return err;
	python__tick(r->py);
	procsnap__prune(r->usyms, &fd, &ksz, 1);
	return offcpu__tick(&r->c);
}

struct entry {
	struct offcpu_key k;
	struct offcpu_val v;
};

/* Ascending, as bcc prints: the largest ends next to the prompt. */
static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->v.total_ns != y->v.total_ns)
		return x->v.total_ns < y->v.total_ns ? -1 : 1;
	return x->k.tid < y->k.tid ? -1 : x->k.tid > y->k.tid;
}

/*
 * Kernel symbols for the addresses of these stacks only: all of kallsyms
 * is ~5 MB here, the names a report needs a few KiB.
 */
static struct ksyms *load_ksyms(struct run *r, int stack_fd, const struct entry *e, __u32 n)
{
	struct stack_addrs a = { 0 };
	struct ksyms *k;
	__s32 *ids;
	__u32 i, nids = 0;

	ids = malloc((n ? n : 1) * sizeof(*ids));
	if (!ids)
		return NULL;
	for (i = 0; i < n; i++)
		if (e[i].k.kern_stack_id >= 0)
			ids[nids++] = e[i].k.kern_stack_id;
	unwinder__stack_addrs(r->unw, stack_fd, ids, nids, stack_opts.depth, &a);
	free(ids);
	k = ksyms__load_for(a.v, a.n);
	free(a.v);
	return k;
}

/* One window's (or the run's) stacks to out; empties info. */
static int report(void *ctx, FILE *out)
{
	struct run *r = ctx;
	struct stack_printer p = {
		.usyms = r->usyms,
		.py = r->py,
		.folded = cfg.folded,
		.delimiter = cfg.delimited,
	};
	int stack_fd = bpf_map__fd(r->skel->maps.stacks);
	struct offcpu_key *keys = NULL;
	struct offcpu_val *vals = NULL;
	__u64 *kips, *uips, *mips;
	struct entry *e;
	__u32 n, i;
	int err;

	err = map__drain(bpf_map__fd(r->skel->maps.info), sizeof(*keys), sizeof(*vals),
			 bpf_map__max_entries(r->skel->maps.info), (void **)&keys, (void **)&vals, &n);
	if (err) {
		msg__fail(err, "read off-CPU times");
		free(keys);
		free(vals);
		return err;
	}
	/* drained: these keys are no longer in info */
	r->c.removed += n;
	e = calloc(n ? n : 1, sizeof(*e));
	kips = calloc(stack_opts.depth, sizeof(*kips));
	uips = calloc(stack_opts.depth, sizeof(*uips));
	/* a merged stack: the native frames, Python's and their marks */
	mips = calloc(stack_opts.depth + PY_MERGED_EXTRA, sizeof(*mips));
	if (!e || !kips || !uips || !mips) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		e[i].k = keys[i];
		e[i].v = vals[i];
	}
	free(keys);
	free(vals);
	keys = NULL;
	vals = NULL;
	qsort(e, n, sizeof(*e), cmp_entry);
	if (cfg.folded)
		stacks__fold_countname(out, "us");
	if (!stack_opts.user_only)
		p.ksyms = load_ksyms(r, stack_fd, e, n);

	for (i = 0; i < n; i++) {
		const struct offcpu_key *k = &e[i].k;
		struct stack ks, us, *kp = NULL, *up = NULL;
		char comm[OFFCPU_COMM_LEN + 1];
		struct json j;

		/* only waits the kernel did not end: no time to print, JSON counts them */
		if (!e[i].v.count && !env.json)
			continue;
		memcpy(comm, k->comm, OFFCPU_COMM_LEN);
		comm[OFFCPU_COMM_LEN] = '\0';
		if (!stack_opts.user_only) {
			unwinder__stack(r->unw, stack_fd, k->kern_stack_id, kips, stack_opts.depth, &ks);
			kp = &ks;
		}
		if (!stack_opts.kernel_only) {
			unwinder__stack(r->unw, stack_fd, k->user_stack_id, uips, stack_opts.depth, &us);
			up = &us;
			if (r->py && k->py_stack_id != -EFAULT)
				python__merge(r->py, r->usyms, k->tgid, k->py_stack_id, &us,
					      r->unw != NULL, mips, stack_opts.depth + PY_MERGED_EXTRA, &us);
		}
		if (env.json) {
			json__begin(&j, out);
			json__str(&j, "type", "stack");
			json__uint(&j, "pid", k->tgid);
			json__uint(&j, "tid", k->tid);
			json__str(&j, "comm", comm);
			json__uint(&j, "total_us", e[i].v.total_ns / 1000);
			json__uint(&j, "count", e[i].v.count);
			json__uint(&j, "unended", e[i].v.unended);
			stacks__json(&p, &j, k->tgid, kp, up);
			json__end(&j);
		} else {
			stacks__print(&p, out, comm, k->tgid, k->tid ? k->tid : k->tgid, kp, up,
				      e[i].v.total_ns / 1000);
		}
	}
	fflush(out);
out:
	free(keys);
	free(vals);
	free(e);
	free(kips);
	free(uips);
	free(mips);
	ksyms__free(p.ksyms);
	return err;
}

static const char *what(void)
{
	static char buf[128];
	char who[32];

	/* bcc's banner */
	if (env.tid)
		snprintf(who, sizeof(who), "TID %d", env.tid);
	else if (env.pid)
		snprintf(who, sizeof(who), "PID %d", env.pid);
	else
		snprintf(who, sizeof(who), "%s", cfg.user_threads_only ? "user threads" :
			 cfg.kernel_threads_only ? "kernel threads" : "all threads");
	snprintf(buf, sizeof(buf), "off-CPU time (us) of %s by %s stack", who,
		 stack_opts.user_only ? "user" : stack_opts.kernel_only ? "kernel" :
		 "user + kernel");
	return buf;
}

/* --serve: the run its endpoints read (one per process). */
static struct run *served_run;

/* What pprof profiles are read from (offcpu_pprof.h). */
static struct offcpu_src pprof_src(const struct run *r)
{
	return (struct offcpu_src){
		.info_fd = bpf_map__fd(r->skel->maps.info),
		.stacks_fd = bpf_map__fd(r->skel->maps.stacks),
		.unw = r->unw,
		.max_entries = r->c.max_keys,
		.depth = stack_opts.depth,
		.kernel_stacks = !stack_opts.user_only,
		.user_stacks = !stack_opts.kernel_only,
		.usyms = r->usyms,
		.py = r->py,
	};
}

/* --pprof: the whole run as a pprof profile, into the file opened at start. */
static int write_pprof(struct run *r, int fd, const struct offcpu_snap *begin)
{
	struct offcpu_src src = pprof_src(r);
	int err = offcpu_pprof__write(&src, begin, fd);

	if (err)
		msg__fail(err, "write the profile to '%s'", cfg.pprof);
	return err;
}

/* --serve: GET /debug/pprof/offcpu?seconds=N, the profile of the next N seconds. */
static void offcpu_later(struct serve_req *req, void *data)
{
	struct offcpu_src src = pprof_src(served_run);
	void *buf = NULL;
	size_t len = 0;
	int err = offcpu_pprof__render(&src, data, &buf, &len);

	if (err) {
		sbuf__printf(serve__body(req), "failed to render the profile: %s\n", strerror(-err));
		serve__reply(req, 500, "text/plain; charset=utf-8");
		return;
	}
	sbuf__putn(serve__body(req), buf, len);
	free(buf);
	serve__reply(req, 200, "application/octet-stream");
}

static void offcpu_profile(struct serve_req *req, void *ctx)
{
	struct offcpu_src src = pprof_src(served_run);
	struct offcpu_snap *snap;
	long long n;

	(void)ctx;
	if (!serve__query_num(req, "seconds", 30, 1, 3600, &n))
		return;
	snap = offcpu_snap__take(&src);
	if (!snap) {
		sbuf__printf(serve__body(req), "failed to read the counters: %s\n", strerror(errno));
		serve__reply(req, 500, "text/plain; charset=utf-8");
		return;
	}
	serve__defer(req, n * 1000, offcpu_later, snap, (void (*)(void *))offcpu_snap__free);
}

/*
 * --unwind auto|dwarf, before load: the tables of -p's process built, the
 * maps sized, the stack map at its smallest (unused).
 */
static int open_unwinder(struct run *r)
{
	/* tp_btf and raw_tp programs have the same helpers */
	struct unw_start s = { stack_opts.kernel_only ? UNW_MODE_FP : stack_opts.unwind,
			       BPF_PROG_TYPE_RAW_TRACEPOINT, stack_opts.storage_set ? stack_opts.storage : 0,
			       &stack_opts.depth, stack_opts.depth_set };

	stack_opts.unwind = unwinder__start(&s, UNW_BPF_MAPS(r->skel), &r->unw);
	return stack_opts.unwind == UNW_MODE_FP || r->unw ? 0 : -ENOMEM;
}

/* Between load and attach: -p's tables in BPF before its first switch. */
static int unw_loaded(void *ctx)
{
	struct run *r = ctx;

	unwinder__attach(r->unw, UNW_BPF_MAPS(r->skel));
	return 0;
}

/*
 * After every poll: the processes its events named get their tables now;
 * one snapshotted as its loader worked is read again.
 */
static bool after_poll(void *ctx)
{
	struct run *r = ctx;

	usyms__settle(r->usyms);
	unwinder__drain(r->unw);
	python__drain(r->py);
	return false;
}

/* offcputime's /metrics: the self-metrics only. */
static void no_metrics(struct sbuf *b, void *ctx)
{
	(void)b;
	(void)ctx;
}

int main(int argc, char **argv)
{
	struct ring_buffer *rb = NULL;
	struct offcpu_snap *begin = NULL;
	struct run r = { 0 };
	int err, pprof_fd = -1;

	msg__init(TOOL);
	opts__module(&syms__argp);
	opts__module(&prom__argp);
	opts__module(&window__argp);
	opts__module(&stack__argp);
	opts__parse_tool(options, parse_arg, "[duration]", doc,
			 OPTS_PID | OPTS_TID | OPTS_CGROUP | OPTS_DURATION,
			 argc, argv);
	/* early: a Ctrl-C during start-up still ends the run cleanly */
	loop__signals();
	if (cfg.pprof) {
		/* before tracing: a file we may not write fails at once */
		pprof_fd = safeopen_write(cfg.pprof);
		if (pprof_fd < 0) {
			err = -errno;
			msg__fail(err, "open profile file '%s'", cfg.pprof);
			if (err == -ELOOP || err == -EINVAL || err == -EPERM || err == -EMLINK)
				msg__hint("the profile file must be new, or a regular file of ours: "
					  "not a symbolic link, FIFO, device, another user's file "
					  "or a file with another hard link");
			return EXIT_FAIL;
		}
	}

	r.skel = TOOL_OPEN(offcputime_bpf);
	if (!r.skel)
		return EXIT_FAIL;
	TOOL_SET_FILTERS(r.skel);
	r.skel->rodata->cfg_user_threads_only = cfg.user_threads_only;
	r.skel->rodata->cfg_kernel_threads_only = cfg.kernel_threads_only;
	r.skel->rodata->cfg_kernel_stacks = !stack_opts.user_only;
	r.skel->rodata->cfg_user_stacks = !stack_opts.kernel_only;
	r.skel->rodata->cfg_state_filter = cfg.state_set;
	r.skel->rodata->cfg_state_mask = cfg.state;
	r.skel->rodata->cfg_min_ns = cfg.min_us * 1000;
	r.skel->rodata->cfg_max_ns = cfg.max_us * 1000;
	bpf_map__set_max_entries(r.skel->maps.stacks, stack_opts.storage);
	bpf_map__set_value_size(r.skel->maps.stacks, stack_opts.depth * sizeof(__u64));
	/* one key per thread and stack pair: as many as stacks, or the default */
	bpf_map__set_max_entries(r.skel->maps.info, stack_opts.storage > OFFCPU_STACK_STORAGE ?
				 stack_opts.storage : OFFCPU_STACK_STORAGE);
	err = tool__task_storage(r.skel->obj, r.skel->maps.start_task, r.skel->maps.start);
	if (!err)
		err = open_unwinder(&r);
	if (!err)
		err = python__open(&stack_opts.python, stack_opts.python_set,
				   BPF_PROG_TYPE_RAW_TRACEPOINT, r.skel->maps.py_procs,
				   r.skel->maps.py_stacks, &r.py);
	r.skel->rodata->cfg_python = stack_opts.python;
	if (err)
		goto out;

	err = tool__load_attach_then(r.skel->skeleton, unw_loaded, &r);
	if (err)
		goto out;

	r.usyms = usyms__new(0);
	unwinder__symbolizer(r.unw, r.usyms);
	if (!r.usyms) {
		err = -ENOMEM;
		msg__fail(err, "set up the symbolizer");
		goto out;
	}
	offcpu__init(&r.c, bpf_map__fd(r.skel->maps.info), &r.skel->bss->info_added,
		     bpf_map__max_entries(r.skel->maps.info), r.usyms);
	r.ps = (struct unw_procsnap){ r.usyms, r.unw, r.py };
	if (r.py)
		python__attach(r.py, bpf_map__fd(r.skel->maps.py_procs),
			       bpf_map__fd(r.skel->maps.py_stacks));
	rb = tool__ringbuf(r.skel->maps.procsnap_events, unwinder__procsnap_event, &r.ps);
	if (!rb) {
		err = -errno;
		goto out;
	}
	if (serve__spec()) {
		served_run = &r;
		serve__route("/debug/pprof/offcpu",
			     "?seconds=N (default 30): gzipped pprof profile of the off-CPU time of the next N seconds",
			     offcpu_profile, NULL);
		err = prom__serve_start(no_metrics, NULL, &r.skel->bss->loss);
		if (err)
			goto out;
	}
	if (!stack_opts.kernel_only)
		unwinder__procsnap_pid(&r.ps, env.pid);
	tool__tracing(what());	/* stderr: stdout holds only the stacks */
	if (pprof_fd >= 0) {	/* the profile's start */
		struct offcpu_src src = pprof_src(&r);

		begin = offcpu_snap__take(&src);
	}
	r.windows = windows__new(report, &r);
	if (!r.windows) {
		err = -ENOMEM;
		msg__fail(err, "set up the windows");
		goto out;
	}
	err = loop__ringbuf(rb, env.duration, 100, after_poll, on_tick, &r);
	/* stop counting while the report reads the maps */
	tool__detach(r.skel->skeleton);
	ring_buffer__consume(rb);
	prom__serve_stop();
	if (!err && !serve__spec())
		err = pprof_fd >= 0 ? write_pprof(&r, pprof_fd, begin)
				    : windows__finish(r.windows);
	if (r.skel->bss) {
		struct bpflite_loss l = r.skel->bss->loss;

		l.map_full += r.c.fold_lost;
		loss__report(&l, env.json);
		if (r.unw && env.verbose)
			unwinder__report(r.unw, &r.skel->bss->unw_counts);
		if (r.py && env.verbose)
			python__report(r.py, &r.skel->bss->py_counts);
	}
out:
	prom__serve_stop();
	offcpu_snap__free(begin);
	if (pprof_fd >= 0)
		close(pprof_fd);
	ring_buffer__free(rb);
	windows__free(r.windows);
	usyms__free(r.usyms);
	unwinder__free(r.unw);
	python__free(r.py);
	offcputime_bpf__destroy(r.skel);
	return err ? EXIT_FAIL : EXIT_OK;
}
