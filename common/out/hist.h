/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Histogram printers in bcc's exact text layout and their JSON form. The
 * drain of a BPF hash map of histograms is hist__drain_entries() (load/maps.h).
 */
#ifndef BPFLITE_HIST_H
#define BPFLITE_HIST_H

#include <stdio.h>
#include <linux/types.h>
#include "abi/hist_abi.h"
#include "out/json.h"

/* bcc's print_log2_hist(): slot i holds [2^i, 2^(i+1)), slot 0 holds 0..1. */
void hist__print_log2(FILE *f, const __u64 *slots, int n, const char *unit);
/* bcc's print_linear_hist(): slot i is the value base + i*step. */
void hist__print_linear(FILE *f, const __u64 *slots, int n, long long base,
			long long step, const char *unit);
/* Bounds of log2 slot i. */
void hist__log2_bounds(int i, unsigned long long *low, unsigned long long *high);
/*
 * JSON: "unit", "count", "sum" (in unit), "buckets":[{"low","high","count"}]
 * for the non-empty range of slots. div_ns converts sum_ns to unit.
 */
void hist__json_log2(struct json *j, const struct hist *h, const char *unit, double div_ns);
void hist__json_linear(struct json *j, const struct hist *h, const char *unit, double div_ns,
		       long long base, long long step);

/* One histogram of a map keyed by __u32, with the tool's name for its key. */
struct hist_entry {
	__u32 key;
	struct hist h;
	char label[128];
};

/*
 * An interval in bcc's text layout: a blank line, the time with -T
 * (hms non-NULL), then each histogram, under "<section> = <label>" when
 * section is non-NULL.
 */
void hist__print_interval(FILE *f, const struct hist_entry *e, __u32 n, const char *section,
			  const char *unit, const char *hms);

#endif
