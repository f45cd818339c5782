/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Prometheus text exposition (0.0.4) for --serve: metric families of
 * counters and histograms, cumulative from the start of the tool, with
 * the label values that can grow (device, syscall, reason, cgroup) capped
 * and the rest folded into "other" so totals stay right. Histograms take
 * the BPF log2 microsecond slots (struct hist) and become classic
 * buckets in seconds: slot k, [2^k, 2^(k+1)) us, is counted at or below
 * le = 2^(k+1) us; every bucket is written on every scrape.
 */
#ifndef BPFLITE_PROM_H
#define BPFLITE_PROM_H

#include <argp.h>
#include <stdbool.h>
#include <linux/types.h>
#include "abi/hist_abi.h"
#include "abi/loss_abi.h"
#include "out/sbuf.h"

#define PROM_MAX_LABELS		3
#define PROM_DEFAULT_MAX_VALUES	64

enum prom_type { PROM_COUNTER, PROM_HISTOGRAM };

struct prom_series {
	char *labels;			/* rendered: a="x",b="y" (malloc'd, any length) */
	double value;			/* counter */
	__u64 slots[HIST_SLOTS];	/* histogram */
	__u64 sum_ns;
};

struct prom_values {
	char **v;
	int n, kept;			/* values seen; of them, kept (the rest fold) */
};

struct prom_family {
	const char *name, *help;
	enum prom_type type;
	const char *label[PROM_MAX_LABELS];
	bool capped[PROM_MAX_LABELS];	/* values can grow: capped */
	struct prom_series *s;
	int n, alloc;
	struct prom_values vals[PROM_MAX_LABELS];
};

/* Values kept per capped label (--max-series); series folded into "other". */
extern int prom_max_values;
extern __u64 prom_series_dropped;

/* The series of family f for these label values (one per label); NULL: no memory. */
struct prom_series *prom__series(struct prom_family *f, const char *const *values);
/* Add a BPF histogram (microsecond log2 slots) to a histogram series. */
void prom__hist_add(struct prom_series *s, const struct hist *h);
/* Free f's series and values (it is empty again). */
void prom__free(struct prom_family *f);
/* Set every counter of f to 0 (before adding cumulative values again). */
void prom__zero(struct prom_family *f);
/* Write a family: HELP, TYPE, then its series (nothing for none). */
void prom__render(struct sbuf *b, const struct prom_family *f);
/* The le string of log2 microsecond slot k (fixed: "0.000002" ... "4294.967296"). */
const char *prom__le(int k, char *buf, size_t len);

/*
 * The exporter's options, --serve [HOST:]PORT and --max-series N: a tool
 * that serves passes this to opts__module() (the others neither offer
 * them nor link the exporter). --serve takes no -j, interval or duration.
 */
extern const struct argp prom__argp;

/*
 * --serve: serve GET /metrics (render(b, ctx), then bpflite_build_info,
 * bpflite_events_lost_total from loss, bpflite_series_dropped_total) from
 * the tool's loop until a signal (tool__tracing() then names the URL).
 * Call after load and attach. 0 or -errno (printed).
 */
int prom__serve_start(void (*render)(struct sbuf *b, void *ctx), void *ctx,
		      const struct bpflite_loss *loss);
void prom__serve_stop(void);

#endif
