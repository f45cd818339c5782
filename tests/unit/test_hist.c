// SPDX-License-Identifier: GPL-2.0
/* Histogram buckets and rendering against bcc's layout. */
#include <string.h>
#include "unit.h"
#include "out/hist.h"

/* Output of bcc's print_log2_hist() for the same counts, byte for byte. */
static const char golden_log2[] =
"     usecs               : count     distribution\n"
"         0 -> 1          : 0        |                                        |\n"
"         2 -> 3          : 0        |                                        |\n"
"         4 -> 7          : 4        |**                                      |\n"
"         8 -> 15         : 6        |***                                     |\n"
"        16 -> 31         : 22       |************                            |\n"
"        32 -> 63         : 69       |****************************************|\n"
"        64 -> 127        : 5        |**                                      |\n"
"       128 -> 255        : 0        |                                        |\n"
"       256 -> 511        : 1        |                                        |\n";

static void test_log2_golden(void **state)
{
	__u64 slots[HIST_SLOTS] = { 0, 0, 4, 6, 22, 69, 5, 0, 1 };
	struct capture c;

	(void)state;
	capture_open(&c);
	hist__print_log2(c.f, slots, HIST_SLOTS, "usecs");
	assert_string_equal(capture_text(&c), golden_log2);
	capture_close(&c);
}

static void test_log2_empty_prints_nothing(void **state)
{
	__u64 slots[HIST_SLOTS] = { 0 };
	struct capture c;

	(void)state;
	capture_open(&c);
	hist__print_log2(c.f, slots, HIST_SLOTS, "usecs");
	assert_string_equal(capture_text(&c), "");
	capture_close(&c);
}

static void test_log2_wide_layout(void **state)
{
	__u64 slots[40] = { 0 };
	struct capture c;
	const char *t;

	(void)state;
	slots[0] = 1;
	slots[33] = 2;
	capture_open(&c);
	hist__print_log2(c.f, slots, 40, "nsecs");
	t = capture_text(&c);
	/* bcc switches to 20-wide columns and 20 stars past slot 32 */
	assert_non_null(strstr(t, "               nsecs                         : count     distribution\n"));
	assert_non_null(strstr(t, "                   0 -> 1                    : 1        |**********          |\n"));
	assert_non_null(strstr(t, "          8589934592 -> 17179869183          : 2        |********************|\n"));
	capture_close(&c);
}

static void test_log2_bounds(void **state)
{
	unsigned long long lo, hi;

	(void)state;
	hist__log2_bounds(0, &lo, &hi);
	assert_int_equal(lo, 0);
	assert_int_equal(hi, 1);
	hist__log2_bounds(1, &lo, &hi);
	assert_int_equal(lo, 2);
	assert_int_equal(hi, 3);
	hist__log2_bounds(10, &lo, &hi);
	assert_int_equal(lo, 1024);
	assert_int_equal(hi, 2047);
}

/* The BPF slot function, compiled for the host: same header. */

#include "bpf/hist.bpf.h"

static void test_slot_function(void **state)
{
	(void)state;
	assert_int_equal(hist_slot_log2(0), 0);
	assert_int_equal(hist_slot_log2(1), 0);
	assert_int_equal(hist_slot_log2(2), 1);
	assert_int_equal(hist_slot_log2(3), 1);
	assert_int_equal(hist_slot_log2(4), 2);
	assert_int_equal(hist_slot_log2(1023), 9);
	assert_int_equal(hist_slot_log2(1024), 10);
	assert_int_equal(hist_slot_log2(12000), 13);
	assert_int_equal(hist_slot_log2(~0ULL), HIST_SLOTS - 1);
	for (__u64 v = 1; v < (1ULL << 31); v = v * 3 + 1) {
		unsigned long long lo, hi;

		hist__log2_bounds(hist_slot_log2(v), &lo, &hi);
		assert_true(v >= lo && v <= hi);
	}
	assert_int_equal(hist_slot_linear(5, 0, 1), 5);
	assert_int_equal(hist_slot_linear(25, 10, 5), 3);
	assert_int_equal(hist_slot_linear(3, 10, 5), 0);
	assert_int_equal(hist_slot_linear(100000, 0, 1), HIST_SLOTS - 1);
}

static const char golden_linear[] =
"     msecs         : count     distribution\n"
"        10         : 2        |********************                    |\n"
"        15         : 4        |****************************************|\n"
"        20         : 1        |**********                              |\n";

static void test_linear_golden(void **state)
{
	__u64 slots[HIST_SLOTS] = { 2, 4, 1 };
	struct capture c;

	(void)state;
	capture_open(&c);
	hist__print_linear(c.f, slots, HIST_SLOTS, 10, 5, "msecs");
	assert_string_equal(capture_text(&c), golden_linear);
	capture_close(&c);
}

static void test_json_form(void **state)
{
	struct hist h = { .slots = { 1, 0, 3 }, .count = 4, .sum_ns = 10000 };
	struct capture c;
	struct json j;

	(void)state;
	capture_open(&c);
	json__begin(&j, c.f);
	hist__json_log2(&j, &h, "usecs", 1e3);
	json__end(&j);
	assert_string_equal(capture_text(&c),
		"{\"unit\":\"usecs\",\"count\":4,\"sum\":10,\"avg\":2.5,\"buckets\":["
		"{\"low\":0,\"high\":1,\"count\":1},{\"low\":2,\"high\":3,\"count\":0},"
		"{\"low\":4,\"high\":7,\"count\":3}]}\n");
	capture_close(&c);
}

/* A slot past 2^32 events (hours of a busy CPU's switches): no wrap in the
 * map's value, the text or the JSON. */
static void test_count_past_u32(void **state)
{
	struct hist h = { .slots = { 0, 1, 5000000000ULL }, .count = 5000000001ULL };
	struct capture c;
	struct json j;

	(void)state;
	_Static_assert(sizeof(h.slots[0]) == 8, "a histogram slot holds 64 bits");
	capture_open(&c);
	hist__print_log2(c.f, h.slots, HIST_SLOTS, "usecs");
	assert_string_equal(capture_text(&c),
		"     usecs               : count     distribution\n"
		"         0 -> 1          : 0        |                                        |\n"
		"         2 -> 3          : 1        |                                        |\n"
		"         4 -> 7          : 5000000000 |****************************************|\n");
	capture_close(&c);
	capture_open(&c);
	json__begin(&j, c.f);
	hist__json_log2(&j, &h, "usecs", 1e3);
	json__end(&j);
	assert_non_null(strstr(capture_text(&c), "{\"low\":4,\"high\":7,\"count\":5000000000}"));
	capture_close(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_log2_golden),
		cmocka_unit_test(test_log2_empty_prints_nothing),
		cmocka_unit_test(test_log2_wide_layout),
		cmocka_unit_test(test_log2_bounds),
		cmocka_unit_test(test_slot_function),
		cmocka_unit_test(test_linear_golden),
		cmocka_unit_test(test_json_form),
		cmocka_unit_test(test_count_past_u32),
	};

	return cmocka_run_group_tests_name("hist", tests, NULL, NULL);
}
