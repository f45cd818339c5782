// SPDX-License-Identifier: GPL-2.0
/*
 * maps: the walk of a map's keys (map__keys) and the drain (map__drain)
 * on real BPF maps, while "BPF" (this file's bpf_map_get_next_key) deletes
 * and adds keys under the walk. Needs root (BPF maps); skipped otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "unit.h"
#include "next_key.h"
#include "load/maps.h"

/* What "BPF" does to the map at a step of the walk, before the kernel's next key. */
static struct {
	size_t key_size;	/* of the map walked */
	int delete_at;		/* at the step with this previous key (1: the first), delete it */
	int churn;		/* at every step, delete the previous key and add a new one */
	__u32 next_new;		/* churn: the next key added */
	int calls;		/* steps taken from a previous key */
} bpf;

/* Takes the place of libbpf's for the whole test binary (next_key.h). */
int bpf_map_get_next_key(int fd, const void *key, void *next_key)
{
	if (key) {
		bpf.calls++;
		if (bpf.calls == bpf.delete_at || bpf.churn)
			assert_int_equal(bpf_map_delete_elem(fd, key), 0);
		if (bpf.churn) {
			__u32 k = bpf.next_new++;
			__u64 v = 0;

			assert_int_equal(bpf_map_update_elem(fd, &k, &v, BPF_NOEXIST), 0);
		}
	}
	return sys_map_get_next_key(fd, key, bpf.key_size, next_key);
}

/* An LPM trie has no batch lookup-and-delete: the drain walks it. */
struct lpm_key {
	__u32 prefixlen;
	__u32 addr;
};

/*
 * A map of n keys i (of max) -> __u64 3 * i + 1: a hash map keyed by
 * __u32 i, or an LPM trie keyed by { 32, i }.
 */
static int test_map(enum bpf_map_type type, __u32 max, __u32 n)
{
	bool lpm = type == BPF_MAP_TYPE_LPM_TRIE;
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = lpm ? BPF_F_NO_PREALLOC : 0);
	size_t ksz = lpm ? sizeof(struct lpm_key) : sizeof(__u32);
	int fd = bpf_map_create(type, "t", ksz, sizeof(__u64), max, &o);
	__u32 i;

	if (fd < 0) {
		if (errno == EPERM)
			skip();
		fail_msg("bpf_map_create: %s", strerror(errno));
	}
	for (i = 0; i < n; i++) {
		struct lpm_key k = { 32, i };
		__u64 v = 3ULL * i + 1;

		assert_int_equal(bpf_map_update_elem(fd, lpm ? (void *)&k : &i, &v, BPF_NOEXIST), 0);
	}
	memset(&bpf, 0, sizeof(bpf));
	bpf.key_size = ksz;
	return fd;
}

static int hash_map(__u32 max, __u32 n)
{
	return test_map(BPF_MAP_TYPE_HASH, max, n);
}

/* Each key below limit at most once; returns how many of them there are. */
static __u32 count_once(const __u32 *keys, __u32 n, __u32 limit)
{
	char *seen = calloc(limit, 1);
	__u32 i;

	assert_non_null(seen);
	for (i = 0; i < n; i++) {
		assert_in_range(keys[i], 0, limit - 1);
		if (seen[keys[i]])
			fail_msg("key %u twice", keys[i]);
		seen[keys[i]] = 1;
	}
	free(seen);
	return n;
}

static __u32 keys_left(int fd)
{
	__u32 k, n = 0;

	/* a fresh walk, by the kernel alone */
	memset(&bpf, 0, sizeof(bpf));
	bpf.key_size = sizeof(__u32);
	if (!bpf_map_get_next_key(fd, NULL, &k))
		for (n = 1; !bpf_map_get_next_key(fd, &k, &k); n++)
			;
	return n;
}

/*
 * A hash map of n keys (of max), read with max_entries 0 (the map's own);
 * BPF deletes the key the walk stands on at step delete_at, when not 0.
 * Every key is read once (a deleted one was seen before it went).
 */
static void keys_read_whole(__u32 max, __u32 n, int delete_at)
{
	int fd = hash_map(max, n);
	__u32 *keys, got;

	bpf.delete_at = delete_at;
	assert_int_equal(map__keys(fd, sizeof(*keys), 0, (void **)&keys, &got), 0);
	if (delete_at)	/* the kernel started the walk over from the first key */
		assert_true(bpf.calls > (int)n);
	assert_int_equal(count_once(keys, got, n), n);
	free(keys);
	close(fd);
}

static void test_keys_all_once(void **state)
{
	(void)state;
	keys_read_whole(1024, 1000, 0);
}

/* The key the walk stands on is deleted: the kernel starts over from the first key. */
static void test_keys_restart(void **state)
{
	(void)state;
	keys_read_whole(256, 200, 100);
}

/* A full map started over near its end is still read whole, within max_entries keys. */
static void test_keys_full_map_restart(void **state)
{
	(void)state;
	keys_read_whole(256, 256, 250);
}

/* BPF deletes and adds a key at every step: the walk still ends, each key once. */
static void test_keys_churn_ends(void **state)
{
	int fd = hash_map(64, 32);
	__u32 *keys, n;

	(void)state;
	bpf.churn = 1;
	bpf.next_new = 1000;
	assert_int_equal(map__keys(fd, sizeof(*keys), 64, (void **)&keys, &n), 0);
	assert_in_range(bpf.calls, 64, 2 * 64);
	assert_in_range(n, 1, 64);
	count_once(keys, n, 1000 + 2 * 64 + 1);
	free(keys);
	close(fd);
}

static void test_keys_bad_input(void **state)
{
	int fd = hash_map(16, 4), null = open("/dev/null", O_RDONLY);
	void *keys = (void *)1;
	__u32 n = 7;

	(void)state;
	assert_true(null >= 0);
	assert_int_equal(map__keys(fd, 0, 16, &keys, &n), -EINVAL);
	assert_null(keys);
	assert_int_equal(n, 0);
	assert_true(map__keys(null, sizeof(__u32), 0, &keys, &n) < 0);
	assert_true(map__keys(null, sizeof(__u32), 16, &keys, &n) < 0);
	assert_true(map__keys(-1, sizeof(__u32), 16, &keys, &n) < 0);
	assert_null(keys);
	close(null);
	close(fd);
}

static void test_drain_batch(void **state)
{
	int fd = hash_map(128, 100);
	__u32 *keys, n, i;
	__u64 *vals;

	(void)state;
	assert_int_equal(map__drain(fd, sizeof(*keys), sizeof(*vals), 128, (void **)&keys,
				    (void **)&vals, &n), 0);
	assert_int_equal(count_once(keys, n, 100), 100);
	for (i = 0; i < n; i++)
		assert_int_equal(vals[i], 3ULL * keys[i] + 1);
	assert_int_equal(keys_left(fd), 0);
	free(keys);
	free(vals);
	close(fd);
}

static void drain_lpm(__u32 delete_at, __u32 want)
{
	int fd = test_map(BPF_MAP_TYPE_LPM_TRIE, 64, 50);
	struct lpm_key *keys, k;
	__u32 n, i, *addrs;
	__u64 *vals;

	bpf.delete_at = delete_at;
	assert_int_equal(map__drain(fd, sizeof(*keys), sizeof(*vals), 64, (void **)&keys,
				    (void **)&vals, &n), 0);
	assert_true(bpf.calls >= 50);	/* walked, not batched */
	if (delete_at)
		assert_true(bpf.calls > 50);	/* it did start over */
	addrs = calloc(n ? n : 1, sizeof(*addrs));
	assert_non_null(addrs);
	for (i = 0; i < n; i++) {
		assert_int_equal(keys[i].prefixlen, 32);
		assert_int_equal(vals[i], 3ULL * keys[i].addr + 1);
		addrs[i] = keys[i].addr;
	}
	assert_int_equal(count_once(addrs, n, 50), want);
	assert_int_equal(bpf_map_get_next_key(fd, NULL, &k), -ENOENT);	/* empty */
	free(addrs);
	free(keys);
	free(vals);
	close(fd);
}

static void test_drain_per_key(void **state)
{
	(void)state;
	drain_lpm(0, 50);
}

/* Started over by a deletion: no entry twice (the deleted one is gone). */
static void test_drain_per_key_restart(void **state)
{
	(void)state;
	drain_lpm(20, 49);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keys_all_once),
		cmocka_unit_test(test_keys_restart),
		cmocka_unit_test(test_keys_full_map_restart),
		cmocka_unit_test(test_keys_churn_ends),
		cmocka_unit_test(test_keys_bad_input),
		cmocka_unit_test(test_drain_batch),
		cmocka_unit_test(test_drain_per_key),
		cmocka_unit_test(test_drain_per_key_restart),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
