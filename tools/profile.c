// SPDX-License-Identifier: GPL-2.0
/*
 * profile-lite: sample on-CPU stacks at a fixed rate. The user side of
 * bpf/profile.bpf.c: one software cpu-clock perf event per CPU (no
 * hardware PMU needed) runs the BPF program, which counts stacks per
 * process. With --off-cpu, offcputime-lite's BPF object runs alongside
 * and the report merges both into one folded stream of microseconds,
 * rooted at "[on-cpu]" or "[off-cpu]": where the wall-clock time went.
 * With --unwind auto|dwarf both walk one unwinder's tables into its one
 * stack storage.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include "load/maps.h"
#include "load/tool.h"
#include "out/hist.h"
#include "out/json.h"
#include "run/loop.h"
#include "run/loss.h"
#include "offcputime/collect.h"
#include "syms/procsnap.h"
#include "syms/python.h"
#include "syms/stackopts.h"
#include "syms/stacks.h"
#include "syms/syms.h"
#include "syms/unwind.h"
#include "out/window.h"
#include "profile.h"
#include "profile.skel.h"
#include "offcputime.h"
#include "offcputime.skel.h"

#define TOOL "profile-lite"

static struct {
	__u64 freq, period;	/* one of them: samples per second, or ns of CPU per sample */
	bool include_idle;
	int cpu;		/* -1: every CPU */
	bool delimited, folded, annotate;
	bool off_cpu;
} cfg = {
	.freq = 49,
	.cpu = -1,
};
_Static_assert(PROFILE_STACK_STORAGE == STACK_STORAGE_DEFAULT &&
	       PROFILE_MAX_STACK_DEPTH == STACK_DEPTH_DEFAULT, "the defaults --help names");

enum { OPT_COUNT = 0x100, OPT_OFF_CPU };

static const char doc[] =
"Profile CPU usage by sampling stack traces at a timed interval.\n"
"\n"
"bcc's profile takes -c COUNT for the sample period; here -c is the\n"
"cgroup filter, as in every bpflite tool, and the period is --count.\n"
"\v"
"EXAMPLES:\n"
"    profile-lite               # profile stack traces at 49 Hertz until Ctrl-C\n"
"    profile-lite -F 99         # profile stack traces at 99 Hertz\n"
"    profile-lite --count 1000000  # one sample per 1 ms of CPU time\n"
"    profile-lite 5             # profile at 49 Hertz for 5 seconds only\n"
"    profile-lite -f 5          # output in folded format for flame graphs\n"
"    profile-lite -p 185        # only profile process with PID 185\n"
"    profile-lite -t 188        # only profile thread with TID 188\n"
"    profile-lite -c /sys/fs/cgroup/unified/app  # only tasks in this cgroup\n"
"    profile-lite -U            # only show user space stacks (no kernel)\n"
"    profile-lite -K            # only show kernel space stacks (no user)\n"
"    profile-lite -I            # include CPU idle stacks\n"
"    profile-lite -C 1          # only profile CPU 1\n"
"    profile-lite -adf 30 | flamegraph-lite > cpu.svg\n"
"    profile-lite --off-cpu -d -p 185 30 | flamegraph-lite --countname us > wall.svg\n"
"    profile-lite -adf --interval 10 --ring 30  # kill -USR1 prints the last\n"
"                                # 30 windows of 10 s (a flight recorder)\n";

static const struct argp_option options[] = {
	{ "frequency", 'F', "HZ", 0, "Sample frequency in Hertz (default 49)", 0 },
	{ "count", OPT_COUNT, "COUNT", 0, "Sample period: one sample per COUNT ns of CPU time (bcc's -c; -c is the cgroup here)", 0 },
	{ "include-idle", 'I', NULL, 0, "Include CPU idle stacks", 0 },
	{ "cpu", 'C', "CPU", 0, "CPU number to run profile on", 0 },
	{ "delimited", 'd', NULL, 0, "Insert delimiter between kernel/user stacks", 0 },
	{ "folded", 'f', NULL, 0, "Output folded format, one line per stack (for flame graphs)", 0 },
	{ "annotations", 'a', NULL, 0, "Add _[k] annotations to kernel frames", 0 },
	{ "off-cpu", OPT_OFF_CPU, NULL, 0, "Also off-CPU time: one folded stream of microseconds, rooted at [on-cpu] or [off-cpu]", 0 },
	{ 0 },
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	static bool freq_set;

	(void)state;
	switch (key) {
	case 'F':
		cfg.freq = opts__num(arg, "frequency", 1, 1000000);
		freq_set = true;
		break;
	case OPT_COUNT:
		/* 10 us: below that the timer interrupts would be all there is */
		cfg.period = opts__num(arg, "sample period", 10000, LLONG_MAX);
		break;
	case 'I':
		cfg.include_idle = true;
		break;
	case 'C':
		cfg.cpu = opts__num(arg, "CPU", 0, INT_MAX);
		break;
	case 'd':
		cfg.delimited = true;
		break;
	case 'f':
		cfg.folded = true;
		break;
	case 'a':
		cfg.annotate = true;
		break;
	case OPT_OFF_CPU:
		cfg.off_cpu = true;
		break;
	case ARGP_KEY_END:
		if (freq_set && cfg.period)
			msg__usage("-F and --count are mutually exclusive");
		if (cfg.period)
			cfg.freq = 0;
		if (cfg.cpu >= libbpf_num_possible_cpus())
			msg__usage("no CPU %d (this machine has %d)", cfg.cpu,
				   libbpf_num_possible_cpus());
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

struct run {
	struct profile_bpf *skel;
	struct offcputime_bpf *off;	/* --off-cpu */
	struct offcpu_collect c;
	struct usyms *usyms;
	struct unwinder *unw;	/* --unwind auto|dwarf: both objects' stacks in its unw_stacks */
	struct unw_procsnap ps;	/* the ring buffer's callback's */
	struct pyframes *py;	/* --python */
	int *pfds;		/* the perf events, one per CPU sampled */
	int nr_pfds;
	struct windows *windows;
};

/* One cpu-clock event per CPU (or -C's), each running the program. */
static int attach_perf(struct run *r)
{
	int ncpus = libbpf_num_possible_cpus(), cpu, fd, err;
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
		.freq = cfg.freq != 0,
	};

	if (cfg.freq)
		attr.sample_freq = cfg.freq;
	else
		attr.sample_period = cfg.period;
	r->pfds = calloc(ncpus, sizeof(*r->pfds));
	if (!r->pfds)
		return -ENOMEM;
	for (cpu = 0; cpu < ncpus; cpu++) {
		if (cfg.cpu >= 0 && cpu != cfg.cpu)
			continue;
		fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			err = -errno;
			/* a possible CPU that is offline */
			if (err == -ENODEV && cfg.cpu < 0)
				continue;
			msg__fail(err, "open the cpu-clock perf event on CPU %d", cpu);
			if (err == -EINVAL && cfg.freq)
				msg__hint("the frequency may be above kernel.perf_event_max_sample_rate "
					  "(/proc/sys/kernel/perf_event_max_sample_rate)");
			else
				msg__hint_for(err);
			return err;
		}
		err = tool__attach_perf_event(r->skel->progs.sample, fd);
		if (err) {
			close(fd);
			msg__fail(err, "attach the sampling program on CPU %d", cpu);
			return err;
		}
		r->pfds[r->nr_pfds++] = fd;
		msg__verbose("sampling CPU %d (cpu-clock, %s %llu)", cpu,
			     cfg.freq ? "frequency" : "period",
			     (unsigned long long)(cfg.freq ? cfg.freq : cfg.period));
	}
	if (!r->nr_pfds) {
		msg__err("no CPU to sample");
		return -ENODEV;
	}
	return 0;
}

static void detach_perf(struct run *r)
{
	/* closing a perf event detaches its program */
	for (int i = 0; i < r->nr_pfds; i++)
		close(r->pfds[i]);
	free(r->pfds);
	r->pfds = NULL;
	r->nr_pfds = 0;
}

/* One stack of the report: sampled on CPU, or off CPU with --off-cpu. */
struct entry {
	__u32 tgid;
	__s32 kern_stack_id, user_stack_id;
	__s32 py_stack_id;	/* -EFAULT: none */
	char comm[PROFILE_COMM_LEN + 1];
	__u64 value;		/* samples; with --off-cpu microseconds */
	bool off;		/* from offcputime's maps */
};

/* Ascending, as bcc prints: the largest ends next to the prompt. */
static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return x->tgid < y->tgid ? -1 : x->tgid > y->tgid;
}

/* On-CPU samples as microseconds: each stands for 1/F s, or a period. */
static __u64 samples_us(__u64 n)
{
	return cfg.freq ? n * 1000000 / cfg.freq : n * cfg.period / 1000;
}

/* Append the map's entries to *e (*n of them so far); 0 or -errno. */
static int drain(struct run *r, bool off, struct entry **e, __u32 *n)
{
	struct bpf_map *m = off ? r->off->maps.info : r->skel->maps.counts;
	size_t ksz = off ? sizeof(struct offcpu_key) : sizeof(struct profile_key);
	size_t vsz = off ? sizeof(struct offcpu_val) : sizeof(__u64);
	char *keys = NULL, *vals = NULL;
	struct entry *q;
	__u32 cnt, i;
	int err;

	err = map__drain(bpf_map__fd(m), ksz, vsz, bpf_map__max_entries(m),
			 (void **)&keys, (void **)&vals, &cnt);
	if (err)
		goto out;
	if (off)	/* drained: these keys are no longer in info */
		r->c.removed += cnt;
	q = realloc(*e, (*n + cnt + 1) * sizeof(*q));
	if (!q) {
		err = -ENOMEM;
		goto out;
	}
	*e = q;
	for (i = 0; i < cnt; i++) {
		struct entry *x = &q[(*n)++];

		memset(x, 0, sizeof(*x));
		x->off = off;
		if (off) {
			const struct offcpu_key *k = (const void *)(keys + i * ksz);

			x->tgid = k->tgid;
			x->kern_stack_id = k->kern_stack_id;
			x->user_stack_id = k->user_stack_id;
			x->py_stack_id = k->py_stack_id;
			memcpy(x->comm, k->comm, PROFILE_COMM_LEN);
			x->value = ((const struct offcpu_val *)(vals + i * vsz))->total_ns / 1000;
		} else {
			const struct profile_key *k = (const void *)(keys + i * ksz);

			x->tgid = k->tgid;
			x->kern_stack_id = k->kern_stack_id;
			x->user_stack_id = k->user_stack_id;
			x->py_stack_id = k->py_stack_id;
			memcpy(x->comm, k->comm, PROFILE_COMM_LEN);
			x->value = *(const __u64 *)(vals + i * vsz);
			if (cfg.off_cpu)
				x->value = samples_us(x->value);
		}
	}
out:
	free(keys);
	free(vals);
	return err;
}

static int stack_fd(const struct run *r, bool off)
{
	return bpf_map__fd(off ? r->off->maps.stacks : r->skel->maps.stacks);
}

/* Kernel symbols for the addresses of these stacks only (see offcputime-lite). */
static struct ksyms *load_ksyms(struct run *r, const struct entry *e, __u32 n)
{
	struct stack_addrs a = { 0 };
	struct ksyms *k;
	__s32 *ids;
	__u32 i, nids;

	ids = malloc((n ? n : 1) * sizeof(*ids));
	if (!ids)
		return NULL;
	for (int off = 0; off <= (r->off != NULL); off++) {
		nids = 0;
		for (i = 0; i < n; i++)
			if (e[i].off == off && e[i].kern_stack_id >= 0)
				ids[nids++] = e[i].kern_stack_id;
		unwinder__stack_addrs(r->unw, stack_fd(r, off), ids, nids, stack_opts.depth, &a);
	}
	free(ids);
	k = ksyms__load_for(a.v, a.n);
	free(a.v);
	return k;
}

/* One window's (or the run's) stacks to out; empties the counts. */
static int report(void *ctx, FILE *out)
{
	struct run *r = ctx;
	struct stack_printer p = {
		.usyms = r->usyms,
		.py = r->py,
		.folded = cfg.folded || cfg.off_cpu,
		.delimiter = cfg.delimited,
		.kernel_suffix = cfg.annotate,
	};
	struct entry *e = NULL;
	__u64 *kips, *uips, *mips;
	__u32 n = 0, i;
	int err;

	err = drain(r, false, &e, &n);
	if (!err && r->off)
		err = drain(r, true, &e, &n);
	kips = calloc(stack_opts.depth, sizeof(*kips));
	uips = calloc(stack_opts.depth, sizeof(*uips));
	/* a merged stack: the native frames, Python's and their marks */
	mips = calloc(stack_opts.depth + PY_MERGED_EXTRA, sizeof(*mips));
	if (err || !kips || !uips || !mips) {
		err = err ?: -ENOMEM;
		msg__fail(err, "read the sampled stacks");
		goto out;
	}
	qsort(e, n, sizeof(*e), cmp_entry);
	if (p.folded && !env.json)
		stacks__fold_countname(out, cfg.off_cpu ? "us" : "samples");
	if (!stack_opts.user_only)
		p.ksyms = load_ksyms(r, e, n);

	for (i = 0; i < n; i++) {
		/* by frame pointers each object's in its stack map, by tables both in unw's */
		int fd = stack_fd(r, e[i].off);
		struct stack ks, us, *kp = NULL, *up = NULL;
		struct json j;

		if (!stack_opts.user_only) {
			unwinder__stack(r->unw, fd, e[i].kern_stack_id, kips, stack_opts.depth, &ks);
			kp = &ks;
		}
		if (!stack_opts.kernel_only) {
			unwinder__stack(r->unw, fd, e[i].user_stack_id, uips, stack_opts.depth, &us);
			up = &us;
			if (r->py && e[i].py_stack_id != -EFAULT)
				python__merge(r->py, r->usyms, e[i].tgid, e[i].py_stack_id, &us,
					      r->unw != NULL, mips, stack_opts.depth + PY_MERGED_EXTRA, &us);
		}
		if (env.json) {
			json__begin(&j, out);
			json__str(&j, "type", "stack");
			if (cfg.off_cpu)
				json__str(&j, "kind", e[i].off ? "off-cpu" : "on-cpu");
			json__uint(&j, "pid", e[i].tgid);
			json__str(&j, "comm", e[i].comm);
			json__uint(&j, cfg.off_cpu ? "total_us" : "samples", e[i].value);
			stacks__json(&p, &j, e[i].tgid, kp, up);
			json__end(&j);
			continue;
		}
		if (cfg.off_cpu)
			fputs(e[i].off ? "[off-cpu];" : "[on-cpu];", out);
		stacks__print(&p, out, e[i].comm, e[i].tgid, e[i].tgid, kp, up, e[i].value);
	}
	fflush(out);
out:
	free(e);
	free(kips);
	free(uips);
	free(mips);
	ksyms__free(p.ksyms);
	return err;
}

static const char *what(void)
{
	static char buf[160];
	char who[32], rate[48];

	if (env.tid)
		snprintf(who, sizeof(who), "TID %d", env.tid);
	else if (env.pid)
		snprintf(who, sizeof(who), "PID %d", env.pid);
	else
		snprintf(who, sizeof(who), "all threads");
	if (cfg.freq)
		snprintf(rate, sizeof(rate), "%llu Hertz", (unsigned long long)cfg.freq);
	else
		snprintf(rate, sizeof(rate), "1 per %llu ns of CPU", (unsigned long long)cfg.period);
	/* bcc's banner, after "Tracing" */
	snprintf(buf, sizeof(buf), "on-CPU stacks at %s of %s by %s stack%s", rate, who,
		 stack_opts.user_only ? "user" : stack_opts.kernel_only ? "kernel" :
		 "user + kernel", cfg.off_cpu ? ", and off-CPU time" : "");
	return buf;
}

/*
 * --off-cpu: offcputime-lite's BPF object, configured as that tool's
 * defaults; with tables, profile's unwinder's (loaded by libbpf's skeleton).
 */
static int open_off_cpu(struct run *r)
{
	struct offcputime_bpf *o = TOOL_OPEN(offcputime_bpf);
	int err;

	if (!o)
		return -EINVAL;
	r->off = o;
	TOOL_SET_FILTERS(o);
	o->rodata->cfg_kernel_stacks = !stack_opts.user_only;
	o->rodata->cfg_user_stacks = !stack_opts.kernel_only;
	bpf_map__set_max_entries(o->maps.stacks, stack_opts.storage);
	bpf_map__set_value_size(o->maps.stacks, stack_opts.depth * sizeof(__u64));
	bpf_map__set_max_entries(o->maps.info, stack_opts.storage > OFFCPU_STACK_STORAGE ?
				 stack_opts.storage : OFFCPU_STACK_STORAGE);
	/* the mode chosen for the sampling program holds: sched_switch's get the same helpers */
	err = unwinder__share(r->unw, UNW_BPF_MAPS(o));
	if (!err && r->py) {
		err = python__share(r->py, o->maps.py_procs, o->maps.py_stacks);
		o->rodata->cfg_python = true;
	}
	if (err)
		return err;
	tool__task_storage(o->obj, o->maps.start_task, o->maps.start);
	return tool__load_attach(o->skeleton);
}

/*
 * --unwind auto|dwarf, before load: the tables of -p's process built, the
 * maps sized; with --off-cpu the storage holds both objects' stacks.
 */
static int open_unwinder(struct run *r)
{
	unsigned int n = stack_opts.storage_set ? stack_opts.storage : UNW_STACKS_DEFAULT;
	struct unw_start s = { stack_opts.kernel_only ? UNW_MODE_FP : stack_opts.unwind,
			       BPF_PROG_TYPE_PERF_EVENT, cfg.off_cpu ? 2 * n : n,
			       &stack_opts.depth, stack_opts.depth_set };

	stack_opts.unwind = unwinder__start(&s, UNW_BPF_MAPS(r->skel), &r->unw);
	return stack_opts.unwind == UNW_MODE_FP || r->unw ? 0 : -ENOMEM;
}

/*
 * After every poll: the processes its events named get their tables now,
 * not at the next tick (their samples walk frame pointers meanwhile); one
 * snapshotted as its loader worked is read again.
 */
static bool after_poll(void *ctx)
{
	struct run *r = ctx;

	usyms__settle(r->usyms);
	unwinder__drain(r->unw);
	python__drain(r->py);
	return false;
}

/* --python, before load: the maps sized (one entry each without it). */
static int open_python(struct run *r)
{
	int err = python__open(&stack_opts.python, stack_opts.python_set, BPF_PROG_TYPE_PERF_EVENT,
			       r->skel->maps.py_procs, r->skel->maps.py_stacks, &r->py);

	r->skel->rodata->cfg_python = stack_opts.python;
	return err;
}

static int tick(void *ctx)
{
	struct run *r = ctx;
	int err = windows__tick(r->windows);

	int fds[2] = { bpf_map__fd(r->skel->maps.counts) };
	size_t ksz[2] = { sizeof(struct profile_key), sizeof(struct offcpu_key) };

	if (err)
		return err;
	python__tick(r->py);
	if (r->off)
		fds[1] = r->c.info_fd;
	procsnap__prune(r->usyms, fds, ksz, r->off ? 2 : 1);
	return r->off ? offcpu__tick(&r->c) : 0;
}

int main(int argc, char **argv)
{
	struct ring_buffer *rb = NULL;
	struct run r = { 0 };
	int err;

	msg__init(TOOL);
	opts__module(&syms__argp);
	opts__module(&window__argp);
	opts__module(&stack__argp);
	opts__parse_tool(options, parse_arg, "[duration]", doc,
			 OPTS_PID | OPTS_TID | OPTS_CGROUP | OPTS_DURATION,
			 argc, argv);
	/* early: a Ctrl-C during start-up still ends the run cleanly */
	loop__signals();

	r.skel = TOOL_OPEN(profile_bpf);
	if (!r.skel)
		return EXIT_FAIL;
	TOOL_SET_FILTERS(r.skel);
	r.skel->rodata->cfg_include_idle = cfg.include_idle;
	r.skel->rodata->cfg_kernel_stacks = !stack_opts.user_only;
	r.skel->rodata->cfg_user_stacks = !stack_opts.kernel_only;
	bpf_map__set_max_entries(r.skel->maps.stacks, stack_opts.storage);
	bpf_map__set_value_size(r.skel->maps.stacks, stack_opts.depth * sizeof(__u64));
	bpf_map__set_max_entries(r.skel->maps.counts, stack_opts.storage > PROFILE_STACK_STORAGE ?
				 stack_opts.storage : PROFILE_STACK_STORAGE);
	err = open_unwinder(&r);
	if (!err)
		err = open_python(&r);
	if (err)
		goto out;

	/* perf_event programs are attached below, one per CPU */
	err = tool__load_attach(r.skel->skeleton);
	if (err)
		goto out;
	unwinder__attach(r.unw, UNW_BPF_MAPS(r.skel));
	r.usyms = usyms__new(0);
	unwinder__symbolizer(r.unw, r.usyms);
	r.ps = (struct unw_procsnap){ r.usyms, r.unw, r.py };
	if (r.py)
		python__attach(r.py, bpf_map__fd(r.skel->maps.py_procs),
			       bpf_map__fd(r.skel->maps.py_stacks));
	rb = ring_buffer__new(bpf_map__fd(r.skel->maps.procsnap_events), unwinder__procsnap_event,
			      &r.ps, NULL);
	if (!r.usyms || !rb) {
		err = -errno ?: -ENOMEM;
		msg__fail(err, "set up the symbolizer");
		goto out;
	}
	if (cfg.off_cpu) {
		err = open_off_cpu(&r);
		if (err)
			goto out;
		offcpu__init(&r.c, bpf_map__fd(r.off->maps.info), &r.off->bss->info_added,
			     bpf_map__max_entries(r.off->maps.info), r.usyms);
		err = ring_buffer__add(rb, bpf_map__fd(r.off->maps.procsnap_events),
				       unwinder__procsnap_event, &r.ps);
		if (err) {
			msg__fail(err, "create ring buffer");
			goto out;
		}
	}
	err = attach_perf(&r);
	if (err)
		goto out;
	if (!stack_opts.kernel_only)
		unwinder__procsnap_pid(&r.ps, env.pid);
	tool__tracing(what());	/* stderr: stdout holds only the stacks */
	r.windows = windows__new(report, &r);
	if (!r.windows) {
		err = -ENOMEM;
		msg__fail(err, "set up the windows");
		goto out;
	}
	err = loop__ringbuf(rb, env.duration, 100, after_poll, tick, &r);
	/* stop counting while the report reads the maps */
	detach_perf(&r);
	if (r.off)
		tool__detach(r.off->skeleton);
	ring_buffer__consume(rb);
	if (!err)
		err = windows__finish(r.windows);
	if (r.skel->bss) {
		struct bpflite_loss l = r.skel->bss->loss;
		struct unw_counts c = r.skel->bss->unw_counts;
		struct py_counts pc = r.skel->bss->py_counts;

		if (r.off && r.off->bss) {
			l.events += r.off->bss->loss.events;
			l.stacks += r.off->bss->loss.stacks;
			l.map_full += r.off->bss->loss.map_full + r.c.fold_lost;
			COUNTERS_ADD(&c, &r.off->bss->unw_counts);
			COUNTERS_ADD(&pc, &r.off->bss->py_counts);
		}
		loss__report(&l, env.json);
		if (r.unw && env.verbose)
			unwinder__report(r.unw, &c);
		if (r.py && env.verbose)
			python__report(r.py, &pc);
	}
out:
	detach_perf(&r);
	ring_buffer__free(rb);
	windows__free(r.windows);
	usyms__free(r.usyms);
	unwinder__free(r.unw);
	python__free(r.py);
	offcputime_bpf__destroy(r.off);
	profile_bpf__destroy(r.skel);
	return err ? EXIT_FAIL : EXIT_OK;
}
