/* SPDX-License-Identifier: GPL-2.0 */
#ifndef BPFLITE_OUT_SBUF_H
#define BPFLITE_OUT_SBUF_H

#include <stdbool.h>
#include <stddef.h>

/*
 * A growing text line. err is set when an append could not be made (no
 * memory, a size past what can be allocated, a format error) and stays
 * set: later appends do nothing, so the text is the part appended before
 * the failure, and a user checks err once, at the end. sbuf__reset() and
 * sbuf__free() clear it.
 */
struct sbuf {
	char *p;
	size_t len, cap;
	bool err;
};
void sbuf__printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append n bytes of s; append spaces up to column col (no printf). */
void sbuf__putn(struct sbuf *b, const char *s, size_t n);
void sbuf__pad(struct sbuf *b, size_t col);
void sbuf__reset(struct sbuf *b);
void sbuf__free(struct sbuf *b);

#endif
