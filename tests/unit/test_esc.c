// SPDX-License-Identifier: GPL-2.0
/* Escaping of untrusted text for text output (common/out/esc.c). */
#include <string.h>
#include "unit.h"
#include "out/esc.h"

static const char *esc(const char *s, size_t len, unsigned int flags)
{
	static char buf[256];

	return esc__str(buf, sizeof(buf), s, len, flags);
}

#define ESC(lit, flags) esc(lit, sizeof(lit) - 1, flags)

static void test_controls(void **state)
{
	(void)state;
	assert_string_equal(ESC("plain path/x.txt", 0), "plain path/x.txt");
	assert_string_equal(ESC("a\nb\tc\rd\\e", 0), "a\\nb\\tc\\rd\\\\e");
	assert_string_equal(ESC("\x1b[2J\x7f\x01", 0), "\\x1b[2J\\x7f\\x01");
	/* a NUL inside the length is shown, not an end */
	assert_string_equal(ESC("a\0b", 0), "a\\x00b");
}

static void test_utf8(void **state)
{
	(void)state;
	/* valid and printable: as it is */
	assert_string_equal(ESC("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 0),
			    "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	/* invalid bytes one by one; a cut character; an overlong '/' */
	assert_string_equal(ESC("\xff\xfe", 0), "\\xff\\xfe");
	assert_string_equal(ESC("a\xe2\x82", 0), "a\\xe2\\x82");
	assert_string_equal(ESC("\xc0\xaf", 0), "\\xc0\\xaf");
	/* C1 controls (CSI U+009B): both bytes */
	assert_string_equal(ESC("\xc2\x9b" "2J", 0), "\\xc2\\x9b2J");
	assert_string_equal(ESC("\xc2\xa0", 0), "\xc2\xa0");
}

static void test_flags(void **state)
{
	(void)state;
	assert_string_equal(ESC("a\"b;c", 0), "a\"b;c");
	assert_string_equal(ESC("a\"b;c", ESC_QUOTED), "a\\\"b;c");
	assert_string_equal(ESC("a\"b;c d", ESC_FOLDED), "a\"b\\x3bc d");
}

static void test_bounds(void **state)
{
	char buf[6], small[1] = { 'z' };
	struct capture cap;

	(void)state;
	/* never half an escape */
	assert_string_equal(esc__str(buf, sizeof(buf), "ab\x1b", 3, 0), "ab");
	assert_string_equal(esc__str(buf, sizeof(buf), "abc\x1b", 4, 0), "abc");
	assert_string_equal(esc__str(small, sizeof(small), "abc", 3, 0), "");
	capture_open(&cap);
	esc__put(cap.f, "x\ny\xff", 4, 0);
	assert_string_equal(capture_text(&cap), "x\\ny\\xff");
	capture_close(&cap);
}

static void test_array(void **state)
{
	char comm[16] = "h\n\x1b[2J;\xff";
	char full[4] = { 'a', 'b', '\n', 'd' };	/* no NUL */

	(void)state;
	assert_string_equal(ESC_ARRAY(comm), "h\\n\\x1b[2J;\\xff");
	assert_string_equal(ESC_ARRAY(full), "ab\\nd");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_controls),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_array),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
