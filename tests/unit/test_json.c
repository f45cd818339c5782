// SPDX-License-Identifier: GPL-2.0
/* NDJSON writer: escaping of control bytes, invalid UTF-8, structure. */
#include <string.h>
#include "unit.h"
#include "out/json.h"

static const char *esc(struct capture *c, const char *s, size_t n)
{
	capture_open(c);
	json__escape(c->f, s, n);
	return capture_text(c);
}

static void test_plain_and_quotes(void **state)
{
	struct capture c;

	(void)state;
	assert_string_equal(esc(&c, "abc", 3), "\"abc\"");
	capture_close(&c);
	assert_string_equal(esc(&c, "a\"b\\c", 5), "\"a\\\"b\\\\c\"");
	capture_close(&c);
}

static void test_every_control_byte_escaped(void **state)
{
	char in[32];
	struct capture c;
	const char *out;

	(void)state;
	for (int i = 0; i < 32; i++)
		in[i] = (char)i;
	out = esc(&c, in, 32);
	for (const char *p = out; *p; p++)
		assert_true((unsigned char)*p >= 0x20);
	assert_non_null(strstr(out, "\\u0000\\u0001"));
	assert_non_null(strstr(out, "\\t\\n\\u000b\\u000c\\r"));
	assert_non_null(strstr(out, "\\u001f\""));
	capture_close(&c);
	assert_string_equal(esc(&c, "\x7f", 1), "\"\\u007f\"");
	capture_close(&c);
	/* C1 controls (CSI U+009B): terminals obey them too */
	assert_string_equal(esc(&c, "\xc2\x9b" "2J", 4), "\"\\u009b2J\"");
	capture_close(&c);
}

static void test_utf8(void **state)
{
	struct capture c;

	(void)state;
	/* valid: é, €, 😀 pass through */
	assert_string_equal(esc(&c, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9),
			    "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
	capture_close(&c);
	/* lone continuation byte, truncated sequence, overlong, surrogate */
	assert_string_equal(esc(&c, "a\x80z", 3), "\"a\xef\xbf\xbdz\"");
	capture_close(&c);
	assert_string_equal(esc(&c, "\xe2\x82", 2), "\"\xef\xbf\xbd\xef\xbf\xbd\"");
	capture_close(&c);
	assert_string_equal(esc(&c, "\xc0\xaf", 2), "\"\xef\xbf\xbd\xef\xbf\xbd\"");
	capture_close(&c);
	assert_string_equal(esc(&c, "\xed\xa0\x80", 3),
			    "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");
	capture_close(&c);
	assert_string_equal(esc(&c, "\xff", 1), "\"\xef\xbf\xbd\"");
	capture_close(&c);
}

static void test_structure(void **state)
{
	struct capture c;
	struct json j;

	(void)state;
	capture_open(&c);
	json__begin(&j, c.f);
	json__str(&j, "type", "x");
	json__int(&j, "n", -3);
	json__uint(&j, "u", 18446744073709551615ULL);
	json__bool(&j, "b", true);
	json__null(&j, "z");
	json__arr(&j, "a");
	json__int(&j, NULL, 1);
	json__obj(&j, NULL);
	json__str(&j, "k", NULL);
	json__obj_end(&j);
	json__arr_end(&j);
	json__fixed(&j, "ts", 1.5, 3);
	json__double(&j, "d", 0.25);
	json__strn(&j, "s", "ab\0cd", 5);
	json__end(&j);
	assert_string_equal(capture_text(&c),
		"{\"type\":\"x\",\"n\":-3,\"u\":18446744073709551615,\"b\":true,\"z\":null,"
		"\"a\":[1,{\"k\":null}],\"ts\":1.500,\"d\":0.25,\"s\":\"ab\\u0000cd\"}\n");
	capture_close(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_and_quotes),
		cmocka_unit_test(test_every_control_byte_escaped),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_structure),
	};

	return cmocka_run_group_tests_name("json", tests, NULL, NULL);
}
