/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal protobuf reader for the unit tests of the pprof writer: walk
 * the fields of one message, and gunzip a profile. Independent of the
 * encoder it checks (it is written from the wire format, not from
 * pprof.c).
 */
#ifndef BPFLITE_PB_DECODE_H
#define BPFLITE_PB_DECODE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

struct pbf {
	unsigned int field, wire;
	uint64_t v;			/* a varint's value */
	const unsigned char *p;		/* a length-delimited field's bytes */
	size_t len;
};

static inline bool pbd_varint(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
	unsigned int shift = 0;

	*v = 0;
	while (*p < end && shift < 64) {
		unsigned char b = *(*p)++;

		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return true;
		shift += 7;
	}
	return false;
}

/* The next field of [*p, end): false at the end or on malformed input. */
static inline bool pbd_next(const unsigned char **p, const unsigned char *end, struct pbf *f)
{
	uint64_t key;

	if (*p >= end || !pbd_varint(p, end, &key))
		return false;
	f->field = key >> 3;
	f->wire = key & 7;
	if (f->wire == 0)
		return pbd_varint(p, end, &f->v);
	if (f->wire != 2 || !pbd_varint(p, end, &f->v) || f->v > (uint64_t)(end - *p))
		return false;
	f->p = *p;
	f->len = f->v;
	*p += f->len;
	return true;
}

/* gunzip (gzip header required) into a malloc'd buffer. */
static inline unsigned char *pbd_gunzip(const void *gz, size_t len, size_t *out_len)
{
	size_t cap = 1 << 16;
	unsigned char *o = malloc(cap);
	z_stream z = { 0 };
	int ret;

	if (!o || inflateInit2(&z, 15 + 16) != Z_OK) {
		free(o);
		return NULL;
	}
	z.next_in = (unsigned char *)gz;
	z.avail_in = len;
	for (;;) {
		z.next_out = o + z.total_out;
		z.avail_out = cap - z.total_out;
		ret = inflate(&z, Z_NO_FLUSH);
		if (ret == Z_STREAM_END)
			break;
		if (ret != Z_OK && ret != Z_BUF_ERROR) {
			inflateEnd(&z);
			free(o);
			return NULL;
		}
		if (!z.avail_out) {
			unsigned char *q = realloc(o, cap *= 2);

			if (!q) {
				inflateEnd(&z);
				free(o);
				return NULL;
			}
			o = q;
		} else if (!z.avail_in) {
			inflateEnd(&z);	/* truncated */
			free(o);
			return NULL;
		}
	}
	*out_len = z.total_out;
	inflateEnd(&z);
	return o;
}

#endif
