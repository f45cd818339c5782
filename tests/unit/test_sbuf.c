// SPDX-License-Identifier: GPL-2.0
/* Growing text lines: appends, growth, and the sticky error of a failed one. */
#include <stdint.h>
#include <string.h>
#include "unit.h"
#include "fail_alloc.h"
#include "out/sbuf.h"

static void test_appends(void **state)
{
	struct sbuf b = { 0 };
	char big[1001];

	(void)state;
	sbuf__printf(&b, "%s=%d", "a", 1);
	sbuf__putn(&b, "bcx", 2);
	sbuf__pad(&b, 8);
	sbuf__putn(&b, "|", 1);
	assert_string_equal(b.p, "a=1bc   |");
	assert_int_equal(b.len, 9);
	/* past the first 256 bytes: printf grows and writes it whole */
	memset(big, 'z', 1000);
	big[1000] = 0;
	sbuf__printf(&b, "%s.", big);
	assert_int_equal(b.len, 9 + 1001);
	assert_int_equal(strlen(b.p), b.len);
	assert_memory_equal(b.p + 9, big, 1000);
	assert_string_equal(b.p + b.len - 1, ".");
	assert_false(b.err);
	sbuf__reset(&b);
	assert_string_equal(b.p, "");
	sbuf__free(&b);
	assert_null(b.p);
}

/* A failed growth sets err; it stays, later appends do nothing, the text is what came before. */
static void test_failed_growth_sticky(void **state)
{
	struct sbuf b = { 0 };
	char big[301];

	(void)state;
	memset(big, 'z', 300);
	big[300] = 0;
	sbuf__printf(&b, "abc");
	fail_realloc_at = 1;
	sbuf__putn(&b, big, 300);
	assert_true(b.err);
	assert_string_equal(b.p, "abc");
	assert_int_equal(b.len, 3);
	/* memory is back, the error stays: no hole in the text */
	sbuf__putn(&b, "d", 1);
	sbuf__printf(&b, "e");
	sbuf__pad(&b, 10);
	assert_true(b.err);
	assert_string_equal(b.p, "abc");
	/* printf's failed growth: the part vsnprintf wrote is cut off again */
	sbuf__reset(&b);
	assert_false(b.err);
	sbuf__printf(&b, "abc");
	fail_realloc_at = 1;
	sbuf__printf(&b, "%s", big);
	assert_true(b.err);
	assert_string_equal(b.p, "abc");
	/* pad's */
	sbuf__reset(&b);
	fail_realloc_at = 1;
	sbuf__pad(&b, 300);
	assert_true(b.err);
	assert_string_equal(b.p, "");
	/* a first allocation that fails: no text at all, err says so */
	sbuf__free(&b);
	assert_false(b.err);
	fail_realloc_at = 1;
	sbuf__printf(&b, "x");
	assert_true(b.err);
	assert_null(b.p);
	sbuf__reset(&b);
	sbuf__printf(&b, "x");
	assert_false(b.err);
	assert_string_equal(b.p, "x");
	sbuf__free(&b);
}

/* Sizes no allocation can hold fail cleanly: no wrap in the size arithmetic. */
static void test_huge_sizes(void **state)
{
	struct sbuf b = { 0 };

	(void)state;
	sbuf__printf(&b, "abc");
	sbuf__putn(&b, "q", SIZE_MAX - 2);
	assert_true(b.err);
	assert_string_equal(b.p, "abc");
	sbuf__reset(&b);
	sbuf__pad(&b, SIZE_MAX / 2);
	assert_true(b.err);
	assert_string_equal(b.p, "");
	sbuf__free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_appends),
		cmocka_unit_test(test_failed_growth_sticky),
		cmocka_unit_test(test_huge_sizes),
	};

	return cmocka_run_group_tests_name("sbuf", tests, NULL, NULL);
}
