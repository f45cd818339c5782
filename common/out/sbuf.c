// SPDX-License-Identifier: GPL-2.0
/* A growing text line (out/sbuf.h). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "out/sbuf.h"

/* Room for n more bytes and the NUL: 0, or -1 with err set (and then always). */
static int sbuf_room(struct sbuf *b, size_t n)
{
	size_t cap;
	char *p;

	if (b->err)
		return -1;
	/* a size whose doubling could wrap is no size to allocate */
	if (n >= SIZE_MAX / 4 || b->len >= SIZE_MAX / 4 - n)
		goto fail;
	if (b->len + n + 1 <= b->cap)
		return 0;
	cap = b->cap ? b->cap * 2 : 256;
	while (cap < b->len + n + 1)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p)
		goto fail;
	b->p = p;
	b->cap = cap;
	return 0;
fail:
	b->err = true;
	return -1;
}

void sbuf__printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->err)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->p ? b->p + b->len : NULL, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->err = true;
		if (b->p)
			b->p[b->len] = 0;
		return;
	}
	if ((size_t)n >= b->cap - b->len) {
		if (sbuf_room(b, n)) {
			if (b->p)
				b->p[b->len] = 0;	/* vsnprintf wrote a part */
			return;
		}
		va_start(ap, fmt);
		vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
	}
	b->len += n;
}

void sbuf__putn(struct sbuf *b, const char *s, size_t n)
{
	if (sbuf_room(b, n))
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
}

void sbuf__pad(struct sbuf *b, size_t col)
{
	if (b->len >= col || sbuf_room(b, col - b->len))
		return;
	memset(b->p + b->len, ' ', col - b->len);
	b->len = col;
	b->p[b->len] = 0;
}

void sbuf__reset(struct sbuf *b)
{
	b->len = 0;
	b->err = false;
	if (b->p)
		b->p[0] = 0;
}

void sbuf__free(struct sbuf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
	b->err = false;
}
