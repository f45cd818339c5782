/* SPDX-License-Identifier: GPL-2.0 */
#ifndef BPFLITE_OUT_SBUF_H
#define BPFLITE_OUT_SBUF_H

#include <stddef.h>

/* A growing text line. */
struct sbuf {
	char *p;
	size_t len, cap;
};
void sbuf__printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append n bytes of s; append spaces up to column col (no printf). */
void sbuf__putn(struct sbuf *b, const char *s, size_t n);
void sbuf__pad(struct sbuf *b, size_t col);
void sbuf__reset(struct sbuf *b);
void sbuf__free(struct sbuf *b);

#endif
