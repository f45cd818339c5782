// SPDX-License-Identifier: GPL-2.0
/*
 * window: the stamps of window headers (window__iso) and the times
 * flamegraph-lite's --from/--to take back (window__parse_time): the
 * headers' own form, its shorter variants, HH:MM[:SS] on a given day, and
 * what is not a time.
 */
#include <string.h>
#include "unit.h"
#include "out/window.h"

/* 2026-11-30T21:44:20.123Z */
#define T0 1796075060123LL

static void test_iso(void **state)
{
	char buf[32];

	(void)state;
	assert_string_equal(window__iso(buf, sizeof(buf), T0), "2026-11-30T21:44:20.123Z");
	assert_string_equal(window__iso(buf, sizeof(buf), 0), "1970-01-01T00:00:00.000Z");
	assert_string_equal(window__iso(buf, sizeof(buf), T0 - 123 + 5), "2026-11-30T21:44:20.005Z");
}

static void test_parse_full(void **state)
{
	(void)state;
	assert_int_equal(window__parse_time("2026-11-30T21:44:20.123Z", -1), T0);
	assert_int_equal(window__parse_time("2026-11-30T21:44:20.123", -1), T0);
	assert_int_equal(window__parse_time("2026-11-30 21:44:20.123Z", -1), T0);
	assert_int_equal(window__parse_time("2026-11-30T21:44:20Z", -1), T0 - 123);
	assert_int_equal(window__parse_time("2026-11-30T21:44:20.1", -1), T0 - 23);
	assert_int_equal(window__parse_time("2026-11-30T21:44", -1), T0 - 20123);
	assert_int_equal(window__parse_time("2026-11-30 21:44Z", -1), T0 - 20123);
	/* digits past the millisecond are dropped */
	assert_int_equal(window__parse_time("2026-11-30T21:44:20.123999Z", -1), T0);
}

static void test_parse_time_of_day(void **state)
{
	(void)state;
	/* the day of the first window: any time of that UTC day */
	assert_int_equal(window__parse_time("21:44:20.123", T0 - 3600 * 1000), T0);
	assert_int_equal(window__parse_time("21:44:20", T0), T0 - 123);
	assert_int_equal(window__parse_time("21:44", T0), T0 - 20123);
	assert_int_equal(window__parse_time("00:00", T0), T0 - (21 * 3600 + 44 * 60 + 20) * 1000LL - 123);
	/* no day to put it on */
	assert_int_equal(window__parse_time("21:44", -1), -1);
}

static void test_parse_bad(void **state)
{
	static const char *const bad[] = {
		"", "noon", "21", "21:44:20x", "21:44:20.", "2026-11-30", "2026-11-30T",
		"2026-11-30T21", "2026-11-30T21:44:20ZZ", "2026-13-30T21:44:20", "25:00",
		"2026-11-30T21:44:20 ", "21:44:20.1.2",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (window__parse_time(bad[i], T0) != -1)
			fail_msg("'%s' parsed as a time", bad[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_iso),
		cmocka_unit_test(test_parse_full),
		cmocka_unit_test(test_parse_time_of_day),
		cmocka_unit_test(test_parse_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
