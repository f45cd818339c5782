// SPDX-License-Identifier: GPL-2.0
/*
 * offcpu: the fold of exited threads' keys (offcpu__tick) on a real BPF
 * hash map laid out like offcputime's info map, with more keys than the
 * walk's first buffers (map__keys() grows its array): every key of a
 * thread that is gone ends in one tid-0 key of its process, with the sums
 * of their values; the keys of live threads stay. Needs root (a BPF map);
 * skipped otherwise.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include "unit.h"
#include "next_key.h"
#include "offcputime/collect.h"
#include "offcputime.h"

#define GONE 5000	/* keys of exited threads: past the walk's first buffers */
#define LIVE 10		/* keys of this thread */

/* Takes the place of libbpf's for the whole test binary (next_key.h). */
int bpf_map_get_next_key(int fd, const void *key, void *next_key)
{
	return sys_map_get_next_key(fd, key, sizeof(struct offcpu_key), next_key);
}

/* a process ID that no longer exists: a child, reaped */
static pid_t gone_pid(void)
{
	pid_t p = fork();

	if (p == 0)
		_exit(0);
	assert_true(p > 0);
	assert_int_equal(waitpid(p, NULL, 0), p);
	return p;
}

static void test_fold_past_first_buffer(void **state)
{
	struct offcpu_key k, next, *prev = NULL;
	struct offcpu_val v;
	struct offcpu_collect c;
	volatile __u64 added = GONE + LIVE;
	__u64 total = 0, count = 0, sum_ns = 0, keys = 0, zero_keys = 0, live_keys = 0;
	pid_t dead = gone_pid();
	int fd, i;

	(void)state;
	fd = bpf_map_create(BPF_MAP_TYPE_HASH, "info", sizeof(k), sizeof(v), 8192, NULL);
	if (fd < 0) {
		if (errno == EPERM)
			skip();
		fail_msg("bpf_map_create: %s", strerror(errno));
	}
	for (i = 0; i < GONE + LIVE; i++) {
		memset(&k, 0, sizeof(k));
		k.tgid = i < GONE ? dead : getpid();
		k.tid = i < GONE ? 1 + i : gettid();
		k.kern_stack_id = i < GONE ? 7 : i;
		k.user_stack_id = 9;
		strcpy(k.comm, "w");
		v.total_ns = 1000 + i;
		v.count = 1;
		if (i < GONE)
			sum_ns += v.total_ns;
		assert_int_equal(bpf_map_update_elem(fd, &k, &v, BPF_NOEXIST), 0);
	}
	offcpu__init(&c, fd, &added, 8192, NULL);
	offcpu__tick(&c);
	assert_int_equal(c.removed, GONE);
	assert_int_equal(c.added, 1);
	assert_int_equal(c.fold_lost, 0);

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		assert_int_equal(bpf_map_lookup_elem(fd, &next, &v), 0);
		keys++;
		total += v.total_ns;
		count += v.count;
		if (next.tid == 0) {
			zero_keys++;
			assert_int_equal(next.tgid, dead);
			assert_int_equal(v.total_ns, sum_ns);
			assert_int_equal(v.count, GONE);
		} else {
			live_keys++;
			assert_int_equal(next.tgid, getpid());
		}
		k = next;
		prev = &k;
	}
	assert_int_equal(keys, 1 + LIVE);
	assert_int_equal(zero_keys, 1);
	assert_int_equal(live_keys, LIVE);
	assert_int_equal(count, GONE + LIVE);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fold_past_first_buffer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
