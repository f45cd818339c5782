// SPDX-License-Identifier: GPL-2.0
/* A growing text line (out/sbuf.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "out/sbuf.h"

void sbuf__printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		size_t room = b->cap - b->len;

		va_start(ap, fmt);
		n = vsnprintf(b->p ? b->p + b->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if ((size_t)n < room) {
			b->len += n;
			return;
		}
		size_t cap = b->cap ? b->cap * 2 : 256;

		while (cap < b->len + n + 1)
			cap *= 2;
		char *p = realloc(b->p, cap);

		if (!p)
			return;
		b->p = p;
		b->cap = cap;
	}
}

static int sbuf_room(struct sbuf *b, size_t n)
{
	size_t cap;
	char *p;

	if (b->len + n + 1 <= b->cap)
		return 0;
	cap = b->cap ? b->cap * 2 : 256;
	while (cap < b->len + n + 1)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p)
		return -1;
	b->p = p;
	b->cap = cap;
	return 0;
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
	if (b->p)
		b->p[0] = 0;
}

void sbuf__free(struct sbuf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}
