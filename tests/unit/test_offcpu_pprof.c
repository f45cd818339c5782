// SPDX-License-Identifier: GPL-2.0
/*
 * Off-CPU profiles of an interval (tools/offcputime/pprof.c): the difference
 * of two snapshots of a real BPF hash map laid out as offcputime's info
 * map, written here the way BPF and the exited-thread fold write it. Needs
 * CAP_BPF to create the maps: skipped without it.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "unit.h"
#include "pb_decode.h"
#include "offcputime/pprof.h"
#include "offcputime.h"

struct maps {
	struct offcpu_src src;
};

static int setup(void **state)
{
	struct maps *m = calloc(1, sizeof(*m));

	if (!m)
		return -1;
	m->src.info_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "info", sizeof(struct offcpu_key),
					sizeof(struct offcpu_val), 64, NULL);
	m->src.stacks_fd = bpf_map_create(BPF_MAP_TYPE_STACK_TRACE, "stacks", sizeof(__u32),
					  8 * sizeof(__u64), 16, NULL);
	m->src.max_entries = 64;
	m->src.depth = 8;
	*state = m;
	return 0;
}

static int teardown(void **state)
{
	struct maps *m = *state;

	if (m->src.info_fd >= 0)
		close(m->src.info_fd);
	if (m->src.stacks_fd >= 0)
		close(m->src.stacks_fd);
	free(m);
	return 0;
}

static struct offcpu_key key(__u32 tgid, __u32 tid, const char *comm)
{
	struct offcpu_key k;

	memset(&k, 0, sizeof(k));
	k.tgid = tgid;
	k.tid = tid;
	k.kern_stack_id = -EFAULT;
	k.user_stack_id = -EFAULT;
	strncpy(k.comm, comm, sizeof(k.comm));
	return k;
}

static void put(int fd, struct offcpu_key k, __u64 ns, __u64 count)
{
	struct offcpu_val v = { .total_ns = ns, .count = count };

	assert_int_equal(bpf_map_update_elem(fd, &k, &v, BPF_ANY), 0);
}

/* One sample of a decoded profile: comm and the two values. */
struct got {
	char comm[64];
	uint64_t count, ns;
};

static int decode_samples(const void *gz, size_t gzlen, struct got *g, int max)
{
	const char *strs[256];
	size_t lens[256], len;
	int nstr = 0, n = 0;
	unsigned char *raw = pbd_gunzip(gz, gzlen, &len);
	const unsigned char *q, *end;
	struct pbf f, s, l;

	assert_non_null(raw);
	end = raw + len;
	for (q = raw; pbd_next(&q, end, &f);) {
		if (f.field == 6 && nstr < 256) {
			strs[nstr] = (const char *)f.p;
			lens[nstr++] = f.len;
		}
	}
	for (q = raw; pbd_next(&q, end, &f);) {
		const unsigned char *sq = f.p;

		if (f.field != 2)
			continue;
		assert_true(n < max);
		memset(&g[n], 0, sizeof(g[n]));
		while (pbd_next(&sq, f.p + f.len, &s)) {
			const unsigned char *x = s.p;
			uint64_t k = 0, v = 0;

			if (s.field == 2) {
				assert_true(pbd_varint(&x, s.p + s.len, &g[n].count));
				assert_true(pbd_varint(&x, s.p + s.len, &g[n].ns));
			} else if (s.field == 3) {
				while (pbd_next(&x, s.p + s.len, &l)) {
					if (l.field == 1)
						k = l.v;
					else if (l.field == 2)
						v = l.v;
				}
				assert_true(k < (uint64_t)nstr && v < (uint64_t)nstr);
				assert_true(lens[k] == 4 && !memcmp(strs[k], "comm", 4));
				memcpy(g[n].comm, strs[v], lens[v] < 63 ? lens[v] : 63);
			}
		}
		n++;
	}
	free(raw);
	return n;
}

static const struct got *find(const struct got *g, int n, const char *comm)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(g[i].comm, comm))
			return &g[i];
	return NULL;
}

static int render(struct maps *m, const struct offcpu_snap *since, struct got *g, int max)
{
	size_t len;
	void *buf;
	int n;

	assert_int_equal(offcpu_pprof__render(&m->src, since, &buf, &len), 0);
	n = decode_samples(buf, len, g, max);
	free(buf);
	return n;
}

static void test_delta(void **state)
{
	struct maps *m = *state;
	struct offcpu_snap *s1, *s2;
	const struct got *a, *b;
	struct offcpu_key k102;
	struct got g[8];
	int fd = m->src.info_fd, n;

	if (fd < 0 || m->src.stacks_fd < 0)
		skip();
	/* two threads of process 100 with the same comm and stacks, one of 200 */
	put(fd, key(100, 101, "worker"), 1000, 1);
	put(fd, key(100, 102, "worker"), 500, 1);
	put(fd, key(200, 200, "other"), 70, 7);
	s1 = offcpu_snap__take(&m->src);
	assert_non_null(s1);

	/* BPF adds: thread 101 twice more, thread 102 once */
	put(fd, key(100, 101, "worker"), 3000, 3);
	put(fd, key(100, 102, "worker"), 700, 2);
	/* a second request starts here */
	s2 = offcpu_snap__take(&m->src);
	assert_non_null(s2);
	/* thread 102 exits: the fold moves its key to tid 0 */
	k102 = key(100, 102, "worker");
	assert_int_equal(bpf_map_delete_elem(fd, &k102), 0);
	put(fd, key(100, 0, "worker"), 700, 2);
	/* a new process */
	put(fd, key(300, 300, "new"), 9, 1);

	/* since s1: worker 3000+700 - (1000+500), 5 - 2; other unchanged: absent */
	n = render(m, s1, g, 8);
	assert_int_equal(n, 2);
	a = find(g, n, "worker");
	b = find(g, n, "new");
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(a->ns, 2200);
	assert_int_equal(a->count, 3);
	assert_int_equal(b->ns, 9);
	assert_int_equal(b->count, 1);
	assert_null(find(g, n, "other"));

	/* since s2 (taken before the fold): only the new process */
	n = render(m, s2, g, 8);
	assert_int_equal(n, 1);
	assert_non_null(find(g, n, "new"));

	/* the map is untouched: s1 again gives the same; no start: everything */
	n = render(m, s1, g, 8);
	assert_int_equal(n, 2);
	assert_int_equal(find(g, n, "worker")->ns, 2200);
	n = render(m, NULL, g, 8);
	assert_int_equal(n, 3);
	assert_int_equal(find(g, n, "worker")->ns, 3700);
	assert_int_equal(find(g, n, "worker")->count, 5);
	assert_int_equal(find(g, n, "other")->count, 7);

	/* counts lost to a full map (below the start): nothing, not a wrap */
	put(fd, key(200, 200, "other"), 10, 1);
	n = render(m, s1, g, 8);
	assert_null(find(g, n, "other"));
	offcpu_snap__free(s1);
	offcpu_snap__free(s2);
}

static void test_hostile_comm(void **state)
{
	struct maps *m = *state;
	struct offcpu_snap *s;
	struct got g[8];
	int n;

	if (m->src.info_fd < 0)
		skip();
	s = offcpu_snap__take(&m->src);
	put(m->src.info_fd, key(400, 400, "h\n\x1b[2J;\xff"), 5, 1);
	n = render(m, s, g, 8);
	assert_int_equal(n, 1);
	assert_string_equal(g[0].comm, "h\\n\\x1b[2J;\\xff");
	offcpu_snap__free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_delta, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile_comm, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
