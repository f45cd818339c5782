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

struct entry {
	__u32 key;
	struct hist h;
};

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
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
	__u32 *keys = NULL, n, i;
	struct hist *vals = NULL;
	struct entry *e;
	char hms[16];
	struct json j;
	int err;

	err = map__drain(bpf_map__fd(skel->maps.hists), sizeof(__u32), sizeof(struct hist),
			 RUNQLAT_MAX_ENTRIES, (void **)&keys, (void **)&vals, &n);
	if (err) {
		msg__fail(err, "read histograms");
		free(keys);
		free(vals);
		return err;
	}
	e = calloc(n ? n : 1, sizeof(*e));
	if (!e) {
		free(keys);
		free(vals);
		return -1;
	}
	for (i = 0; i < n; i++) {
		e[i].key = keys[i];
		e[i].h = vals[i];
	}
	free(keys);
	free(vals);
	qsort(e, n, sizeof(*e), cmp_entry);

	timefmt__hms(hms, sizeof(hms));
	if (env.json) {
		json__begin(&j, stdout);
		json__str(&j, "type", "interval");
		json__fixed(&j, "timestamp", timefmt__epoch(), 6);
		json__str(&j, "time", hms);
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
		printf("\n");
		if (env.timestamp)
			printf("%-8s\n", hms);
		for (i = 0; i < n; i++) {
			if (section())
				printf("\n%s = %u %.*s\n", section(), e[i].key, HIST_COMM_LEN, e[i].h.comm);
			hist__print_log2(stdout, e[i].h.slots, HIST_SLOTS, unit);
		}
		fflush(stdout);
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

	err = tool__load_attach(skel->skeleton);
	if (err)
		goto out;
	tool__verbose_maps(skel->obj);

	loop__signals();
	tool__tracing("run queue latency");
	err = loop__intervals(env.interval, env.count, report, skel);
	loss__report(&skel->bss->loss, env.json);
out:
	runqlat_bpf__destroy(skel);
	return err ? EXIT_FAIL : EXIT_OK;
}
