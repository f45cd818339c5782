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
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include "tool.h"
#include "hist.h"
#include "json.h"
#include "loop.h"
#include "stacks.h"
#include "syms.h"
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
	int storage, depth;
} cfg = {
	.min_us = 1,
	.max_us = ~0ULL / 1000,
	.storage = OFFCPU_STACK_STORAGE,
	.depth = OFFCPU_MAX_STACK_DEPTH,
};

enum { OPT_STATE = 0x100, OPT_STORAGE, OPT_DEPTH };

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
"    offcputime-lite -df 30 | flamegraph-lite --countname us > offcpu.svg\n";

static const struct argp_option options[] = {
	{ "user-threads-only", 'u', NULL, 0, "User threads only (no kernel threads)", 0 },
	{ "kernel-threads-only", 'k', NULL, 0, "Kernel threads only (no user threads)", 0 },
	{ "user-stacks-only", 'U', NULL, 0, "Show stacks from user space only (no kernel space stacks)", 0 },
	{ "kernel-stacks-only", 'K', NULL, 0, "Show stacks from kernel space only (no user space stacks)", 0 },
	{ "delimited", 'd', NULL, 0, "Insert delimiter between kernel/user stacks", 0 },
	{ "folded", 'f', NULL, 0, "Output folded format, one line per stack (for flame graphs)", 0 },
	{ "min-block-time", 'm', "MIN_US", 0, "The amount of time in microseconds over which we store traces (default 1)", 0 },
	{ "max-block-time", 'M', "MAX_US", 0, "The amount of time in microseconds under which we store traces (default U64_MAX)", 0 },
	{ "state", OPT_STATE, "MASK", 0, "Only tasks whose state has a bit of this mask (2: uninterruptible, killable included; 1: interruptible; 0: preempted)", 0 },
	{ "stack-storage-size", OPT_STORAGE, "N", 0, "The number of unique stack traces that can be stored and displayed (default 16384)", 0 },
	{ "perf-max-stack-depth", OPT_DEPTH, "N", 0, "The limit for both kernel and user stack traces (default 64, at most 127)", 0 },
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
	case 'U':
		cfg.user_stacks_only = true;
		break;
	case 'K':
		cfg.kernel_stacks_only = true;
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
	case OPT_STORAGE:
		cfg.storage = opts__num(arg, "stack storage size", 1, 1 << 24);
		break;
	case OPT_DEPTH:
		/* the kernel's perf_event_max_stack default */
		cfg.depth = opts__num(arg, "stack depth", 1, 127);
		break;
	case ARGP_KEY_END:
		if (cfg.user_threads_only && cfg.kernel_threads_only)
			msg__usage("-u and -k are mutually exclusive");
		if (cfg.user_stacks_only && cfg.kernel_stacks_only)
			msg__usage("-U and -K are mutually exclusive");
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
	__u64 max_keys;		/* info's size */
	__u64 fold_at;		/* keys in info that start a fold */
	__u64 added, removed;	/* keys user space added and removed */
	__u64 fold_lost;	/* folds that found the map full */
};

/* A process BPF saw for the first time: snapshot it while it lives. */
static int on_event(void *ctx, void *data, size_t len)
{
	const struct offcpu_event *e = data;
	struct run *r = ctx;

	int err;

	if (len < sizeof(*e))
		return 0;
	err = usyms__refresh(r->usyms, e->tgid);
	/* gone already: its frames will read module+offset or [unknown] */
	msg__verbose("snapshot of process %u: %s", e->tgid, err ? strerror(-err) : "ok");
	return 0;
}

/* Processes known to the symbolizer before exited ones are pruned. */
#define PRUNE_AT	4096

struct tgids {
	__u32 *v;
	size_t n;
};

static int cmp_u32(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

static bool in_map(pid_t tgid, void *ctx)
{
	const struct tgids *t = ctx;
	__u32 k = tgid;

	return bsearch(&k, t->v, t->n, sizeof(k), cmp_u32);
}

/*
 * Exited threads: one key per thread and stack pair would fill info after
 * some 16k short-lived threads (a thread pool, a build) and the tool would
 * then drop everything. Every fold_step() new keys, the keys of threads
 * that are gone are folded into one key per process, comm and stacks with
 * tid 0 ("exited threads"): BPF never writes a tid-0 key (the idle task is
 * not traced), so user space owns those.
 */
static bool thread_gone(__u32 tgid, __u32 tid)
{
	return syscall(SYS_tgkill, tgid, tid, 0) && errno == ESRCH;
}

/*
 * Fold after this many new keys: a sixteenth of the map (1024 keys by
 * default), so the map holds about the live threads' keys plus that,
 * and a fold (a walk of the map, a tgkill(2) per key) stays rare.
 */
static __u64 fold_step(const struct run *r)
{
	return r->max_keys / 16 ? r->max_keys / 16 : 1;
}

static void fold_exited(struct run *r)
{
	int fd = bpf_map__fd(r->skel->maps.info);
	struct offcpu_key *keys = NULL, *prev = NULL, k0;
	struct offcpu_val v, v0;
	size_t n = 0, cap = 0, i, folded = 0;
	__u64 live;

	/* keys first: deleting while walking restarts the walk */
	for (;;) {
		if (n == cap) {
			void *q = realloc(keys, (cap = cap ? cap * 2 : 4096) * sizeof(*keys));

			if (!q)
				break;
			keys = q;
		}
		if (bpf_map_get_next_key(fd, prev, &keys[n]))
			break;
		prev = &keys[n++];
	}
	for (i = 0; i < n; i++) {
		if (!keys[i].tid || !thread_gone(keys[i].tgid, keys[i].tid))
			continue;
		/* the thread is gone: BPF no longer writes this key */
		if (bpf_map_lookup_and_delete_elem(fd, &keys[i], &v)) {
			/* hash maps support it since 5.14 */
			if (bpf_map_lookup_elem(fd, &keys[i], &v) || bpf_map_delete_elem(fd, &keys[i]))
				continue;
		}
		r->removed++;
		k0 = keys[i];
		k0.tid = 0;
		if (!bpf_map_lookup_elem(fd, &k0, &v0)) {
			v.total_ns += v0.total_ns;
			v.count += v0.count;
		} else {
			r->added++;
		}
		if (bpf_map_update_elem(fd, &k0, &v, BPF_ANY)) {
			r->fold_lost++;
			r->added--;
		}
		folded++;
	}
	free(keys);
	live = r->skel->bss->info_added + r->added - r->removed;
	r->fold_at = live + fold_step(r);
	msg__verbose("folded %zu keys of exited threads: %llu keys in use", folded,
		     (unsigned long long)live);
}

/*
 * Every tick: fold exited threads' keys when info fills. Every few
 * seconds: when many processes have come and gone, forget the exited
 * ones with no stack left in the map, so a long run does not grow.
 */
static int on_tick(void *ctx)
{
	struct run *r = ctx;
	static int ticks;
	struct offcpu_key key, next, *prev = NULL;
	struct tgids t = { 0 };
	size_t cap = 0, before;
	int fd;

	static size_t prune_at;

	if (r->skel->bss->info_added + r->added - r->removed >= r->fold_at)
		fold_exited(r);
	if (!prune_at)	/* tests lower it */
		prune_at = getenv("BPFLITE_PRUNE_AT") ? strtoul(getenv("BPFLITE_PRUNE_AT"), NULL, 0) : 0;
	if (!prune_at)
		prune_at = PRUNE_AT;
	if (++ticks % 50 || usyms__count(r->usyms) < prune_at)
		return 0;
	fd = bpf_map__fd(r->skel->maps.info);
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		if (t.n == cap) {
			void *q = realloc(t.v, (cap = cap ? cap * 2 : 1024) * sizeof(*t.v));

			if (!q)
				break;
			t.v = q;
		}
		t.v[t.n++] = next.tgid;
		key = next;
		prev = &key;
	}
	qsort(t.v, t.n, sizeof(*t.v), cmp_u32);
	before = usyms__count(r->usyms);
	usyms__prune(r->usyms, in_map, &t);
	msg__verbose("symbolizer: pruned %zu exited processes, %zu left",
		     before - usyms__count(r->usyms), usyms__count(r->usyms));
	free(t.v);
	return 0;
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

static int cmp_s32(const void *a, const void *b)
{
	__s32 x = *(const __s32 *)a, y = *(const __s32 *)b;

	return x < y ? -1 : x > y;
}

/*
 * Kernel symbols for the addresses of these stacks only: all of kallsyms
 * is ~5 MB here, the names a report needs a few KiB.
 */
static struct ksyms *load_ksyms(int stack_fd, const struct entry *e, __u32 n, __u64 *ips)
{
	unsigned long *addrs = NULL, *q;
	size_t nr = 0, cap = 0;
	struct ksyms *k;
	__s32 *ids;
	__u32 i, nids = 0;
	struct stack s;

	ids = malloc((n ? n : 1) * sizeof(*ids));
	if (!ids)
		return NULL;
	for (i = 0; i < n; i++)
		if (e[i].k.kern_stack_id >= 0)
			ids[nids++] = e[i].k.kern_stack_id;
	qsort(ids, nids, sizeof(*ids), cmp_s32);
	for (i = 0; i < nids; i++) {
		if (i && ids[i] == ids[i - 1])
			continue;
		if (stacks__read(stack_fd, ids[i], ips, cfg.depth, &s) || !s.n)
			continue;
		if (nr + s.n > cap) {
			cap = (nr + s.n) * 2;
			q = realloc(addrs, cap * sizeof(*addrs));
			if (!q)
				break;
			addrs = q;
		}
		for (int j = 0; j < s.n; j++)
			addrs[nr++] = ips[j];
	}
	free(ids);
	k = ksyms__load_for(addrs, nr);
	free(addrs);
	return k;
}

static int report(struct run *r)
{
	struct stack_printer p = {
		.usyms = r->usyms,
		.folded = cfg.folded,
		.delimiter = cfg.delimited,
	};
	int stack_fd = bpf_map__fd(r->skel->maps.stacks);
	struct offcpu_key *keys = NULL;
	struct offcpu_val *vals = NULL;
	__u64 *kips, *uips;
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
	e = calloc(n ? n : 1, sizeof(*e));
	kips = calloc(cfg.depth, sizeof(*kips));
	uips = calloc(cfg.depth, sizeof(*uips));
	if (!e || !kips || !uips) {
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
	if (!cfg.user_stacks_only)
		p.ksyms = load_ksyms(stack_fd, e, n, kips);

	for (i = 0; i < n; i++) {
		const struct offcpu_key *k = &e[i].k;
		struct stack ks, us, *kp = NULL, *up = NULL;
		char comm[OFFCPU_COMM_LEN + 1];
		struct json j;

		memcpy(comm, k->comm, OFFCPU_COMM_LEN);
		comm[OFFCPU_COMM_LEN] = '\0';
		if (!cfg.user_stacks_only) {
			stacks__read(stack_fd, k->kern_stack_id, kips, cfg.depth, &ks);
			kp = &ks;
		}
		if (!cfg.kernel_stacks_only) {
			stacks__read(stack_fd, k->user_stack_id, uips, cfg.depth, &us);
			up = &us;
		}
		if (env.json) {
			json__begin(&j, stdout);
			json__str(&j, "type", "stack");
			json__uint(&j, "pid", k->tgid);
			json__uint(&j, "tid", k->tid);
			json__str(&j, "comm", comm);
			json__uint(&j, "total_us", e[i].v.total_ns / 1000);
			json__uint(&j, "count", e[i].v.count);
			stacks__json(&p, &j, k->tgid, kp, up);
			json__end(&j);
		} else {
			stacks__print(&p, stdout, comm, k->tgid, k->tid ? k->tid : k->tgid, kp, up,
				      e[i].v.total_ns / 1000);
		}
	}
	fflush(stdout);
out:
	free(keys);
	free(vals);
	free(e);
	free(kips);
	free(uips);
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
		 cfg.user_stacks_only ? "user" : cfg.kernel_stacks_only ? "kernel" :
		 "user + kernel");
	return buf;
}

int main(int argc, char **argv)
{
	struct ring_buffer *rb = NULL;
	struct run r = { 0 };
	int err;

	msg__init(TOOL);
	opts__parse_tool(options, parse_arg, "[duration]", doc,
			 OPTS_PID | OPTS_TID | OPTS_CGROUP | OPTS_DURATION,
			 argc, argv);
	/* early: a Ctrl-C during start-up still ends the run cleanly */
	loop__signals();

	r.skel = TOOL_OPEN(offcputime_bpf);
	if (!r.skel)
		return EXIT_FAIL;
	TOOL_SET_FILTERS(r.skel);
	r.skel->rodata->cfg_user_threads_only = cfg.user_threads_only;
	r.skel->rodata->cfg_kernel_threads_only = cfg.kernel_threads_only;
	r.skel->rodata->cfg_kernel_stacks = !cfg.user_stacks_only;
	r.skel->rodata->cfg_user_stacks = !cfg.kernel_stacks_only;
	r.skel->rodata->cfg_state_filter = cfg.state_set;
	r.skel->rodata->cfg_state_mask = cfg.state;
	r.skel->rodata->cfg_min_ns = cfg.min_us * 1000;
	r.skel->rodata->cfg_max_ns = cfg.max_us * 1000;
	bpf_map__set_max_entries(r.skel->maps.stacks, cfg.storage);
	bpf_map__set_value_size(r.skel->maps.stacks, cfg.depth * sizeof(__u64));
	/* one key per thread and stack pair: as many as stacks, or the default */
	r.max_keys = cfg.storage > OFFCPU_STACK_STORAGE ? cfg.storage : OFFCPU_STACK_STORAGE;
	bpf_map__set_max_entries(r.skel->maps.info, r.max_keys);
	r.fold_at = fold_step(&r);
	err = tool__task_storage(r.skel->obj, r.skel->maps.start_task, r.skel->maps.start);
	if (err)
		goto out;

	err = tool__load_attach(r.skel->skeleton);
	if (err)
		goto out;

	r.usyms = usyms__new(0);
	rb = ring_buffer__new(bpf_map__fd(r.skel->maps.events), on_event, &r, NULL);
	if (!r.usyms || !rb) {
		err = -errno ?: -ENOMEM;
		msg__fail(err, "set up the symbolizer");
		goto out;
	}
	tool__tracing(what());	/* stderr: stdout holds only the stacks */
	if (env.pid && !cfg.kernel_stacks_only)
		usyms__snapshot(r.usyms, env.pid);
	err = loop__ringbuf(rb, env.duration, 100, NULL, on_tick, &r);
	/* stop counting while the report reads the maps */
	offcputime_bpf__detach(r.skel);
	ring_buffer__consume(rb);
	if (!err)
		err = report(&r);
	if (r.skel->bss) {
		struct bpflite_loss l = r.skel->bss->loss;

		l.map_full += r.fold_lost;
		loss__report(&l, env.json);
	}
out:
	ring_buffer__free(rb);
	usyms__free(r.usyms);
	offcputime_bpf__destroy(r.skel);
	return err ? EXIT_FAIL : EXIT_OK;
}
