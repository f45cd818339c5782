// SPDX-License-Identifier: GPL-2.0
#include "out/hist.h"

#define STARS_MAX 40

/* bcc's _stars(): floor(width * val / max) stars, padded to width. */
static void print_stars(FILE *f, __u64 val, __u64 max, int width)
{
	/* val <= max: the product fits unless max passes 2^58; then scale both */
	int n, i;

	while (max >> 57) {
		val >>= 1;
		max >>= 1;
	}
	n = (int)((__u64)width * val / max);

	if (n > width)
		n = width;
	for (i = 0; i < n; i++)
		fputc('*', f);
	for (; i < width; i++)
		fputc(' ', f);
}

void hist__log2_bounds(int i, unsigned long long *low, unsigned long long *high)
{
	*low = i ? 1ULL << i : 0;
	*high = (1ULL << (i + 1)) - 1;
}

static int hist_extent(const __u64 *slots, int n, __u64 *max)
{
	int idx_max = -1, i;

	*max = 0;
	for (i = 0; i < n; i++) {
		if (slots[i])
			idx_max = i;
		if (slots[i] > *max)
			*max = slots[i];
	}
	return idx_max;
}

void hist__print_log2(FILE *f, const __u64 *slots, int n, const char *unit)
{
	unsigned long long low, high;
	__u64 max;
	int idx_max = hist_extent(slots, n, &max), i;
	/* bcc counts slots from 1: its "idx_max <= 32" is our idx_max <= 31 */
	int wide = idx_max > 31;

	if (idx_max < 0)
		return;
	if (wide)
		fprintf(f, "               %-29s : count     distribution\n", unit);
	else
		fprintf(f, "     %-19s : count     distribution\n", unit);
	for (i = 0; i <= idx_max; i++) {
		hist__log2_bounds(i, &low, &high);
		if (wide)
			fprintf(f, "%20llu -> %-20llu : %-8llu |", low, high, (unsigned long long)slots[i]);
		else
			fprintf(f, "%10llu -> %-10llu : %-8llu |", low, high, (unsigned long long)slots[i]);
		print_stars(f, slots[i], max, wide ? STARS_MAX / 2 : STARS_MAX);
		fputs("|\n", f);
	}
}

void hist__print_linear(FILE *f, const __u64 *slots, int n, long long base,
			long long step, const char *unit)
{
	__u64 max;
	int idx_max = hist_extent(slots, n, &max), i;

	if (idx_max < 0)
		return;
	fprintf(f, "     %-13s : count     distribution\n", unit);
	for (i = 0; i <= idx_max; i++) {
		fprintf(f, "        %-10lld : %-8llu |", base + i * step, (unsigned long long)slots[i]);
		print_stars(f, slots[i], max, STARS_MAX);
		fputs("|\n", f);
	}
}

static void json_common(struct json *j, const struct hist *h, const char *unit, double div_ns)
{
	json__str(j, "unit", unit);
	json__uint(j, "count", h->count);
	json__double(j, "sum", h->sum_ns / div_ns);
	json__double(j, "avg", h->count ? h->sum_ns / div_ns / h->count : 0);
}

void hist__json_log2(struct json *j, const struct hist *h, const char *unit, double div_ns)
{
	unsigned long long low, high;
	__u64 max;
	int idx_max = hist_extent(h->slots, HIST_SLOTS, &max), i;

	json_common(j, h, unit, div_ns);
	json__arr(j, "buckets");
	for (i = 0; i <= idx_max; i++) {
		hist__log2_bounds(i, &low, &high);
		json__obj(j, NULL);
		json__uint(j, "low", low);
		json__uint(j, "high", high);
		json__uint(j, "count", h->slots[i]);
		json__obj_end(j);
	}
	json__arr_end(j);
}

void hist__json_linear(struct json *j, const struct hist *h, const char *unit, double div_ns,
		       long long base, long long step)
{
	__u64 max;
	int idx_max = hist_extent(h->slots, HIST_SLOTS, &max), i;

	json_common(j, h, unit, div_ns);
	json__arr(j, "buckets");
	for (i = 0; i <= idx_max; i++) {
		json__obj(j, NULL);
		json__int(j, "low", base + i * step);
		json__int(j, "high", base + (i + 1) * step - 1);
		json__uint(j, "count", h->slots[i]);
		json__obj_end(j);
	}
	json__arr_end(j);
}

void hist__print_interval(FILE *f, const struct hist_entry *e, __u32 n, const char *section,
			  const char *unit, const char *hms)
{
	__u32 i;

	fprintf(f, "\n");
	if (hms)
		fprintf(f, "%-8s\n", hms);
	for (i = 0; i < n; i++) {
		if (section)
			fprintf(f, "\n%s = %s\n", section, e[i].label);
		hist__print_log2(f, e[i].h.slots, HIST_SLOTS, unit);
	}
	fflush(f);
}
