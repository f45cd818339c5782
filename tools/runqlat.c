// SPDX-License-Identifier: GPL-2.0
/*
 * runqlat-lite: summarize run queue (scheduler) latency as a histogram.
 * The user side of bpf/runqlat.bpf.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tool.h"
#include "hist.h"
#include "json.h"
#include "loop.h"
#include "timefmt.h"
#include "runqlat.h"
#include "runqlat.skel.h"

#define TOOL "runqlat-lite"

static struct {
	bool per_process, per_thread, per_pidns;
} cfg;

enum { OPT_PIDNSS = 0x100 };

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
"    runqlat-lite -p 185     # trace PID 185 only\n"
"    runqlat-lite -c /sys/fs/cgroup/unified/app  # trace this cgroup only\n"
"    runqlat-lite -j 1 5     # five 1s summaries as NDJSON\n";

static const struct argp_option options[] = {
	{ "pids", 'P', NULL, 0, "Print a histogram per process ID", 0 },
	{ "tids", 'L', NULL, 0, "Print a histogram per thread ID", 0 },
	{ "pidnss", OPT_PIDNSS, NULL, 0, "Print a histogram per PID namespace", 0 },
	{ 0 },
};

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
	case ARGP_KEY_END:
		if (cfg.per_process + cfg.per_thread + cfg.per_pidns > 1)
			msg__usage("-P, -L and --pidnss are mutually exclusive");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const char *section(void)
{
	return cfg.per_process ? "pid" : cfg.per_thread ? "tid" : cfg.per_pidns ? "pidns" : NULL;
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

	err = hist__drain_entries(bpf_map__fd(skel->maps.hists), RUNQLAT_MAX_ENTRIES, &e, &n);
	if (err)
		return err;
	for (i = 0; i < n; i++)
		snprintf(e[i].label, sizeof(e[i].label), "%u %.*s", e[i].key, HIST_COMM_LEN,
			 e[i].h.comm);

	timefmt__hms(hms, sizeof(hms));
	if (env.json) {
		tool__json_interval(&j, hms);
		json__arr(&j, "histograms");
		for (i = 0; i < n; i++) {
			json__obj(&j, NULL);
			if (section()) {
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
	opts__parse_tool(options, parse_arg, "[interval [count]]", doc,
			 OPTS_PID | OPTS_CGROUP | OPTS_TIMESTAMP | OPTS_MS | OPTS_INTERVAL,
			 argc, argv);
	skel = TOOL_OPEN(runqlat_bpf);
	if (!skel)
		return EXIT_FAIL;
	TOOL_SET_FILTERS(skel);
	skel->rodata->cfg_ms = env.milliseconds;
	skel->rodata->cfg_by = cfg.per_process ? BY_PROCESS : cfg.per_thread ? BY_THREAD :
			       cfg.per_pidns ? BY_PIDNS : BY_ALL;
	if (!section())	/* one histogram: no need for thousands of slots */
		bpf_map__set_max_entries(skel->maps.hists, 1);
	err = tool__task_storage(skel->obj, skel->maps.start_task, skel->maps.start);
	if (err)
		goto out;

	err = tool__load_attach(skel->skeleton);
	if (err)
		goto out;

	loop__signals();
	tool__tracing("run queue latency");
	err = loop__intervals(env.interval, env.count, report, skel);
	loss__report(&skel->bss->loss, env.json);
out:
	runqlat_bpf__destroy(skel);
	return err ? EXIT_FAIL : EXIT_OK;
}
