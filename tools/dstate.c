// SPDX-License-Identifier: GPL-2.0
/*
 * dstate-lite: which tasks sit in uninterruptible sleep (D), for how
 * long, and why. The user side of bpf/dstate.bpf.c: wait reasons (the
 * kernel function that entered the wait, like wchan), histograms, folded
 * wait+waker stacks, long episodes as they end, and the tasks stuck in D
 * right now.
 */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "load/maps.h"
#include "load/tool.h"
#include "out/esc.h"
#include "out/hist.h"
#include "out/json.h"
#include "run/loop.h"
#include "serve/prom.h"
#include "serve/serve.h"
#include "syms/python.h"
#include "syms/stacks.h"
#include "syms/syms.h"
#include "syms/unwind.h"
#include "run/timefmt.h"
#include "dstate/wchan.h"
#include "out/window.h"
#include "dstate.h"
#include "dstate.skel.h"

#define TOOL "dstate-lite"
#define TOP_COMMS 3

static struct {
	bool events;		/* -m */
	long long min_ms;
	bool hist, folded, user_stacks, include_idle, state_from_task, unwind_set;
	bool python, python_set;	/* on with -U unless --no-python; given */
	long long stuck_ms;
	long long stack_storage;
	enum unw_mode unwind;
} cfg = { .stuck_ms = 1000, .stack_storage = DSTATE_STACKS, .unwind = UNW_MODE_AUTO,
	  .python = true };

enum {
	OPT_INCLUDE_IDLE = 0x100,
	OPT_STUCK,
	OPT_STACK_STORAGE,
	OPT_STATE_FROM_TASK,
	OPT_UNWIND,
	OPT_PYTHON,
	OPT_NO_PYTHON,
};

static const char doc[] =
"Trace uninterruptible (D) sleeps: who waits, how long, in which kernel\n"
"function, and who woke them.\n"
"\v"
"EXAMPLES:\n"
"    dstate-lite             # wait reasons, summarized at Ctrl-C\n"
"    dstate-lite 5           # every 5 s: reasons, then tasks stuck in D now\n"
"    dstate-lite -m 100      # each D sleep over 100 ms with stacks and waker\n"
"    dstate-lite -H 10 1     # a latency histogram per reason, 10 s\n"
"    dstate-lite -f 30 1 > d.folded  # wait;--;waker stacks for flame graphs\n"
"    dstate-lite -f --interval 10 --ring 30  # kill -USR1: the last 30 windows\n"
"    dstate-lite --stuck 5000 2  # every 2 s, tasks in D for over 5 s\n"
"    dstate-lite -p 185 -U   # process 185 only, with user stacks\n"
"    dstate-lite -U --unwind fp -m 10  # user stacks by frame pointers only (bcc's walk)\n"
"    dstate-lite -U --python -p 185 -f  # the Python functions that sleep in D\n"
"    dstate-lite --include-idle  # also TASK_IDLE sleeps and frozen tasks\n"
"    dstate-lite -j 1        # NDJSON every second\n"
"    dstate-lite --serve 9305  # Prometheus histograms by reason on 127.0.0.1:9305\n";

static const struct argp_option options[] = {
	{ "min-ms", 'm', "MIN_MS", 0, "Print each D sleep of at least MIN_MS as it ends, with stacks and waker", 0 },
	{ "histogram", 'H', NULL, 0, "Print a latency histogram per reason", 0 },
	{ "folded", 'f', NULL, 0, "Print folded stacks (wait, then waker) for flame graphs", 0 },
	{ "user-stacks", 'U', NULL, 0, "Also record user stacks", 0 },
	{ "unwind", OPT_UNWIND, "MODE", 0, "With -U: user stacks by each file's .eh_frame where it has one, else frame pointers (auto, the default; dwarf), or by frame pointers only (fp)", 0 },
	{ "include-idle", OPT_INCLUDE_IDLE, NULL, 0, "Also TASK_IDLE sleeps and frozen tasks (not in the load average)", 0 },
	{ "stuck", OPT_STUCK, "MS", 0, "List tasks in D for over MS at each interval (default 1000)", 0 },
	{ "stack-storage-size", OPT_STACK_STORAGE, "N", 0, "Distinct stacks kept (default 8192)", 0 },
	{ "python", OPT_PYTHON, NULL, 0, "With -U: name CPython 3.10 to 3.13's functions in user stacks (the default; in place of the eval loop's frames with --unwind auto|dwarf, else above the native leaf)", 0 },
	{ "no-python", OPT_NO_PYTHON, NULL, 0, "With -U: native frames only in Python processes' user stacks", 0 },
	{ "state-from-task", OPT_STATE_FROM_TASK, NULL, OPTION_HIDDEN, "Read the state from the task, not the tracepoint", 0 },
	{ 0 },
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	(void)state;
	switch (key) {
	case 'm':
		cfg.events = true;
		cfg.min_ms = opts__num(arg, "MIN_MS", 0, LLONG_MAX / 1000000);
		break;
	case 'H':
		cfg.hist = true;
		break;
	case 'f':
		cfg.folded = true;
		break;
	case 'U':
		cfg.user_stacks = true;
		break;
	case OPT_INCLUDE_IDLE:
		cfg.include_idle = true;
		break;
	case OPT_STUCK:
		cfg.stuck_ms = opts__num(arg, "stuck threshold", 0, LLONG_MAX / 1000000);
		break;
	case OPT_STACK_STORAGE:
		cfg.stack_storage = opts__num(arg, "stack storage size", 16, 1 << 20);
		break;
	case OPT_STATE_FROM_TASK:
		cfg.state_from_task = true;
		break;
	case OPT_UNWIND:
		cfg.unwind = unwinder__mode(arg);
		cfg.unwind_set = true;
		break;
	case OPT_PYTHON:
	case OPT_NO_PYTHON:
		cfg.python = key == OPT_PYTHON;
		cfg.python_set = true;
		break;
	case ARGP_KEY_END:
		if (cfg.folded && env.json)
			msg__usage("-f and -j are mutually exclusive");
		if (cfg.folded && cfg.hist)
			msg__usage("-f and -H are mutually exclusive");
		/* the window options' parser has run: children end first */
		if (window_opts.interval_ms && !cfg.folded)
			msg__usage("--interval and --ring need -f");
		if (window_opts.interval_ms && env.interval)
			msg__usage("--interval and a positional interval are mutually exclusive");
		if (cfg.unwind_set && cfg.unwind != UNW_MODE_FP && !cfg.user_stacks)
			msg__usage("--unwind walks user stacks: it needs -U");
		if (cfg.python && cfg.python_set && !cfg.user_stacks)
			msg__usage("--python names user stacks: it needs -U");
		if (!cfg.user_stacks)
			cfg.python = false;
		if (serve__spec() && (cfg.folded || cfg.hist || cfg.events || cfg.user_stacks))
			msg__usage("--serve takes no -f, -H, -m or -U (metrics are histograms by reason)");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* ---- stacks and reasons ---------------------------------------------------- */

static struct dstate_bpf *skel;
static struct stack_printer printer;
static int stacks_fd;
static struct unwinder *unw;	/* --unwind auto|dwarf: user stacks in its unw_stacks */
static struct pyframes *py;	/* --python */
/* -U: a DSTATE_PROC event to the symbolizer, the unwinder and the Python reader */
static struct unw_procsnap procsnap;

/*
 * A stack id of the BPF side as a struct stack: kernel stacks (u NULL) in
 * the stack map, ips of DSTATE_STACK_DEPTH slots; user stacks in u's
 * storage with --unwind, ips of UNW_MAX_FRAMES slots.
 */
static void stack_get(struct unwinder *u, __s32 id, __u64 *ips, struct stack *s)
{
	memset(s, 0, sizeof(*s));
	s->ips = ips;
	if (id == DSTATE_NO_STACK)
		return;
	if (id < 0 || unwinder__stack(u, stacks_fd, id, ips,
				      u ? UNW_MAX_FRAMES : DSTATE_STACK_DEPTH, s)) {
		s->n = 0;
		s->missed = true;
	}
}

/*
 * -U: tgid's user stack id in s (uips as stack_get()'s), with --python
 * its Python stack py_id merged in, in mips (UNW_MAX_FRAMES +
 * PY_MERGED_EXTRA slots).
 */
static void user_stack_get(pid_t tgid, __s32 id, __s32 py_id, __u64 *uips, __u64 *mips,
			   struct stack *s)
{
	stack_get(unw, id, uips, s);
	if (py && py_id != -EFAULT)
		python__merge(py, printer.usyms, tgid, py_id, s, unw != NULL, mips,
			      UNW_MAX_FRAMES + PY_MERGED_EXTRA, s);
}

/* The stack of a task found in D at start-up (seed_stuck), by tid. */
static void seeded_stack(__u32 tid, __u64 *ips, struct stack *s)
{
	int n = 0;

	memset(s, 0, sizeof(*s));
	s->ips = ips;
	if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.seeded_stacks), &tid, ips)) {
		s->missed = true;
		return;
	}
	while (n < DSTATE_STACK_DEPTH && ips[n])
		n++;
	s->n = n;
}

/*
 * Tasks already in D when tracing begins: no sched_switch will announce
 * them, so a task iterator records them once (bpf/dstate.bpf.c).
 */
static void seed_stuck(void)
{
	char buf[64];
	int fd;

	fd = tool__iter_create(skel->progs.seed_stuck);
	if (fd < 0) {
		msg__warn("cannot list the tasks already in D: %s", strerror(-fd));
	} else {
		while (read(fd, buf, sizeof(buf)) > 0)	/* the program prints nothing */
			;
		close(fd);
	}
}

/* The first kernel frame below the scheduler and the wait primitives. */
static const char *reason_of(const struct stack *s, char *buf, size_t len)
{
	static struct wchan wchan;
	static bool loaded;
	struct ksyms *k = stacks__ksyms(&printer);

	if (!loaded) {	/* at the first report, never at start-up */
		wchan__load(&wchan, k);
		loaded = true;
	}
	return wchan__reason(&wchan, k, s, buf, len);
}

/* D, killable D, TASK_IDLE, frozen: the letters ps and the tracepoint use. */
static const char *state_name(__u32 state)
{
	if (state & 0x8000)
		return "frozen";
	if ((state & 0x402) == 0x402)
		return "I";
	if ((state & 0x102) == 0x102)
		return "D(killable)";
	return "D";
}

static double ms(__u64 ns)
{
	return ns / 1e6;
}

/* ---- ended episodes (-m) ----------------------------------------------------- */

/* An interrupt that woke a task: no task is named (see dstate.h). */
static const char *waker_ctx_name(__u32 c)
{
	return c == DSTATE_WAKER_HARDIRQ ? "hardirq" : c == DSTATE_WAKER_SOFTIRQ ? "softirq" : "task";
}

static int on_event(void *ctx, void *data, size_t size)
{
	const struct dstate_event *e = data;
	__u64 kips[DSTATE_STACK_DEPTH], uips[UNW_MAX_FRAMES], wips[DSTATE_STACK_DEPTH];
	__u64 mips[UNW_MAX_FRAMES + PY_MERGED_EXTRA];
	struct stack ks, us, ws;
	char reason[128], hms[16];
	struct json j;

	(void)ctx;
	if (size == sizeof(struct dstate_proc) && e->kind == DSTATE_PROC) {
		__u32 tgid = ((const struct dstate_proc *)data)->tgid;

		/*
		 * -U: its mappings read (again after an exec), so its frames
		 * have names after it exits; its tables and its interpreter
		 * now: with -m a stream of episodes keeps a poll from returning
		 */
		unwinder__procsnap_event(&procsnap, &tgid, sizeof(tgid));
		unwinder__drain(unw);
		python__drain(py);
		return 0;
	}
	if (size < sizeof(*e) || e->kind != DSTATE_EPISODE)
		return 0;
	stack_get(NULL, e->kstack_id, kips, &ks);
	user_stack_get(e->tgid, e->ustack_id, e->py_stack_id, uips, mips, &us);
	stack_get(NULL, e->waker_kstack_id, wips, &ws);
	reason_of(&ks, reason, sizeof(reason));
	timefmt__hms(hms, sizeof(hms));
	if (env.json) {
		json__begin(&j, stdout);
		json__str(&j, "type", "episode");
		json__fixed(&j, "timestamp", timefmt__epoch(), 6);
		json__str(&j, "time", hms);
		json__strn(&j, "comm", e->comm, strnlen(e->comm, sizeof(e->comm)));
		json__uint(&j, "pid", e->tgid);
		json__uint(&j, "tid", e->tid);
		json__uint(&j, "state", e->state);
		json__str(&j, "state_name", state_name(e->state));
		json__double(&j, "total_ms", ms(e->total_ns));
		json__double(&j, "blocked_ms", ms(e->blocked_ns));
		json__str(&j, "reason", reason);
		stacks__json(&printer, &j, e->tgid, &ks, cfg.user_stacks ? &us : NULL);
		json__obj(&j, "waker");
		if (e->waker_ctx) {
			json__str(&j, "context", waker_ctx_name(e->waker_ctx));
			stacks__json(&printer, &j, 0, &ws, NULL);
		} else if (e->waker_tid) {
			json__str(&j, "context", "task");
			json__strn(&j, "comm", e->waker_comm, strnlen(e->waker_comm, sizeof(e->waker_comm)));
			json__uint(&j, "pid", e->waker_tgid);
			json__uint(&j, "tid", e->waker_tid);
			stacks__json(&printer, &j, e->waker_tgid, &ws, NULL);
		}
		json__obj_end(&j);
		json__end(&j);
		return 0;
	}
	if (env.timestamp)
		printf("%-8s ", hms);
	stacks__ksyms(&printer);
	printf("%-16s %-7u %-7u %-11s %10.3f ms  %s\n", ESC_ARRAY(e->comm), e->tgid,
	       e->tid, state_name(e->state), ms(e->total_ns), reason);
	stacks__print_kernel(&printer, stdout, &ks, "    ");
	if (cfg.user_stacks && e->ustack_id != DSTATE_NO_STACK) {
		printf("    -\n");
		stacks__print_user(&printer, stdout, e->tgid, &us, "    ");
	}
	if (e->waker_ctx) {
		printf("  woken after %.3f ms by %s:\n", ms(e->blocked_ns),
		       waker_ctx_name(e->waker_ctx));
		stacks__print_kernel(&printer, stdout, &ws, "    ");
	} else if (e->waker_tid) {
		printf("  woken after %.3f ms by %s %u (pid %u):\n", ms(e->blocked_ns),
		       ESC_ARRAY(e->waker_comm), e->waker_tid, e->waker_tgid);
		stacks__print_kernel(&printer, stdout, &ws, "    ");
	} else {
		printf("  waker not seen\n");
	}
	printf("\n");
	fflush(stdout);
	return 0;
}

/* ---- summary by reason -------------------------------------------------------- */

struct comm_count {
	char comm[DSTATE_COMM_LEN + 1];
	__u64 count;
};

struct reason {
	char name[128];
	__u64 count, total_ns, max_ns;
	__u64 slots[HIST_SLOTS];
	struct comm_count *comms;
	int ncomms;
};

static int cmp_reason(const void *a, const void *b)
{
	const struct reason *x = a, *y = b;

	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int cmp_comm(const void *a, const void *b)
{
	const struct comm_count *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->comm, y->comm);
}

static void reason_add(struct reason *r, const struct dstate_key *k, const struct dstate_val *v)
{
	int i;

	r->count += v->count;
	r->total_ns += v->total_ns;
	if (v->max_ns > r->max_ns)
		r->max_ns = v->max_ns;
	for (i = 0; i < HIST_SLOTS; i++)
		r->slots[i] += v->slots[i];
	for (i = 0; i < r->ncomms; i++)
		if (!strncmp(r->comms[i].comm, k->comm, DSTATE_COMM_LEN))
			break;
	if (i == r->ncomms) {
		struct comm_count *c = realloc(r->comms, (r->ncomms + 1) * sizeof(*c));

		if (!c)
			return;
		r->comms = c;
		memset(&c[i], 0, sizeof(c[i]));
		memcpy(c[i].comm, k->comm, DSTATE_COMM_LEN);
		r->ncomms++;
	}
	r->comms[i].count += v->count;
}

static void print_summary(struct reason *rs, int n, const char *hms)
{
	struct json j;
	int i, c;

	if (env.json) {
		tool__json_interval(&j, hms);
		json__arr(&j, "reasons");
		for (i = 0; i < n; i++) {
			struct hist h = { .count = rs[i].count, .sum_ns = rs[i].total_ns };

			json__obj(&j, NULL);
			json__str(&j, "reason", rs[i].name);
			json__uint(&j, "count", rs[i].count);
			json__double(&j, "total_ms", ms(rs[i].total_ns));
			json__double(&j, "avg_ms", ms(rs[i].total_ns) / rs[i].count);
			json__double(&j, "max_ms", ms(rs[i].max_ns));
			json__arr(&j, "comms");
			for (c = 0; c < rs[i].ncomms; c++) {
				json__obj(&j, NULL);
				json__str(&j, "comm", rs[i].comms[c].comm);
				json__uint(&j, "count", rs[i].comms[c].count);
				json__obj_end(&j);
			}
			json__arr_end(&j);
			if (cfg.hist) {
				memcpy(h.slots, rs[i].slots, sizeof(h.slots));
				json__obj(&j, "histogram");
				hist__json_log2(&j, &h, "usecs", 1e3);
				json__obj_end(&j);
			}
			json__obj_end(&j);
		}
		json__arr_end(&j);
		json__end(&j);
		return;
	}
	printf("\n");
	if (env.timestamp)
		printf("%-8s\n", hms);
	printf("%-28s %6s %10s %9s %9s  %s\n", "REASON", "COUNT", "TOTAL_ms", "AVG_ms",
	       "MAX_ms", "TOP COMMS");
	for (i = 0; i < n; i++) {
		int width = printf("%-28s %6llu %10.3f %9.3f %9.3f ", rs[i].name,
				   (unsigned long long)rs[i].count, ms(rs[i].total_ns),
				   ms(rs[i].total_ns) / rs[i].count, ms(rs[i].max_ns));

		/* the top commands, as many as fit in 80 columns (one at least) */
		for (c = 0; c < rs[i].ncomms && c < TOP_COMMS; c++) {
			char one[96];
			int len = snprintf(one, sizeof(one), " %s(%llu)", ESC_ARRAY(rs[i].comms[c].comm),
					   (unsigned long long)rs[i].comms[c].count);

			if (c && width + len > 80)
				break;
			width += printf("%s", one);
		}
		printf("\n");
	}
	if (cfg.hist) {
		for (i = 0; i < n; i++) {
			printf("\nreason = %s\n", rs[i].name);
			hist__print_log2(stdout, rs[i].slots, HIST_SLOTS, "usecs");
		}
	}
}

/*
 * -f: comm;user;-;kernel;--;waker kernel (leaf first);-;waker comm total_us.
 * "-" starts the kernel frames (offcputime-lite -d's convention), "--" the
 * waker's kernel frames, whose "-" then starts its user side (its comm).
 */
static void print_folded(FILE *out, const struct dstate_key *k, const struct dstate_val *v)
{
	__u64 kips[DSTATE_STACK_DEPTH], uips[UNW_MAX_FRAMES], wips[DSTATE_STACK_DEPTH];
	__u64 mips[UNW_MAX_FRAMES + PY_MERGED_EXTRA];
	struct stack ks, us, ws;

	stack_get(NULL, k->kstack_id, kips, &ks);
	user_stack_get(k->tgid, k->ustack_id, k->py_stack_id, uips, mips, &us);
	stack_get(NULL, k->waker_kstack_id, wips, &ws);
	stacks__ksyms(&printer);
	stacks__fold_name(out, k->comm, strnlen(k->comm, DSTATE_COMM_LEN), "");
	stacks__fold_user(&printer, out, k->tgid, &us);
	fputs(";-", out);
	stacks__fold_kernel(&printer, out, &ks, false);
	if (k->waker_comm[0]) {
		fputs(";--", out);
		stacks__fold_kernel(&printer, out, &ws, true);
		fputs(";-;", out);
		stacks__fold_name(out, k->waker_comm, strnlen(k->waker_comm, DSTATE_COMM_LEN), "");
	}
	fprintf(out, " %llu\n", (unsigned long long)(v->total_ns / 1000));
}

/* ---- stuck now ------------------------------------------------------------------ */

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);	/* bpf_ktime_get_ns()'s clock */
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

struct stuck {
	__u32 tid;
	struct dstate_wait w;
};

static int cmp_stuck(const void *a, const void *b)
{
	const struct stuck *x = a, *y = b;

	if (x->w.start_ns != y->w.start_ns)
		return x->w.start_ns < y->w.start_ns ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* Tasks in D longer than the threshold, from the BPF side's waits map. */
static int report_stuck(const char *hms)
{
	int fd = bpf_map__fd(skel->maps.waits), n = 0, i, err;
	__u64 now = now_ns(), thresh = cfg.stuck_ms * 1000000ULL;
	__u32 *tids, ntids, k;
	struct stuck *st;
	struct json j;

	err = map__keys(fd, sizeof(*tids), DSTATE_MAX_TASKS, (void **)&tids, &ntids);
	if (err)
		return err;
	st = calloc(ntids ? ntids : 1, sizeof(*st));
	if (!st) {
		free(tids);
		return -ENOMEM;
	}
	for (k = 0; k < ntids; k++) {
		if (bpf_map_lookup_elem(fd, &tids[k], &st[n].w))
			continue;
		if (st[n].w.wake_ns || now < st[n].w.start_ns || now - st[n].w.start_ns < thresh)
			continue;
		st[n++].tid = tids[k];
	}
	free(tids);
	qsort(st, n, sizeof(*st), cmp_stuck);

	if (env.json) {
		json__begin(&j, stdout);
		json__str(&j, "type", "stuck");
		json__fixed(&j, "timestamp", timefmt__epoch(), 6);
		json__str(&j, "time", hms);
		json__uint(&j, "threshold_ms", cfg.stuck_ms);
		json__arr(&j, "tasks");
	} else if (n) {
		printf("\nSTUCK NOW: in D for over %lld ms\n", cfg.stuck_ms);
		printf("%-7s %-7s %-16s %-11s %10s  %s\n", "PID", "TID", "COMM", "STATE", "MS", "REASON");
	}
	for (i = 0; i < n; i++) {
		__u64 kips[DSTATE_STACK_DEPTH];
		struct stack ks;
		char reason[128];

		bool seeded = st[i].w.flags & DSTATE_F_SEEDED;

		stack_get(NULL, st[i].w.kstack_id, kips, &ks);
		if (st[i].w.kstack_id == DSTATE_SEEDED_STACK)
			seeded_stack(st[i].tid, kips, &ks);
		reason_of(&ks, reason, sizeof(reason));
		if (env.json) {
			json__obj(&j, NULL);
			json__strn(&j, "comm", st[i].w.comm, strnlen(st[i].w.comm, DSTATE_COMM_LEN));
			json__uint(&j, "pid", st[i].w.tgid);
			json__uint(&j, "tid", st[i].tid);
			json__uint(&j, "state", st[i].w.state);
			json__str(&j, "state_name", state_name(st[i].w.state));
			json__double(&j, "ms", ms(now - st[i].w.start_ns));
			/* in D before tracing began: ms is estimated from schedstats */
			json__bool(&j, "before_start", seeded);
			json__str(&j, "reason", reason);
			stacks__json(&printer, &j, st[i].w.tgid, &ks, NULL);
			json__obj_end(&j);
		} else {
			printf("%-7u %-7u %-16s %-11s %9.0f%c  %s\n", st[i].w.tgid, st[i].tid,
			       ESC_ARRAY(st[i].w.comm), state_name(st[i].w.state),
			       ms(now - st[i].w.start_ns), seeded ? '+' : ' ', reason);
		}
	}
	if (env.json) {
		json__arr_end(&j);
		json__end(&j);
	}
	free(st);
	return 0;
}

/* ---- the interval report --------------------------------------------------------- */

/* -f: one window's (or interval's) folded stacks to out; empties aggs */
static int report_folded(void *ctx, FILE *out)
{
	struct dstate_key *keys = NULL;
	struct dstate_val *vals = NULL;
	__u32 n, i;
	int err;

	(void)ctx;
	err = map__drain(bpf_map__fd(skel->maps.aggs), sizeof(*keys), sizeof(*vals),
			 DSTATE_MAX_AGG, (void **)&keys, (void **)&vals, &n);
	if (err) {
		msg__fail(err, "read D sleeps");
	} else {
		stacks__fold_countname(out, "us");
		for (i = 0; i < n; i++)
			print_folded(out, &keys[i], &vals[i]);
		fflush(out);
	}
	free(keys);
	free(vals);
	return err;
}

static int report(void *ctx)
{
	struct dstate_key *keys = NULL;
	struct dstate_val *vals = NULL;
	struct reason *rs = NULL;
	int nr = 0, err;
	char hms[16];
	__u32 n, i;

	if (cfg.folded)
		return report_folded(ctx, stdout);
	timefmt__hms(hms, sizeof(hms));
	err = map__drain(bpf_map__fd(skel->maps.aggs), sizeof(*keys), sizeof(*vals),
			 DSTATE_MAX_AGG, (void **)&keys, (void **)&vals, &n);
	if (err) {
		msg__fail(err, "read D sleeps");
		goto out;
	}
	rs = calloc(n ? n : 1, sizeof(*rs));
	if (!rs) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		__u64 kips[DSTATE_STACK_DEPTH];
		struct stack ks;
		char name[128];
		int r;

		stack_get(NULL, keys[i].kstack_id, kips, &ks);
		reason_of(&ks, name, sizeof(name));
		for (r = 0; r < nr; r++)
			if (!strcmp(rs[r].name, name))
				break;
		if (r == nr)
			snprintf(rs[nr++].name, sizeof(rs[0].name), "%s", name);
		reason_add(&rs[r], &keys[i], &vals[i]);
	}
	qsort(rs, nr, sizeof(*rs), cmp_reason);
	for (int r = 0; r < nr; r++)
		qsort(rs[r].comms, rs[r].ncomms, sizeof(*rs[r].comms), cmp_comm);
	print_summary(rs, nr, hms);
	err = report_stuck(hms);
	fflush(stdout);
out:
	for (int r = 0; r < nr; r++)
		free(rs[r].comms);
	free(rs);
	free(keys);
	free(vals);
	return err;
}

/* ---- --serve ----------------------------------------------------------------------- */

static struct prom_family dstate_family = {
	.name = "bpflite_dstate_seconds",
	.help = "Uninterruptible (D) sleeps, by the kernel function that entered the wait.",
	.type = PROM_HISTOGRAM,
	.label = { "reason" },
	.capped = { true },
};

/* Drain the episodes that ended since the last scrape into the running totals. */
static void render(struct sbuf *b, void *ctx)
{
	struct dstate_key *keys = NULL;
	struct dstate_val *vals = NULL;
	__u32 n, i;

	(void)ctx;
	if (!map__drain(bpf_map__fd(skel->maps.aggs), sizeof(*keys), sizeof(*vals),
			DSTATE_MAX_AGG, (void **)&keys, (void **)&vals, &n)) {
		for (i = 0; i < n; i++) {
			__u64 kips[DSTATE_STACK_DEPTH];
			struct hist h = { .sum_ns = vals[i].total_ns };
			struct prom_series *ps;
			struct stack ks;
			char name[128];
			const char *v[1] = { name };

			stack_get(NULL, keys[i].kstack_id, kips, &ks);
			reason_of(&ks, name, sizeof(name));
			memcpy(h.slots, vals[i].slots, sizeof(h.slots));
			ps = prom__series(&dstate_family, v);
			if (ps)
				prom__hist_add(ps, &h);
		}
	}
	free(keys);
	free(vals);
	prom__render(b, &dstate_family);
}

/* ---- main ------------------------------------------------------------------------- */

/*
 * Does the kernel pass prev_state to sched_switch (Linux 5.18,
 * fa2c3254d7cf)? Found by trying, without parsing BTF: a raw_tp program
 * reading the 4th argument attaches only where the tracepoint has one
 * (the kernel refuses a program reading past the tracepoint's arguments).
 */
static bool switch_has_prev_state(void)
{
	const struct bpf_insn insns[] = {
		/* r0 = *(u64 *)(r1 + 24); r0 = 0; exit */
		{ .code = BPF_LDX | BPF_MEM | BPF_DW, .dst_reg = BPF_REG_0, .src_reg = BPF_REG_1,
		  .off = 3 * sizeof(__u64) },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd, link;

	fd = bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, "bpflite_probe", "GPL", insns,
			   sizeof(insns) / sizeof(insns[0]), NULL);
	if (fd < 0)
		return false;
	link = bpf_raw_tracepoint_open("sched_switch", fd);
	if (link >= 0)
		close(link);
	close(fd);
	return link >= 0;
}

struct loop_ctx {
	int done;
	long long next_ms;	/* the next report, monotonic ms */
	struct windows *windows;	/* -f --interval */
};

static bool stop_after_count(void *ctx)
{
	struct loop_ctx *l = ctx;

	/* after every poll: the processes its events named get their tables now */
	usyms__settle(printer.usyms);
	unwinder__drain(unw);
	python__drain(py);
	python__tick(py);
	return env.count && l->done >= env.count;
}

/*
 * Before load: with --unwind auto|dwarf the tables of -p's process built,
 * the maps sized; with --python the Python maps sized.
 */
static int open_unwinder(void)
{
	struct unw_bpf_maps m = *UNW_BPF_MAPS(skel);
	int depth = DSTATE_STACK_DEPTH;
	/* tp_btf and raw_tp programs have the same helpers */
	struct unw_start s = { cfg.user_stacks ? cfg.unwind : UNW_MODE_FP,
			       BPF_PROG_TYPE_RAW_TRACEPOINT, 0, &depth, true };
	bool hooks;

	m.fp_stacks = NULL;	/* the kernel stacks stay there */
	cfg.unwind = unwinder__start(&s, &m, &unw);
	if (cfg.unwind != UNW_MODE_FP && !unw)
		return -ENOMEM;
	if (python__open(&cfg.python, cfg.python_set, BPF_PROG_TYPE_RAW_TRACEPOINT,
			 skel->maps.py_procs, skel->maps.py_stacks, &py))
		return -ENOMEM;
	skel->rodata->cfg_python = cfg.python;
	printer.py = py;
	/*
	 * -U: after an exec the process is announced again, its mappings
	 * another program's (and its tables and interpreter dropped)
	 */
	hooks = cfg.user_stacks;
	bpf_program__set_autoload(skel->progs.sched_process_exec_btf, hooks);
	bpf_program__set_autoload(skel->progs.sched_process_exec_raw, hooks);
	bpf_program__set_autoload(skel->progs.sched_process_exit_btf, hooks);
	bpf_program__set_autoload(skel->progs.sched_process_exit_raw, hooks);
	return 0;
}

/* After load, before attach: -p's tables pushed, the maps' fds known. */
static int unw_loaded(void *ctx)
{
	(void)ctx;
	unwinder__attach(unw, UNW_BPF_MAPS(skel));
	if (py)
		python__attach(py, bpf_map__fd(skel->maps.py_procs), bpf_map__fd(skel->maps.py_stacks));
	return 0;
}

/* Called every 100 ms between ring buffer polls: report on interval bounds. */
static int tick(void *ctx)
{
	struct loop_ctx *l = ctx;

	if (l->windows)
		return windows__tick(l->windows);
	if (loop__now_ms() < l->next_ms)
		return 0;
	l->next_ms += env.interval * 1000LL;
	l->done++;
	return report(NULL);
}

int main(int argc, char **argv)
{
	struct ring_buffer *rb = NULL;
	struct loop_ctx lc = { 0 };
	bool state_arg;
	int err;

	msg__init(TOOL);
	opts__module(&syms__argp);
	opts__module(&prom__argp);
	opts__module(&window__argp);
	opts__parse_tool(options, parse_arg, "[interval [count]]", doc,
			 OPTS_PID | OPTS_TID | OPTS_CGROUP | OPTS_TIMESTAMP | OPTS_INTERVAL,
			 argc, argv);

	skel = TOOL_OPEN(dstate_bpf);
	if (!skel)
		return EXIT_FAIL;
	state_arg = !cfg.state_from_task && switch_has_prev_state();
	msg__verbose("D state from %s", state_arg ? "sched_switch's prev_state argument" :
		     "the task's state field");
	TOOL_SET_FILTERS(skel);
	skel->rodata->cfg_state_arg = state_arg;
	skel->rodata->cfg_include_idle = cfg.include_idle;
	skel->rodata->cfg_user_stack = cfg.user_stacks;
	skel->rodata->cfg_waker_stack = cfg.folded || cfg.events;
	skel->rodata->cfg_fold_waker = cfg.folded;
	skel->rodata->cfg_events = cfg.events;
	skel->rodata->cfg_min_ns = cfg.min_ms * 1000000ULL;
	bpf_map__set_max_entries(skel->maps.stacks, cfg.stack_storage);
	if (!cfg.events && !cfg.user_stacks)	/* the ring buffer stays empty: one page */
		bpf_map__set_max_entries(skel->maps.events, getpagesize());

	/* the iterator runs once, by hand, after the tracepoints are attached */
	bpf_program__set_autoattach(skel->progs.seed_stuck, false);
	/* a task iterator attaches by the kernel's own BTF, which --btf cannot stand in for */
	if (!attach__kernel_btf()) {
		bpf_program__set_autoload(skel->progs.seed_stuck, false);
		msg__warn("tasks already in D at start-up are not listed: the kernel has no BTF "
			  "at /sys/kernel/btf/vmlinux for the task iterator");
	}
	err = open_unwinder();
	if (err)
		goto out;
	err = tool__load_attach_then(skel->skeleton, unw_loaded, NULL);
	if (err)
		goto out;
	if (attach__kernel_btf())
		seed_stuck();
	stacks_fd = bpf_map__fd(skel->maps.stacks);
	printer.folded = cfg.folded;
	if (cfg.user_stacks)
		printer.usyms = usyms__new(0);
	unwinder__symbolizer(unw, printer.usyms);
	procsnap = (struct unw_procsnap){ printer.usyms, unw, py };
	if (cfg.user_stacks)
		unwinder__procsnap_pid(&procsnap, env.pid);

	rb = tool__ringbuf(skel->maps.events, on_event, NULL);
	if (!rb) {
		err = -errno;
		goto out;
	}

	if (serve__spec()) {
		err = prom__serve_start(render, NULL, &skel->bss->loss);
		if (err)
			goto out;
	}
	loop__signals();
	tool__tracing("uninterruptible (D) sleeps");
	if (!env.json && cfg.events) {
		if (env.timestamp)
			printf("%-8s ", "TIME");
		printf("%-16s %-7s %-7s %-11s %13s  %s\n", "COMM", "PID", "TID", "STATE",
		       "TOTAL", "REASON");
	}
	lc.next_ms = loop__now_ms() + env.interval * 1000LL;
	if (window_opts.interval_ms) {
		lc.windows = windows__new(report_folded, NULL);
		if (!lc.windows) {
			err = -ENOMEM;
			msg__fail(err, "set up the windows");
			goto out;
		}
	}
	err = loop__ringbuf(rb, 0, 100, stop_after_count,
			    env.interval || lc.windows ? tick : NULL, &lc);
	/* The last (partial) interval or window, or the only one. */
	if (!err && lc.windows)
		err = windows__finish(lc.windows);
	else if (!err && (!env.interval || !stop_after_count(&lc)) && !serve__spec())
		err = report(NULL);
	loss__report(&skel->bss->loss, env.json);
	if (unw && env.verbose)
		unwinder__report(unw, &skel->bss->unw_counts);
	if (py && env.verbose)
		python__report(py, &skel->bss->py_counts);
out:
	prom__serve_stop();
	ring_buffer__free(rb);
	windows__free(lc.windows);
	unwinder__free(unw);
	python__free(py);
	dstate_bpf__destroy(skel);
	usyms__free(printer.usyms);
	ksyms__free(printer.ksyms);
	return err ? EXIT_FAIL : EXIT_OK;
}
