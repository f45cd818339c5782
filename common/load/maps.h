/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a tool's BPF maps from user space: the one walk of a map's keys
 * (every other read of a map's keys goes through map__keys()), the drain
 * of a map, and the drain of a map of histograms; and a map shared by
 * two objects.
 */
#ifndef BPFLITE_MAPS_H
#define BPFLITE_MAPS_H

#include <stddef.h>
#include <linux/types.h>
#include "out/hist.h"

/*
 * Every key of the map fd into *keys, a malloc'd array of *n keys of
 * key_size bytes in the kernel's order (caller frees), each key once.
 *
 * BPF may add and delete keys meanwhile. When the key a walk stands on is
 * deleted, a hash map's next key is its first again: the walk starts over.
 * So the walk takes at most 2 * max_entries steps (a full map with one
 * restart anywhere) and drops the keys it saw before. A key that stays in
 * the map all along is in *keys unless deletions restarted the walk more
 * than once; *n is at most max_entries. max_entries 0: the map's own.
 * Returns 0 or -errno (then *keys is NULL and *n 0).
 */
int map__keys(int fd, size_t key_size, __u32 max_entries, void **keys, __u32 *n);

/*
 * Read and delete every entry of a hash map: batch lookup-and-delete where
 * the kernel has it, else map__keys() and a lookup and delete per key.
 * keys and values are malloc'd arrays of *count entries, at most
 * max_entries (caller frees, also on error). Returns 0 or -errno.
 */
int map__drain(int fd, size_t key_size, size_t value_size, __u32 max_entries,
	       void **keys, void **values, __u32 *count);

/*
 * Drain a hash map of __u32 -> struct hist (map__drain) into entries
 * sorted by key; *out is malloc'd (caller frees). 0 or -errno (printed).
 */
int hist__drain_entries(int fd, __u32 max_entries, struct hist_entry **out, __u32 *n);

/*
 * Before load, a map of a second BPF object made the loaded map fd's
 * (bpf_map__reuse_fd()): two objects that share their maps. 0 or -errno,
 * said as "share the WHAT maps (NAME)".
 */
struct bpf_map;
int map__share(struct bpf_map *map, int fd, const char *what);

#endif
