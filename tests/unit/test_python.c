// SPDX-License-Identifier: GPL-2.0
/* CPython's line tables (common/syms/python.c), against CPython itself: 3.11's, 3.10's. */
#include <string.h>
#include "unit.h"
#include "syms/python.h"

/*
 * def f(n):            # line 1
 *     x = 0
 *     for i in range(n):
 *         if i % 3:
 *             x += i * i
 *         else:
 *             x -= 1
 *     return (x,
 *             n)
 * f.__code__.co_linetable of Debian's python3.11, and co_lines() as
 * (first code unit, end, line): short, one-line, and long forms, a
 * negative line delta (9 back to 8).
 */
static const char table_hex[] =
	"8000d808098041dd0d12903189588c58f000040513f0000405138801d80b0c88718935f000030913d80c"
	"0d901190519115894a88418841e00c0d9011894688418841d80c0dd80c0df003010c0ff00001050f";
static const int lines[][3] = {
	{ 0, 1, 1 }, { 1, 3, 2 }, { 3, 20, 3 }, { 20, 25, 4 }, { 25, 34, 5 },
	{ 34, 40, 7 }, { 40, 41, 8 }, { 41, 42, 9 }, { 42, 44, 8 },
};

static size_t unhex(const char *h, __u8 *out)
{
	size_t n = strlen(h) / 2;

	for (size_t i = 0; i < n; i++) {
		unsigned v;

		sscanf(h + 2 * i, "%2x", &v);
		out[i] = v;
	}
	return n;
}

static void test_lines(void **state)
{
	__u8 t[256];
	size_t n = unhex(table_hex, t);

	(void)state;
	for (size_t r = 0; r < sizeof(lines) / sizeof(lines[0]); r++)
		for (int u = lines[r][0]; u < lines[r][1]; u++)
			assert_int_equal(python__line311(t, n, 1, u), lines[r][2]);
	/* past the end: no line */
	assert_int_equal(python__line311(t, n, 1, 44), -1);
	assert_int_equal(python__line311(t, n, 1, 0x3fff), -1);
}

static void test_garbage(void **state)
{
	__u8 t[256], bad[] = { 0x12, 0x34 }, cut[] = { 0xf0, 0x41 }, runaway[16];
	size_t n = unhex(table_hex, t);

	(void)state;
	/* not an entry's first byte */
	assert_int_equal(python__line311(bad, sizeof(bad), 1, 0), -1);
	/* a varint cut by the end */
	assert_int_equal(python__line311(cut, sizeof(cut), 1, 0), -1);
	/* a varint that never ends */
	runaway[0] = 0xf0;
	memset(runaway + 1, 0x7f, sizeof(runaway) - 1);
	assert_int_equal(python__line311(runaway, sizeof(runaway), 1, 0), -1);
	/* every cut of the table: a line or none, never a read past it */
	for (size_t len = 0; len < n; len++)
		for (int u = 0; u < 44; u++)
			assert_true(python__line311(t, len, 1, u) >= -1);
	assert_int_equal(python__line311(NULL, 0, 1, 0), -1);
}

/*
 * 3.10: the same f's co_linetable by pyenv's 3.10.13 and co_lines() (in
 * bytes; lasti counts code units); a lambda of _collections_abc.py whose
 * first range has no line (-128); a jump of 300 lines (two pairs of
 * length 0 first).
 */
static void test_lines310(void **state)
{
	static const struct {
		const char *hex;
		int first;
		int ranges[9][3];
	} t310[] = {
		{ "04010c0108010e010a020201020104ff", 1,
		  { { 0, 4, 2 }, { 4, 16, 3 }, { 16, 24, 4 }, { 24, 38, 5 }, { 38, 48, 7 },
		    { 48, 50, 8 }, { 50, 52, 9 }, { 52, 56, 8 } } },
		{ "02800600", 62, { { 0, 2, -1 }, { 2, 8, 62 } } },
		{ "0401007f007f042e", 211, { { 0, 4, 212 }, { 4, 8, 512 } } },
	};
	__u8 t[64];

	(void)state;
	for (size_t k = 0; k < sizeof(t310) / sizeof(t310[0]); k++) {
		size_t n = unhex(t310[k].hex, t);
		int end = 0;

		for (size_t r = 0; r < 9 && t310[k].ranges[r][1]; r++) {
			for (int b = t310[k].ranges[r][0]; b < t310[k].ranges[r][1]; b += 2)
				assert_int_equal(python__line310(t, n, t310[k].first, b / 2),
						 t310[k].ranges[r][2]);
			end = t310[k].ranges[r][1];
		}
		/* past the end: no line */
		assert_int_equal(python__line310(t, n, t310[k].first, end / 2), -1);
		/* every cut of the table: a line or none, never a read past it */
		for (size_t len = 0; len < n; len++)
			for (int u = 0; u < end / 2; u++)
				assert_true(python__line310(t, len, t310[k].first, u) >= -1);
	}
	assert_int_equal(python__line310(NULL, 0, 1, 0), -1);
	assert_int_equal(python__line310(t, 1, 1, 0), -1);	/* half a pair */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_lines310),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
