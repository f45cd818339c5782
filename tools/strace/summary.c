// SPDX-License-Identifier: GPL-2.0
/* strace-lite -c, -C: the summary table (and -L histograms) from the BPF counts. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "out/hist.h"
#include "out/json.h"
#include "serve/prom.h"
#include "strace_lite.h"

/* ---- summary -------------------------------------------------------------- */

struct row {
	char name[48];
	__u32 slot;
	__u64 calls, errors, ns;
	struct hist h;
};

static int cmp_rows(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	switch (cfg.sort) {
	case SORT_CALLS:
		if (x->calls != y->calls)
			return x->calls < y->calls ? 1 : -1;
		break;
	case SORT_ERRORS:
		if (x->errors != y->errors)
			return x->errors < y->errors ? 1 : -1;
		break;
	case SORT_NAME:
		return strcmp(x->name, y->name);
	case SORT_NOTHING:
		break;
	default:
		if (x->ns != y->ns)
			return x->ns < y->ns ? 1 : -1;
	}
	/* equals in syscall number order, as strace (its table's order, sorted stably) */
	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/* The rows of every syscall called so far (the BPF counts are cumulative); -ENOMEM or n. */
static int gather(int stats_fd, int hists_fd, struct row **out)
{
	int ncpu = libbpf_num_possible_cpus();
	struct strace_stat *st = calloc(ncpu, sizeof(*st));
	struct strace_hist *hs = calloc(ncpu, sizeof(*hs));
	struct row *rows = calloc(STRACE_SLOTS, sizeof(*rows));
	int n = 0;

	*out = NULL;
	if (!st || !hs || !rows) {
		free(st);
		free(hs);
		free(rows);
		return -ENOMEM;
	}
	for (__u32 slot = 0; slot < STRACE_SLOTS; slot++) {
		struct row *r = &rows[n];

		if (bpf_map_lookup_elem(stats_fd, &slot, st))
			continue;
		memset(r, 0, sizeof(*r));
		r->slot = slot;
		for (int c = 0; c < ncpu; c++) {
			r->calls += st[c].calls;
			r->errors += st[c].errors;
			r->ns += st[c].ns;
		}
		if (!r->calls)
			continue;
		if (cfg.hist && !bpf_map_lookup_elem(hists_fd, &slot, hs)) {
			for (int c = 0; c < ncpu; c++)
				for (int i = 0; i < STRACE_HIST_SLOTS && i < HIST_SLOTS; i++)
					r->h.slots[i] += hs[c].slots[i];
			r->h.count = r->calls;
			r->h.sum_ns = r->ns;
		}
		{
			char tmp[sizeof(r->name)];

			snprintf(r->name, sizeof(r->name), "%s", print__slot_name(tmp, sizeof(tmp), slot));
		}
		n++;
	}
	free(st);
	free(hs);
	*out = rows;
	return n;
}

int summary__print(int stats_fd, int hists_fd)
{
	__u64 calls = 0, errors = 0, ns = 0;
	struct row *rows;
	int n = gather(stats_fd, hists_fd, &rows);

	if (n < 0)
		return n;
	for (int i = 0; i < n; i++) {
		calls += rows[i].calls;
		errors += rows[i].errors;
		ns += rows[i].ns;
	}
	qsort(rows, n, sizeof(*rows), cmp_rows);

	if (env.json) {
		struct json j;

		json__begin(&j, trace_out);
		json__str(&j, "type", "summary");
		json__arr(&j, "syscalls");
		for (int i = 0; i < n; i++) {
			json__obj(&j, NULL);
			json__str(&j, "syscall", rows[i].name);
			json__uint(&j, "calls", rows[i].calls);
			json__uint(&j, "errors", rows[i].errors);
			json__fixed(&j, "seconds", rows[i].ns / 1e9, 6);
			json__uint(&j, "usecs_per_call", rows[i].ns / 1000 / rows[i].calls);
			json__fixed(&j, "percent_time", ns ? 100.0 * rows[i].ns / ns : 0, 2);
			if (cfg.hist) {
				json__obj(&j, "histogram");
				hist__json_log2(&j, &rows[i].h, "usecs", 1e3);
				json__obj_end(&j);
			}
			json__obj_end(&j);
		}
		json__arr_end(&j);
		json__obj(&j, "total");
		json__uint(&j, "calls", calls);
		json__uint(&j, "errors", errors);
		json__fixed(&j, "seconds", ns / 1e9, 6);
		json__obj_end(&j);
		json__end(&j);
	} else {
		const char *dash = "------ ----------- ----------- --------- --------- ----------------\n";

		fprintf(trace_out, "%% time     seconds  usecs/call     calls    errors syscall\n%s", dash);
		for (int i = 0; i < n; i++)
			fprintf(trace_out, "%6.2f %11.6f %11llu %9llu %9.llu %s\n",
				ns ? 100.0 * rows[i].ns / ns : 0.0, rows[i].ns / 1e9,
				(unsigned long long)(rows[i].ns / 1000 / rows[i].calls),
				(unsigned long long)rows[i].calls, (unsigned long long)rows[i].errors,
				rows[i].name);
		fprintf(trace_out, "%s%6.2f %11.6f %11llu %9llu %9.llu total\n", dash, 100.0, ns / 1e9,
			(unsigned long long)(calls ? ns / 1000 / calls : 0),
			(unsigned long long)calls, (unsigned long long)errors);
		if (cfg.hist) {
			for (int i = 0; i < n; i++) {
				fprintf(trace_out, "\nsyscall = %s\n", rows[i].name);
				hist__print_log2(trace_out, rows[i].h.slots, HIST_SLOTS, "usecs");
			}
		}
	}
	fflush(trace_out);
	free(rows);
	return 0;
}

/* --serve: the same counts as Prometheus counters, by syscall. */
static struct prom_family fam_calls = {
	.name = "bpflite_syscalls_total", .help = "System calls made.",
	.type = PROM_COUNTER, .label = { "syscall" }, .capped = { true },
};
static struct prom_family fam_errors = {
	.name = "bpflite_syscall_errors_total", .help = "System calls that returned an error.",
	.type = PROM_COUNTER, .label = { "syscall" }, .capped = { true },
};
static struct prom_family fam_seconds = {
	.name = "bpflite_syscall_seconds_total", .help = "System time spent in system calls (with -w: wall time, entry to exit).",
	.type = PROM_COUNTER, .label = { "syscall" }, .capped = { true },
};

void summary__metrics(struct sbuf *b, void *ctx)
{
	struct prom_family *fams[] = { &fam_calls, &fam_errors, &fam_seconds };
	const int *fds = ctx;
	struct row *rows;
	int n = gather(fds[0], fds[1], &rows);

	for (int f = 0; f < 3; f++)
		prom__zero(fams[f]);
	for (int i = 0; i < n; i++) {
		const char *v[1] = { rows[i].name };
		struct prom_series *s;

		if ((s = prom__series(&fam_calls, v)))
			s->value += rows[i].calls;
		if ((s = prom__series(&fam_errors, v)))
			s->value += rows[i].errors;
		if ((s = prom__series(&fam_seconds, v)))
			s->value += rows[i].ns / 1e9;
	}
	free(rows);
	for (int f = 0; f < 3; f++)
		prom__render(b, fams[f]);
}
