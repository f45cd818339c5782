// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <string.h>
#include "out/json.h"

size_t json__utf8_char(const unsigned char *s, size_t n, unsigned int *cp_out)
{
	size_t len, i;
	unsigned int cp;

	*cp_out = s[0];
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates, beyond U+10FFFF */
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	*cp_out = cp;
	return len;
}

void json__escape(FILE *f, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, l;
	unsigned int cp;

	fputc('"', f);
	while (i < n) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\') {
			fputc('\\', f);
			fputc(c, f);
		} else if (c == '\n') {
			fputs("\\n", f);
		} else if (c == '\t') {
			fputs("\\t", f);
		} else if (c == '\r') {
			fputs("\\r", f);
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\u%04x", c);
		} else if (c < 0x80) {
			fputc(c, f);
		} else if ((l = json__utf8_char(s + i, n - i, &cp))) {
			/* C1 controls (U+0080-U+009F): terminals obey them too */
			if (cp < 0xa0)
				fprintf(f, "\\u%04x", cp);
			else
				fwrite(s + i, 1, l, f);
			i += l;
			continue;
		} else {
			fputs("\xef\xbf\xbd", f);	/* U+FFFD */
		}
		i++;
	}
	fputc('"', f);
}

static void sep(struct json *j, const char *key)
{
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = false;
	if (key) {
		json__escape(j->f, key, strlen(key));
		fputc(':', j->f);
	}
}

static void open_(struct json *j, const char *key, char c)
{
	sep(j, key);
	fputc(c, j->f);
	if (j->depth < JSON_MAX_DEPTH - 1)
		j->depth++;
	j->first[j->depth] = true;
}

static void close_(struct json *j, char c)
{
	fputc(c, j->f);
	if (j->depth > 0)
		j->depth--;
}

void json__begin(struct json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->first[0] = true;
	fputc('{', f);
	j->first[0] = true;
}

void json__end(struct json *j)
{
	fputs("}\n", j->f);
	fflush(j->f);
}

void json__obj(struct json *j, const char *key) { open_(j, key, '{'); }
void json__obj_end(struct json *j) { close_(j, '}'); }
void json__arr(struct json *j, const char *key) { open_(j, key, '['); }
void json__arr_end(struct json *j) { close_(j, ']'); }

void json__strn(struct json *j, const char *key, const char *s, size_t len)
{
	sep(j, key);
	json__escape(j->f, s, len);
}

void json__str(struct json *j, const char *key, const char *s)
{
	if (!s) {
		json__null(j, key);
		return;
	}
	json__strn(j, key, s, strlen(s));
}

void json__int(struct json *j, const char *key, long long v)
{
	sep(j, key);
	fprintf(j->f, "%lld", v);
}

void json__uint(struct json *j, const char *key, unsigned long long v)
{
	sep(j, key);
	fprintf(j->f, "%llu", v);
}

void json__double(struct json *j, const char *key, double v)
{
	sep(j, key);
	if (isfinite(v))
		fprintf(j->f, "%.10g", v);
	else
		fputs("null", j->f);
}

void json__fixed(struct json *j, const char *key, double v, int decimals)
{
	sep(j, key);
	if (isfinite(v))
		fprintf(j->f, "%.*f", decimals, v);
	else
		fputs("null", j->f);
}

void json__bool(struct json *j, const char *key, bool v)
{
	sep(j, key);
	fputs(v ? "true" : "false", j->f);
}

void json__null(struct json *j, const char *key)
{
	sep(j, key);
	fputs("null", j->f);
}
