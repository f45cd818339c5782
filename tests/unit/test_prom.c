// SPDX-License-Identifier: GPL-2.0
/* Prometheus text exposition: le strings, histogram rules, label caps and escaping. */
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "fail_alloc.h"
#include "serve/prom.h"

static void test_le_strings(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(prom__le(0, b, sizeof(b)), "0.000002");
	assert_string_equal(prom__le(1, b, sizeof(b)), "0.000004");
	assert_string_equal(prom__le(9, b, sizeof(b)), "0.001024");
	assert_string_equal(prom__le(19, b, sizeof(b)), "1.048576");
	assert_string_equal(prom__le(31, b, sizeof(b)), "4294.967296");
	/* slot k holds [2^k, 2^(k+1)) us: its largest value is below its le */
	for (int k = 0; k < HIST_SLOTS; k++)
		assert_true(((1ULL << (k + 1)) - 1) / 1e6 < strtod(prom__le(k, b, sizeof(b)), NULL));
}

static int count_lines(const char *s, const char *prefix)
{
	int n = 0;

	for (const char *p = s; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		n += !strncmp(p, prefix, strlen(prefix));
	return n;
}

static void test_histogram(void **state)
{
	struct prom_family f = { .name = "x_seconds", .help = "h", .type = PROM_HISTOGRAM };
	struct hist h = { .sum_ns = 1500000001ULL };
	struct prom_series *s;
	struct sbuf b = { 0 };

	(void)state;
	h.slots[0] = 2;		/* 0-1 us */
	h.slots[10] = 3;	/* 1024-2047 us */
	s = prom__series(&f, NULL);
	assert_non_null(s);
	prom__hist_add(s, &h);
	prom__hist_add(prom__series(&f, NULL), &h);	/* the same series: cumulative */
	prom__render(&b, &f);
	assert_non_null(strstr(b.p, "# TYPE x_seconds histogram\n"));
	/* every bucket, zeros included, and +Inf */
	assert_int_equal(count_lines(b.p, "x_seconds_bucket{"), HIST_SLOTS + 1);
	assert_non_null(strstr(b.p, "x_seconds_bucket{le=\"0.000002\"} 4\n"));
	assert_non_null(strstr(b.p, "x_seconds_bucket{le=\"0.001024\"} 4\n"));
	assert_non_null(strstr(b.p, "x_seconds_bucket{le=\"0.002048\"} 10\n"));
	assert_non_null(strstr(b.p, "x_seconds_bucket{le=\"+Inf\"} 10\n"));
	assert_non_null(strstr(b.p, "x_seconds_count 10\n"));
	/* exact from the nanoseconds */
	assert_non_null(strstr(b.p, "x_seconds_sum 3.000000002\n"));
	sbuf__free(&b);
	prom__free(&f);
}

static void test_cap_and_escaping(void **state)
{
	struct prom_family f = { .name = "y_total", .help = "h", .type = PROM_COUNTER,
				 .label = { "k", "op" }, .capped = { true, false } };
	const char *v[2];
	struct sbuf b = { 0 };
	struct prom_series *s;

	(void)state;
	prom_max_values = 2;
	prom_series_dropped = 0;
	v[1] = "read";
	v[0] = "a";
	prom__series(&f, v)->value += 1;
	v[0] = "b\"\\\n\xff";
	prom__series(&f, v)->value += 1;
	v[0] = "c";	/* over the cap: folded */
	prom__series(&f, v)->value += 5;
	v[0] = "d";
	prom__series(&f, v)->value += 7;
	v[0] = "c";	/* still folded, counted once */
	s = prom__series(&f, v);
	s->value += 1;
	v[0] = "a";	/* kept values stay kept */
	prom__series(&f, v)->value += 1;
	prom__render(&b, &f);
	assert_non_null(strstr(b.p, "y_total{k=\"a\",op=\"read\"} 2\n"));
	/* the value's own \ doubled, other bytes \xNN: one to one */
	assert_non_null(strstr(b.p, "y_total{k=\"b\\\"\\\\\\\\\\\\x0a\\\\xff\",op=\"read\"} 1\n"));
	assert_non_null(strstr(b.p, "y_total{k=\"other\",op=\"read\"} 13\n"));
	assert_int_equal(count_lines(b.p, "y_total{"), 3);
	assert_int_equal(prom_series_dropped, 2);	/* c and d */
	/* prom__zero: counters set anew from cumulative sources */
	prom__zero(&f);
	sbuf__reset(&b);
	prom__render(&b, &f);
	assert_non_null(strstr(b.p, "y_total{k=\"other\",op=\"read\"} 0\n"));
	sbuf__free(&b);
	prom__free(&f);
	prom_max_values = PROM_DEFAULT_MAX_VALUES;
}

/* Long and non-ASCII values stay whole and distinct: two cgroup paths that
 * differ only past byte 200, or only in a byte that is not UTF-8, are two
 * series; valid UTF-8 is kept as it is. */
static void test_values_distinct(void **state)
{
	struct prom_family f = { .name = "z_total", .help = "h", .type = PROM_COUNTER,
				 .label = { "cgroup" }, .capped = { true } };
	char a[301], c[301];
	const char *v[1];
	struct sbuf b = { 0 };

	(void)state;
	prom_series_dropped = 0;
	memset(a, 'x', 300);
	a[300] = 0;
	memcpy(c, a, sizeof(c));
	c[299] = 'y';
	v[0] = a;
	prom__series(&f, v)->value += 1;
	v[0] = c;
	prom__series(&f, v)->value += 2;
	v[0] = "caf\xc3\xa9";
	prom__series(&f, v)->value += 3;
	v[0] = "n\xff";
	prom__series(&f, v)->value += 4;
	v[0] = "n\xfe\xc2\x9b";	/* not UTF-8, then a C1 control (a terminal's CSI) */
	prom__series(&f, v)->value += 5;
	v[0] = "n\\xff";	/* the text \xff, not the byte */
	prom__series(&f, v)->value += 6;
	prom__render(&b, &f);
	assert_int_equal(count_lines(b.p, "z_total{"), 6);
	assert_int_equal(prom_series_dropped, 0);
	assert_non_null(strstr(b.p, "xxxxy\"} 2\n"));
	assert_non_null(strstr(b.p, "xxxxx\"} 1\n"));
	assert_non_null(strstr(b.p, "z_total{cgroup=\"caf\xc3\xa9\"} 3\n"));
	assert_non_null(strstr(b.p, "z_total{cgroup=\"n\\\\xff\"} 4\n"));
	assert_non_null(strstr(b.p, "z_total{cgroup=\"n\\\\xfe\\\\xc2\\\\x9b\"} 5\n"));
	assert_non_null(strstr(b.p, "z_total{cgroup=\"n\\\\\\\\xff\"} 6\n"));
	sbuf__free(&b);
	prom__free(&f);
}

/*
 * No memory for a series' labels: the sample is left out and counted in
 * bpflite_series_dropped_total, never filed under labels cut short.
 */
static void test_no_memory_drops(void **state)
{
	struct prom_family f = { .name = "m_total", .help = "h", .type = PROM_COUNTER,
				 .label = { "cgroup" } };
	char long_v[301];
	const char *v[1];
	struct sbuf b = { 0 };

	(void)state;
	prom_series_dropped = 0;
	v[0] = "a";
	prom__series(&f, v)->value += 1;
	/* the labels' first allocation fails */
	v[0] = "b";
	fail_realloc_at = 1;
	assert_null(prom__series(&f, v));
	assert_int_equal(prom_series_dropped, 1);
	/* the labels' growth past 256 bytes fails, after "cgroup=\"xxx..." was written */
	memset(long_v, 'x', 300);
	long_v[300] = 0;
	v[0] = long_v;
	fail_realloc_at = 2;
	assert_null(prom__series(&f, v));
	assert_int_equal(prom_series_dropped, 2);
	assert_int_equal(f.n, 1);
	/* with memory, the same value is one whole series */
	prom__series(&f, v)->value += 3;
	prom__render(&b, &f);
	assert_int_equal(count_lines(b.p, "m_total{"), 2);
	assert_non_null(strstr(b.p, "m_total{cgroup=\"a\"} 1\n"));
	assert_non_null(strstr(b.p, "xxxxx\"} 3\n"));
	assert_int_equal(prom_series_dropped, 2);
	sbuf__free(&b);
	prom__free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_le_strings),
		cmocka_unit_test(test_histogram),
		cmocka_unit_test(test_cap_and_escaping),
		cmocka_unit_test(test_values_distinct),
		cmocka_unit_test(test_no_memory_drops),
	};

	return cmocka_run_group_tests_name("prom", tests, NULL, NULL);
}
