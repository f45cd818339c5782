/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pprof profiles (github.com/google/pprof, proto/profile.proto), encoded
 * by hand: the wire format needs only varints and length-delimited
 * fields, so no protobuf library is linked. The result is gzip-compressed
 * with zlib, as `go tool pprof`, Parca and Pyroscope expect.
 *
 * Encoding: repeated fields may appear in any order on the wire, so each
 * mapping, location, function and sample is encoded into the profile body
 * the moment it is added; the string table (index 0 is "") and the
 * scalar fields are appended at the end. Mappings, locations, functions
 * and strings are interned: adding one twice returns the first id.
 *
 * Strings come from the traced programs (comm, symbol and file names) and
 * are arbitrary bytes; protobuf strings must be valid UTF-8 for most
 * readers, and pprof prints them on a terminal. Every string goes through
 * esc.h's escaping (control bytes and invalid UTF-8 as "\xNN", valid
 * printable UTF-8 unchanged) before it enters the table.
 */
#ifndef BPFLITE_PPROF_H
#define BPFLITE_PPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* ---- wire format --------------------------------------------------------- */

/* A growing buffer of encoded protobuf; oom latches an allocation failure. */
struct pb {
	unsigned char *buf;
	size_t len, cap;
	bool oom;
};

enum { PB_VARINT = 0, PB_LEN = 2 };

void pb__raw(struct pb *b, const void *p, size_t len);
void pb__varint(struct pb *b, __u64 v);
void pb__key(struct pb *b, unsigned int field, unsigned int wire);
/* A varint field; 0 is proto3's default and is not written. */
void pb__uint(struct pb *b, unsigned int field, __u64 v);
/* A length-delimited field (string, bytes), written even when empty. */
void pb__bytes(struct pb *b, unsigned int field, const void *p, size_t len);
/* An embedded message: m's bytes as a length-delimited field. */
void pb__msg(struct pb *b, unsigned int field, const struct pb *m);
/* A packed repeated varint field (nothing when n is 0). */
void pb__packed(struct pb *b, unsigned int field, const __u64 *v, size_t n);
void pb__free(struct pb *b);

/* ---- profile builder ----------------------------------------------------- */

struct pprof;

struct pprof_label {
	const char *key;
	const char *str;		/* a string label, or NULL */
	size_t str_len;			/* bytes of str (it may hold any byte) */
	__s64 num;			/* a numeric label when str is NULL */
	const char *num_unit;		/* NULL: none */
};

struct pprof *pprof__new(void);
void pprof__free(struct pprof *p);
/* Index of s (len bytes, escaped as above) in the string table. */
__u64 pprof__str(struct pprof *p, const char *s, size_t len);
__u64 pprof__cstr(struct pprof *p, const char *s);
/* The values of every sample, in this order (sample_type). */
void pprof__sample_type(struct pprof *p, const char *type, const char *unit);
void pprof__default_sample_type(struct pprof *p, const char *type);
void pprof__period(struct pprof *p, const char *type, const char *unit, __s64 period);
/* Start of the collection (ns since the epoch) and its length. */
void pprof__time(struct pprof *p, __s64 time_ns, __s64 duration_ns);
/*
 * A mapping (an executable mapping of a module): its id, nonzero.
 * build_id: hex, or NULL. has_functions: its locations carry names, so
 * pprof does not try to symbolize them again.
 */
__u64 pprof__mapping(struct pprof *p, __u64 start, __u64 limit, __u64 file_offset,
		     const char *filename, const char *build_id, bool has_functions);
/* A location (address in mapping_id, 0: none) named func: its id. */
__u64 pprof__location(struct pprof *p, __u64 mapping_id, __u64 addr, const char *func);
/*
 * The same with the source: func's file and first line (Function's
 * filename, start_line) and the location's line (Line's line); a Python
 * frame, whose code has no address.
 */
__u64 pprof__location_src(struct pprof *p, __u64 mapping_id, __u64 addr, const char *func,
			  const char *file, __s64 start_line, __s64 line);
/* A sample: locations leaf first, one value per sample type, labels. */
int pprof__sample(struct pprof *p, const __u64 *locs, size_t nlocs, const __s64 *values,
		  size_t nvalues, const struct pprof_label *labels, size_t nlabels);
/* The encoded profile.proto (not compressed) into out; 0 or -ENOMEM. */
int pprof__encode(struct pprof *p, struct pb *out);
/* The gzip-compressed profile in a malloc'd *buf of *len bytes; 0 or -errno. */
int pprof__gzip(struct pprof *p, void **buf, size_t *len);
/* gzip of len bytes of data (a whole profile) into a malloc'd buffer. */
int pprof__gzip_bytes(const void *data, size_t len, void **buf, size_t *out_len);

#endif
