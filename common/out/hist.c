// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "out/hist.h"
#include "run/msg.h"

#define ENOTSUPP_USER 524	/* the kernel's ENOTSUPP, not exported to user space */

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

static int drain_iter(int fd, size_t ksz, size_t vsz, __u32 max, char *keys, char *vals,
		      __u32 *count)
{
	char *prev = NULL;
	__u32 n = 0, i;
	int err;

	while (n < max) {
		err = bpf_map_get_next_key(fd, prev, keys + n * ksz);
		if (err) {
			if (errno == ENOENT)
				break;
			return -errno;
		}
		if (!bpf_map_lookup_elem(fd, keys + n * ksz, vals + n * vsz)) {
			prev = keys + n * ksz;
			n++;
		} else {
			prev = keys + n * ksz;
		}
	}
	for (i = 0; i < n; i++)
		bpf_map_delete_elem(fd, keys + i * ksz);
	*count = n;
	return 0;
}

int map__drain(int fd, size_t ksz, size_t vsz, __u32 max, void **keys_out,
	       void **vals_out, __u32 *count)
{
	char *keys = calloc(max ? max : 1, ksz), *vals = calloc(max ? max : 1, vsz);
	__u32 n = 0, batch, in = 0, out = 0;
	bool first = true;
	int err = 0;

	*count = 0;
	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -ENOMEM;
	}
	while (n < max) {
		batch = max - n;
		err = bpf_map_lookup_and_delete_batch(fd, first ? NULL : &in, &out,
						      keys + n * ksz, vals + n * vsz, &batch, NULL);
		if (err && errno != ENOENT) {
			err = -errno;
			if (n == 0 && (err == -EINVAL || err == -ENOTSUP || err == -EOPNOTSUPP ||
				       err == -ENOTSUPP_USER)) {
				err = drain_iter(fd, ksz, vsz, max, keys, vals, &n);
				break;
			}
			break;
		}
		n += batch;
		if (err)	/* ENOENT: the whole map was read */
			break;
		in = out;
		first = false;
	}
	if (err == -ENOENT || (err && errno == ENOENT))
		err = 0;
	*keys_out = keys;
	*vals_out = vals;
	*count = n;
	return err;
}

static int cmp_hist_entry(const void *a, const void *b)
{
	const struct hist_entry *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

int hist__drain_entries(int fd, __u32 max_entries, struct hist_entry **out, __u32 *n)
{
	__u32 *keys = NULL, i;
	struct hist *vals = NULL;
	struct hist_entry *e;
	int err;

	*out = NULL;
	err = map__drain(fd, sizeof(__u32), sizeof(struct hist), max_entries,
			 (void **)&keys, (void **)&vals, n);
	if (err) {
		msg__fail(err, "read histograms");
		goto out;
	}
	e = calloc(*n ? *n : 1, sizeof(*e));
	if (!e) {
		err = -ENOMEM;
		msg__fail(err, "read histograms");
		goto out;
	}
	for (i = 0; i < *n; i++) {
		e[i].key = keys[i];
		e[i].h = vals[i];
	}
	qsort(e, *n, sizeof(*e), cmp_hist_entry);
	*out = e;
out:
	free(keys);
	free(vals);
	return err;
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
