/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NDJSON writer: one object per line, flushed when the line ends. Strings
 * are escaped (every byte < 0x20, '"' and '\\') and invalid UTF-8 is
 * replaced by U+FFFD, so the output is always valid JSON.
 */
#ifndef BPFLITE_JSON_H
#define BPFLITE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

struct json {
	FILE *f;
	int depth;
	bool first[JSON_MAX_DEPTH];
};

/* Begin a top-level object on f (one line). */
void json__begin(struct json *j, FILE *f);
/* End the top-level object: "}\n" and fflush. */
void json__end(struct json *j);

/* key is NULL inside arrays. */
void json__obj(struct json *j, const char *key);
void json__obj_end(struct json *j);
void json__arr(struct json *j, const char *key);
void json__arr_end(struct json *j);
void json__str(struct json *j, const char *key, const char *s);
void json__strn(struct json *j, const char *key, const char *s, size_t len);
void json__int(struct json *j, const char *key, long long v);
void json__uint(struct json *j, const char *key, unsigned long long v);
void json__double(struct json *j, const char *key, double v);
/* A number with a fixed count of decimals (timestamps). */
void json__fixed(struct json *j, const char *key, double v, int decimals);
void json__bool(struct json *j, const char *key, bool v);
void json__null(struct json *j, const char *key);

/*
 * Length of the valid UTF-8 character at s (at most n bytes; n > 0), 0 if
 * invalid (overlong, surrogate, beyond U+10FFFF, cut); *cp is its code.
 */
size_t json__utf8_char(const unsigned char *s, size_t n, unsigned int *cp);
/* Write s (len bytes) as a quoted, escaped JSON string. */
void json__escape(FILE *f, const char *s, size_t len);

#endif
