// SPDX-License-Identifier: GPL-2.0
/* Escaping of untrusted text for text output (esc.h). */
#include <string.h>
#include "out/esc.h"
#include "out/json.h"

/*
 * The next piece of s as it is printed: *n bytes of s consumed, the text
 * to print in out (at most 9 bytes: "\xc2\x9b" or a UTF-8 character).
 */
static size_t next_piece(const unsigned char *s, size_t len, unsigned int flags, char *out,
			 size_t *n)
{
	unsigned int cp;
	size_t k;
	unsigned char c = s[0];

	*n = 1;
	switch (c) {
	case '\n': memcpy(out, "\\n", 2); return 2;
	case '\t': memcpy(out, "\\t", 2); return 2;
	case '\r': memcpy(out, "\\r", 2); return 2;
	case '\\': memcpy(out, "\\\\", 2); return 2;
	case '"':
		if (flags & ESC_QUOTED) {
			memcpy(out, "\\\"", 2);
			return 2;
		}
		break;
	case ';':
		if (flags & ESC_FOLDED) {
			memcpy(out, "\\x3b", 4);
			return 4;
		}
		break;
	}
	if (c < 0x20 || c == 0x7f)
		return snprintf(out, 8, "\\x%02x", c);
	if (c < 0x80) {
		out[0] = c;
		return 1;
	}
	k = json__utf8_char(s, len, &cp);
	if (!k)
		return snprintf(out, 8, "\\x%02x", c);	/* invalid: byte by byte */
	*n = k;
	if (cp < 0xa0)		/* C1 controls: terminals obey them too */
		return snprintf(out, 10, "\\x%02x\\x%02x", s[0], s[1]);
	memcpy(out, s, k);
	return k;
}

void esc__put(FILE *f, const char *s, size_t len, unsigned int flags)
{
	char piece[16];
	size_t i = 0, n, w;

	while (i < len) {
		w = next_piece((const unsigned char *)s + i, len - i, flags, piece, &n);
		fwrite(piece, 1, w, f);
		i += n;
	}
}

char *esc__str(char *buf, size_t size, const char *s, size_t len, unsigned int flags)
{
	char piece[16];
	size_t i = 0, o = 0, n, w;

	if (!size)
		return buf;
	while (i < len) {
		w = next_piece((const unsigned char *)s + i, len - i, flags, piece, &n);
		if (o + w >= size)
			break;
		memcpy(buf + o, piece, w);
		o += w;
		i += n;
	}
	buf[o] = '\0';
	return buf;
}

char *esc__cstr(char *buf, size_t size, const char *s, unsigned int flags)
{
	return esc__str(buf, size, s, strlen(s), flags);
}
