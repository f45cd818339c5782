// SPDX-License-Identifier: GPL-2.0
/*
 * runqlat-lite: summarize run queue (scheduler) latency as a histogram.
 * The user side of bpf/runqlat.bpf.c.
 */
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "load/maps.h"
#include "load/tool.h"
#include "out/hist.h"
#include "out/json.h"
#include "run/loop.h"
#include "serve/prom.h"
#include "serve/serve.h"
#include "run/timefmt.h"
#include "runqlat.h"
#include "runqlat.skel.h"

#define TOOL "runqlat-lite"

static struct {
	bool per_process, per_thread, per_pidns, per_cgroup;
} cfg;

enum { OPT_PIDNSS = 0x100, OPT_CGROUPS };

static const char doc[] =
"Summarize run queue (scheduler) latency as a histogram.\n"
"\v"
"EXAMPLES:\n"
"    runqlat-lite            # summarize run queue latency as a histogram\n"
"    runqlat-lite 1 10       # print 1 second summaries, 10 times\n"
"    runqlat-lite -mT 1      # 1s summaries, milliseconds, and timestamps\n"
"    runqlat-lite -P         # show each PID separately\n"
"    runqlat-lite -L         # show each thread (TID) separately\n"
"    runqlat-lite --pidnss   # show each PID namespace separately\n"
"    runqlat-lite --cgroups  # show each cgroup v2 separately\n"
"    runqlat-lite -p 185     # trace PID 185 only\n"
"    runqlat-lite -c /sys/fs/cgroup/unified/app  # trace this cgroup only\n"
"    runqlat-lite -j 1 5     # five 1s summaries as NDJSON\n"
"    runqlat-lite --serve 9300  # Prometheus metrics on 127.0.0.1:9300/metrics\n";

static const struct argp_option options[] = {
	{ "pids", 'P', NULL, 0, "Print a histogram per process ID", 0 },
	{ "tids", 'L', NULL, 0, "Print a histogram per thread ID", 0 },
	{ "pidnss", OPT_PIDNSS, NULL, 0, "Print a histogram per PID namespace", 0 },
	{ "cgroups", OPT_CGROUPS, NULL, 0, "Print a histogram per cgroup v2 (with --serve: a cgroup label)", 0 },
	{ 0 },
};

static const char *section(void)
{
	return cfg.per_process ? "pid" : cfg.per_thread ? "tid" : cfg.per_pidns ? "pidns" :
	       cfg.per_cgroup ? "cgroup" : NULL;
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	(void)arg;
	(void)state;
	switch (key) {
	case 'P':
		cfg.per_process = true;
		break;
	case 'L':
		cfg.per_thread = true;
		break;
	case OPT_PIDNSS:
		cfg.per_pidns = true;
		break;
	case OPT_CGROUPS:
		cfg.per_cgroup = true;
		break;
	case ARGP_KEY_END:
		if (cfg.per_process + cfg.per_thread + cfg.per_pidns + cfg.per_cgroup > 1)
			msg__usage("-P, -L, --pidnss and --cgroups are mutually exclusive");
		if (serve__spec() && ((section() && !cfg.per_cgroup) || env.milliseconds))
			msg__usage("--serve takes no -P, -L, --pidnss or -m (metrics have no pid label, and are in seconds)");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/*
 * --cgroups: the path (below the cgroup2 mount, "/" for its root) of the
 * cgroup v2 directory whose inode is ino; found by walking the mount,
 * remembered.
 */
static struct {
	__u32 ino;
	char path[256];
} cg_names[256];
static int cg_nr;
static __u32 cg_want;
static size_t cg_root_len;

static int cg_visit(const char *fpath, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)ftw;
	if (type != FTW_D || (__u32)sb->st_ino != cg_want)
		return 0;
	snprintf(cg_names[cg_nr % 256].path, sizeof(cg_names[0].path), "%s",
		 fpath[cg_root_len] ? fpath + cg_root_len : "/");
	return 1;
}

static const char *cgroup_name(__u32 ino)
{
	static char root[PATH_MAX];
	char line[1024];
	int i, slot;
	FILE *f;

	for (i = 0; i < cg_nr && i < 256; i++)
		if (cg_names[i].ino == ino)
			return cg_names[i].path;
	if (!root[0] && (f = fopen("/proc/self/mountinfo", "re"))) {
		/* "id parent maj:min root mountpoint options - cgroup2 ..." */
		while (fgets(line, sizeof(line), f))
			if (strstr(line, " - cgroup2 ") &&
			    sscanf(line, "%*s %*s %*s %*s %1023s", root) == 1)
				break;
		fclose(f);
	}
	slot = cg_nr % 256;
	cg_names[slot].ino = ino;
	snprintf(cg_names[slot].path, sizeof(cg_names[0].path), "cgroup-%u", ino);
	cg_want = ino;
	cg_root_len = strlen(root);
	if (root[0])
		nftw(root, cg_visit, 16, FTW_PHYS);
	cg_nr++;
	return cg_names[slot].path;
}

static struct prom_family runq_family = {
	.name = "bpflite_runq_latency_seconds",
	.help = "Time tasks waited runnable on a run queue before they ran.",
	.type = PROM_HISTOGRAM,
};
static struct prom_family runq_cgroup_family = {
	.name = "bpflite_runq_latency_seconds",
	.help = "Time tasks waited runnable on a run queue before they ran, by cgroup v2.",
	.type = PROM_HISTOGRAM,
	.label = { "cgroup" },
	.capped = { true },
};

/* --serve: drain what BPF counted since the last scrape into the running total. */
static void render(struct sbuf *b, void *ctx)
{
	struct runqlat_bpf *skel = ctx;
	struct prom_family *f = cfg.per_cgroup ? &runq_cgroup_family : &runq_family;
	struct hist_entry *e;
	__u32 n, i;

	if (!hist__drain_entries(bpf_map__fd(skel->maps.hists), RUNQLAT_MAX_ENTRIES, &e, &n)) {
		for (i = 0; i < n; i++) {
			const char *v[1] = { cfg.per_cgroup ? cgroup_name(e[i].key) : "" };
			struct prom_series *s = prom__series(f, v);

			if (s)
				prom__hist_add(s, &e[i].h);
		}
		free(e);
	}
	prom__render(b, f);
}

static int report(void *ctx)
{
	struct runqlat_bpf *skel = ctx;
	const char *unit = env.milliseconds ? "msecs" : "usecs";
	double div = env.milliseconds ? 1e6 : 1e3;
	struct hist_entry *e;
	char hms[16];
	struct json j;
	__u32 n, i;
	int err;

	if (serve__spec())	/* nothing printed: the metrics were the output */
		return 0;
	err = hist__drain_entries(bpf_map__fd(skel->maps.hists), RUNQLAT_MAX_ENTRIES, &e, &n);
	if (err)
		return err;
	for (i = 0; i < n; i++)
		if (cfg.per_cgroup)
			snprintf(e[i].label, sizeof(e[i].label), "%s", cgroup_name(e[i].key));
		else
			snprintf(e[i].label, sizeof(e[i].label), "%u %.*s", e[i].key, HIST_COMM_LEN,
				 e[i].h.comm);

	timefmt__hms(hms, sizeof(hms));
	if (env.json) {
		tool__json_interval(&j, hms);
		json__arr(&j, "histograms");
		for (i = 0; i < n; i++) {
			json__obj(&j, NULL);
			if (cfg.per_cgroup) {
				json__str(&j, "cgroup", e[i].label);
			} else if (section()) {
				json__uint(&j, section(), e[i].key);
				json__strn(&j, "comm", e[i].h.comm, strnlen(e[i].h.comm, HIST_COMM_LEN));
			}
			hist__json_log2(&j, &e[i].h, unit, div);
			json__obj_end(&j);
		}
		json__arr_end(&j);
		json__end(&j);
	} else {
		hist__print_interval(stdout, e, n, section(), unit, env.timestamp ? hms : NULL);
	}
	free(e);
	return 0;
}

int main(int argc, char **argv)
{
	struct runqlat_bpf *skel;
	int err;

	msg__init(TOOL);
	opts__module(&prom__argp);
	opts__parse_tool(options, parse_arg, "[interval [count]]", doc,
			 OPTS_PID | OPTS_CGROUP | OPTS_TIMESTAMP | OPTS_MS | OPTS_INTERVAL,
			 argc, argv);
	skel = TOOL_OPEN(runqlat_bpf);
	if (!skel)
		return EXIT_FAIL;
	TOOL_SET_FILTERS(skel);
	skel->rodata->cfg_ms = env.milliseconds;
	skel->rodata->cfg_by = cfg.per_process ? BY_PROCESS : cfg.per_thread ? BY_THREAD :
			       cfg.per_pidns ? BY_PIDNS : cfg.per_cgroup ? BY_CGROUP : BY_ALL;
	if (!section())	/* one histogram: no need for thousands of slots */
		bpf_map__set_max_entries(skel->maps.hists, 1);
	err = tool__task_storage(skel->obj, skel->maps.start_task, skel->maps.start);
	if (err)
		goto out;

	err = tool__load_attach(skel->skeleton);
	if (err)
		goto out;
	if (serve__spec()) {
		err = prom__serve_start(render, skel, &skel->bss->loss);
		if (err)
			goto out;
	}

	loop__signals();
	tool__tracing("run queue latency");
	err = loop__intervals(env.interval, env.count, report, skel);
	loss__report(&skel->bss->loss, env.json);
out:
	prom__serve_stop();
	runqlat_bpf__destroy(skel);
	return err ? EXIT_FAIL : EXIT_OK;
}
