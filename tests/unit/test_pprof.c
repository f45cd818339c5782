// SPDX-License-Identifier: GPL-2.0
/* The pprof writer (common/serve/pprof.c): wire encoding, interning, gzip. */
#include <string.h>
#include "unit.h"
#include "pb_decode.h"
#include "serve/pprof.h"

/* b's bytes equal the n bytes given */
#define assert_bytes(b, ...) do {						\
	const unsigned char want[] = { __VA_ARGS__ };				\
	assert_false((b)->oom);							\
	assert_int_equal((b)->len, sizeof(want));				\
	assert_memory_equal((b)->buf, want, sizeof(want));			\
} while (0)

static void test_varint(void **state)
{
	struct pb b = { 0 };

	(void)state;
	pb__varint(&b, 0);
	assert_bytes(&b, 0x00);
	b.len = 0;
	pb__varint(&b, 1);
	assert_bytes(&b, 0x01);
	b.len = 0;
	pb__varint(&b, 127);
	assert_bytes(&b, 0x7f);
	b.len = 0;
	pb__varint(&b, 128);
	assert_bytes(&b, 0x80, 0x01);
	b.len = 0;
	pb__varint(&b, 300);		/* the protobuf documentation's example */
	assert_bytes(&b, 0xac, 0x02);
	b.len = 0;
	pb__varint(&b, 1ULL << 35);
	assert_bytes(&b, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01);
	/* the largest, and an int64 -1: ten bytes */
	b.len = 0;
	pb__varint(&b, ~0ULL);
	assert_bytes(&b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01);
	b.len = 0;
	pb__varint(&b, (__u64)(__s64)-1);
	assert_int_equal(b.len, 10);
	pb__free(&b);
	assert_null(b.buf);
}

static void test_fields(void **state)
{
	struct pb b = { 0 }, m = { 0 };
	const __u64 v[] = { 1, 300, 0 };

	(void)state;
	/* key: field << 3 | wire type */
	pb__key(&b, 1, PB_VARINT);
	assert_bytes(&b, 0x08);
	b.len = 0;
	pb__key(&b, 6, PB_LEN);
	assert_bytes(&b, 0x32);
	b.len = 0;
	pb__key(&b, 16, PB_VARINT);	/* past 15: two bytes */
	assert_bytes(&b, 0x80, 0x01);
	/* proto3: a zero varint is not written, a nonzero one is */
	b.len = 0;
	pb__uint(&b, 3, 0);
	assert_int_equal(b.len, 0);
	pb__uint(&b, 3, 150);
	assert_bytes(&b, 0x18, 0x96, 0x01);
	/* strings, the empty one too (string_table[0]) */
	b.len = 0;
	pb__bytes(&b, 6, "abc", 3);
	pb__bytes(&b, 6, "", 0);
	assert_bytes(&b, 0x32, 0x03, 'a', 'b', 'c', 0x32, 0x00);
	/* packed: one length-delimited field of varints; nothing for none */
	b.len = 0;
	pb__packed(&b, 1, v, 3);
	assert_bytes(&b, 0x0a, 0x04, 0x01, 0xac, 0x02, 0x00);
	b.len = 0;
	pb__packed(&b, 1, v, 0);
	assert_int_equal(b.len, 0);
	/* an embedded message */
	pb__uint(&m, 1, 2);
	pb__msg(&b, 4, &m);
	assert_bytes(&b, 0x22, 0x02, 0x08, 0x02);
	/* a long one: the length is a varint too */
	b.len = 0;
	m.len = 0;
	for (int i = 0; i < 200; i++)
		pb__raw(&m, "x", 1);
	pb__msg(&b, 2, &m);
	assert_int_equal(b.len, 1 + 2 + 200);
	assert_memory_equal(b.buf, ((unsigned char[]){ 0x12, 0xc8, 0x01 }), 3);
	pb__free(&m);
	pb__free(&b);
}

/* A decoded profile: its string table and its messages by field. */
struct decoded {
	unsigned char *raw;
	size_t len;
	const char *str[64];
	size_t str_len[64];
	int nstr;
	int count[16];
	uint64_t default_type, time_ns, duration_ns, period;
};

static void decode(struct pprof *p, struct decoded *d)
{
	const unsigned char *q, *end;
	struct pbf f;
	size_t gzlen;
	void *gz;

	memset(d, 0, sizeof(*d));
	assert_int_equal(pprof__gzip(p, &gz, &gzlen), 0);
	/* gzip's magic: what pprof readers sniff */
	assert_true(gzlen > 18);
	assert_memory_equal(gz, ((unsigned char[]){ 0x1f, 0x8b }), 2);
	d->raw = pbd_gunzip(gz, gzlen, &d->len);
	free(gz);
	assert_non_null(d->raw);
	q = d->raw;
	end = d->raw + d->len;
	while (q < end) {
		assert_true(pbd_next(&q, end, &f));
		assert_true(f.field < 16);
		d->count[f.field]++;
		if (f.field == 6) {
			assert_int_equal(f.wire, 2);
			assert_true(d->nstr < 64);
			d->str[d->nstr] = (const char *)f.p;
			d->str_len[d->nstr++] = f.len;
		} else if (f.field == 14) {
			d->default_type = f.v;
		} else if (f.field == 9) {
			d->time_ns = f.v;
		} else if (f.field == 10) {
			d->duration_ns = f.v;
		} else if (f.field == 12) {
			d->period = f.v;
		}
	}
}

static bool str_is(const struct decoded *d, uint64_t i, const char *s)
{
	return i < (uint64_t)d->nstr && d->str_len[i] == strlen(s) && !memcmp(d->str[i], s, d->str_len[i]);
}

/* Field `field` (a varint) of the n-th message `msg` of the profile. */
static uint64_t msg_field(const struct decoded *d, unsigned int msg, int n, unsigned int field)
{
	const unsigned char *q = d->raw, *end = d->raw + d->len, *mq;
	struct pbf f, g;

	while (pbd_next(&q, end, &f)) {
		if (f.field != msg || n--)
			continue;
		mq = f.p;
		while (pbd_next(&mq, f.p + f.len, &g))
			if (g.field == field)
				return g.wire == 0 ? g.v : (uint64_t)(g.p - d->raw);
		return 0;
	}
	fail_msg("no message %u", msg);
	return 0;
}

static void test_profile(void **state)
{
	struct pprof *p = pprof__new();
	struct decoded d;
	__u64 m1, m2, l1, l2, l3, locs[3];
	__s64 values[2] = { 3, 5000000000LL };
	struct pprof_label label = { .key = "comm", .str = "bash", .str_len = 4 };

	(void)state;
	assert_non_null(p);
	pprof__sample_type(p, "samples", "count");
	pprof__sample_type(p, "off_cpu", "nanoseconds");
	pprof__default_sample_type(p, "off_cpu");
	pprof__period(p, "off_cpu", "nanoseconds", 1);
	pprof__time(p, 1700000000000000000LL, 30000000000LL);
	/* interned: the same string, mapping, location is the same index/id */
	assert_int_equal(pprof__cstr(p, ""), 0);
	assert_int_equal(pprof__cstr(p, "samples"), 1);
	assert_int_equal(pprof__cstr(p, "samples"), 1);
	m1 = pprof__mapping(p, 0x400000, 0x401000, 0, "/bin/x", "abcd", true);
	m2 = pprof__mapping(p, 0xffffffff81000000ULL, 0xffffffff82000000ULL, 0, "[kernel.kallsyms]", NULL, true);
	assert_int_equal(m1, 1);
	assert_int_equal(m2, 2);
	assert_int_equal(pprof__mapping(p, 0x400000, 0x401000, 0, "/bin/x", "abcd", true), m1);
	l1 = pprof__location(p, m2, 0xffffffff81000010ULL, "schedule");
	l2 = pprof__location(p, m1, 0x400010, "main");
	l3 = pprof__location(p, m1, 0x400020, "main");	/* another address, the same function */
	assert_int_equal(pprof__location(p, m1, 0x400010, "main"), l2);
	assert_true(l1 && l2 && l3 && l1 != l2 && l2 != l3);
	locs[0] = l1;
	locs[1] = l2;
	locs[2] = l3;
	assert_int_equal(pprof__sample(p, locs, 3, values, 2, &label, 1), 0);
	decode(p, &d);
	assert_true(str_is(&d, 0, ""));
	assert_int_equal(d.count[1], 2);		/* sample_type */
	assert_int_equal(d.count[2], 1);		/* sample */
	assert_int_equal(d.count[3], 2);		/* mapping */
	assert_int_equal(d.count[4], 3);		/* location */
	assert_int_equal(d.count[5], 2);		/* function: schedule, main */
	assert_int_equal(d.count[11], 1);		/* period_type */
	assert_true(str_is(&d, d.default_type, "off_cpu"));
	assert_true(str_is(&d, msg_field(&d, 1, 0, 1), "samples"));
	assert_true(str_is(&d, msg_field(&d, 1, 1, 2), "nanoseconds"));
	assert_true(d.time_ns == 1700000000000000000ULL);
	assert_true(d.duration_ns == 30000000000ULL);
	assert_int_equal(d.period, 1);
	/* mapping 1: start, limit, file name, build-id, has_functions */
	assert_int_equal(msg_field(&d, 3, 0, 1), 1);
	assert_int_equal(msg_field(&d, 3, 0, 2), 0x400000);
	assert_int_equal(msg_field(&d, 3, 0, 3), 0x401000);
	assert_true(str_is(&d, msg_field(&d, 3, 0, 5), "/bin/x"));
	assert_true(str_is(&d, msg_field(&d, 3, 0, 6), "abcd"));
	assert_int_equal(msg_field(&d, 3, 0, 7), 1);
	assert_true(str_is(&d, msg_field(&d, 3, 1, 5), "[kernel.kallsyms]"));
	assert_int_equal(msg_field(&d, 3, 1, 6), 0);	/* no build-id: not written */
	/* location 1: in mapping 2 at its address */
	assert_int_equal(msg_field(&d, 4, 0, 2), m2);
	assert_true(msg_field(&d, 4, 0, 3) == 0xffffffff81000010ULL);
	/* function 1's name */
	assert_true(str_is(&d, msg_field(&d, 5, 0, 2), "schedule"));
	free(d.raw);
	pprof__free(p);
}

static void test_sample_fields(void **state)
{
	struct pprof *p = pprof__new();
	const unsigned char *q, *end, *s;
	__u64 locs[2];
	__s64 values[2] = { 2, 300 };
	struct pprof_label labels[2] = {
		{ .key = "comm", .str = "sh", .str_len = 2 },
		{ .key = "bytes", .num = 4096, .num_unit = "bytes" },
	};
	struct decoded d;
	struct pbf f, g;
	uint64_t v;
	int labels_seen = 0;

	(void)state;
	locs[0] = pprof__location(p, 0, 0x10, "leaf");
	locs[1] = pprof__location(p, 0, 0x20, "root");
	assert_int_equal(pprof__sample(p, locs, 2, values, 2, labels, 2), 0);
	decode(p, &d);
	q = d.raw;
	end = d.raw + d.len;
	while (pbd_next(&q, end, &f)) {
		if (f.field != 2)
			continue;
		s = f.p;
		while (pbd_next(&s, f.p + f.len, &g)) {
			const unsigned char *x = g.p;

			if (g.field == 1) {		/* packed location ids, leaf first */
				assert_true(pbd_varint(&x, g.p + g.len, &v) && v == locs[0]);
				assert_true(pbd_varint(&x, g.p + g.len, &v) && v == locs[1]);
				assert_true(x == g.p + g.len);
			} else if (g.field == 2) {	/* packed values */
				assert_true(pbd_varint(&x, g.p + g.len, &v) && v == 2);
				assert_true(pbd_varint(&x, g.p + g.len, &v) && v == 300);
			} else if (g.field == 3) {	/* a label */
				struct pbf h;
				uint64_t key = 0, str = 0, num = 0, unit = 0;

				while (pbd_next(&x, g.p + g.len, &h)) {
					if (h.field == 1)
						key = h.v;
					else if (h.field == 2)
						str = h.v;
					else if (h.field == 3)
						num = h.v;
					else if (h.field == 4)
						unit = h.v;
				}
				if (labels_seen++ == 0) {
					assert_true(str_is(&d, key, "comm") && str_is(&d, str, "sh") && !num);
				} else {
					assert_true(str_is(&d, key, "bytes") && !str && num == 4096);
					assert_true(str_is(&d, unit, "bytes"));
				}
			}
		}
	}
	assert_int_equal(labels_seen, 2);
	free(d.raw);
	pprof__free(p);
}

/* Untrusted strings enter the table escaped: valid UTF-8, no controls. */
static void test_hostile_strings(void **state)
{
	struct pprof *p = pprof__new();
	const char comm[] = "h\n\x1b[2J;\xff";
	struct decoded d;
	__u64 i;

	(void)state;
	i = pprof__str(p, comm, sizeof(comm) - 1);
	/* a NUL inside is kept visible, the string not cut */
	assert_int_equal(pprof__str(p, "a\0b", 3), i + 1);
	assert_int_equal(pprof__cstr(p, "caf\xc3\xa9"), i + 2);
	decode(p, &d);
	assert_true(str_is(&d, i, "h\\n\\x1b[2J;\\xff"));
	assert_true(str_is(&d, i + 1, "a\\x00b"));
	assert_true(str_is(&d, i + 2, "caf\xc3\xa9"));	/* valid UTF-8 unchanged */
	free(d.raw);
	pprof__free(p);
}

/* Many strings and locations: the intern table grows and keeps them. */
static void test_many(void **state)
{
	struct pprof *p = pprof__new();
	char name[32];
	__u64 first[5000];
	int i;

	(void)state;
	for (i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "fn_%d", i);
		first[i] = pprof__location(p, 0, 0x1000 + i, name);
		assert_int_equal(first[i], i + 1);
	}
	for (i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "fn_%d", i);
		assert_int_equal(pprof__location(p, 0, 0x1000 + i, name), first[i]);
	}
	pprof__free(p);
}

static void test_gzip_roundtrip(void **state)
{
	static unsigned char data[200000];
	unsigned char *back;
	size_t len, blen, i;
	void *gz;

	(void)state;
	for (i = 0; i < sizeof(data); i++)
		data[i] = (i * 7919) >> 5;
	assert_int_equal(pprof__gzip_bytes(data, sizeof(data), &gz, &len), 0);
	back = pbd_gunzip(gz, len, &blen);
	assert_non_null(back);
	assert_int_equal(blen, sizeof(data));
	assert_memory_equal(back, data, sizeof(data));
	free(back);
	free(gz);
	/* empty input: still a valid gzip stream */
	assert_int_equal(pprof__gzip_bytes("", 0, &gz, &len), 0);
	back = pbd_gunzip(gz, len, &blen);
	assert_non_null(back);
	assert_int_equal(blen, 0);
	free(back);
	free(gz);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_varint),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_profile),
		cmocka_unit_test(test_sample_fields),
		cmocka_unit_test(test_hostile_strings),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_gzip_roundtrip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
