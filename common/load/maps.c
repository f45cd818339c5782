// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "load/maps.h"
#include "run/msg.h"

#define ENOTSUPP_USER 524	/* the kernel's ENOTSUPP, not exported to user space */

struct key_order {
	const char *keys;
	size_t size;
};

/* By key bytes, then by place in the walk: the first of equal keys first. */
static int cmp_key_index(const void *a, const void *b, void *ctx)
{
	const struct key_order *o = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = memcmp(o->keys + x * o->size, o->keys + y * o->size, o->size);

	return c ? c : (x > y) - (x < y);
}

/* Drop the keys seen before from keys[0..n), in place, in walk order; the count kept. */
static int dedupe(char *keys, size_t ksz, size_t *n)
{
	struct key_order o = { keys, ksz };
	size_t *idx, i, kept = 0;
	bool *dup;

	if (*n < 2)
		return 0;
	idx = malloc(*n * sizeof(*idx));
	dup = calloc(*n, sizeof(*dup));
	if (!idx || !dup) {
		free(idx);
		free(dup);
		return -ENOMEM;
	}
	for (i = 0; i < *n; i++)
		idx[i] = i;
	qsort_r(idx, *n, sizeof(*idx), cmp_key_index, &o);
	for (i = 1; i < *n; i++)
		if (!memcmp(keys + idx[i - 1] * ksz, keys + idx[i] * ksz, ksz))
			dup[idx[i]] = true;
	for (i = 0; i < *n; i++)
		if (!dup[i])
			memmove(keys + kept++ * ksz, keys + i * ksz, ksz);
	*n = kept;
	free(idx);
	free(dup);
	return 0;
}

static int max_entries_of(int fd, __u32 *max)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	*max = info.max_entries;
	return 0;
}

int map__keys(int fd, size_t ksz, __u32 max, void **keys_out, __u32 *n_out)
{
	size_t n = 0, cap = 0, steps;
	char *keys = NULL, *prev, *q;
	int err = 0;

	*keys_out = NULL;
	*n_out = 0;
	if (!ksz)
		return -EINVAL;
	if (!max && (err = max_entries_of(fd, &max)))
		return err;
	/* the previous key in a copy of its own: realloc() below moves the array */
	prev = malloc(ksz);
	if (!prev)
		return -ENOMEM;
	for (steps = 0; steps < 2 * (size_t)max; steps++) {
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			if (cap > 2 * (size_t)max)
				cap = 2 * (size_t)max;
			q = realloc(keys, cap * ksz);
			if (!q) {
				err = -ENOMEM;
				break;
			}
			keys = q;
		}
		err = bpf_map_get_next_key(fd, n ? prev : NULL, keys + n * ksz);
		if (err) {
			err = err == -ENOENT ? 0 : err;	/* ENOENT: past the last key */
			break;
		}
		memcpy(prev, keys + n * ksz, ksz);
		n++;
	}
	free(prev);
	if (!err)
		err = dedupe(keys, ksz, &n);
	if (err) {
		free(keys);
		return err;
	}
	*keys_out = keys;
	*n_out = n < max ? n : max;
	return 0;
}

/* The drain without batch operations: walk, then look up and delete each key. */
static int drain_per_key(int fd, size_t ksz, size_t vsz, __u32 max, char **keys, char *vals,
			 __u32 *count)
{
	char *walked;
	__u32 n, i, kept = 0;
	int err = map__keys(fd, ksz, max, (void **)&walked, &n);

	if (err)
		return err;
	for (i = 0; i < n; i++) {
		if (bpf_map_lookup_elem(fd, walked + i * ksz, vals + kept * vsz))
			continue;	/* deleted since the walk */
		bpf_map_delete_elem(fd, walked + i * ksz);
		memmove(walked + kept++ * ksz, walked + i * ksz, ksz);
	}
	free(*keys);
	*keys = walked;
	*count = kept;
	return 0;
}

static bool no_batch(int err)
{
	return err == -EINVAL || err == -ENOTSUP || err == -EOPNOTSUPP || err == -ENOTSUPP_USER;
}

int map__drain(int fd, size_t ksz, size_t vsz, __u32 max, void **keys_out,
	       void **vals_out, __u32 *count)
{
	char *keys = calloc(max ? max : 1, ksz), *vals = calloc(max ? max : 1, vsz);
	__u32 n = 0, batch, in = 0, out = 0;
	bool first = true;
	int err = 0;

	*keys_out = keys;
	*vals_out = vals;
	*count = 0;
	if (!keys || !vals)
		return -ENOMEM;
	while (n < max) {
		batch = max - n;
		err = bpf_map_lookup_and_delete_batch(fd, first ? NULL : &in, &out, keys + n * ksz,
						      vals + n * vsz, &batch, NULL);
		if (err && err != -ENOENT) {
			if (n == 0 && no_batch(err)) {
				err = drain_per_key(fd, ksz, vsz, max, &keys, vals, &n);
				*keys_out = keys;
			}
			break;
		}
		n += batch;
		if (err) {	/* ENOENT: the whole map was read */
			err = 0;
			break;
		}
		in = out;
		first = false;
	}
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

int map__share(struct bpf_map *map, int fd, const char *what)
{
	int err = bpf_map__reuse_fd(map, fd);

	if (err)
		msg__fail(err, "share the %s maps (%s)", what, bpf_map__name(map));
	return err;
}
