// SPDX-License-Identifier: GPL-2.0
/* pprof profiles: protobuf wire encoding, interning, gzip (pprof.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "out/esc.h"
#include "serve/pprof.h"

/* ---- wire format --------------------------------------------------------- */

static bool pb_reserve(struct pb *b, size_t more)
{
	size_t cap;
	void *q;

	if (b->oom)
		return false;
	if (b->len + more <= b->cap)
		return true;
	cap = b->cap ? b->cap : 256;
	while (cap < b->len + more)
		cap *= 2;
	q = realloc(b->buf, cap);
	if (!q) {
		b->oom = true;
		return false;
	}
	b->buf = q;
	b->cap = cap;
	return true;
}

void pb__raw(struct pb *b, const void *p, size_t len)
{
	if (!len || !pb_reserve(b, len))
		return;
	memcpy(b->buf + b->len, p, len);
	b->len += len;
}

void pb__varint(struct pb *b, __u64 v)
{
	unsigned char tmp[10];
	size_t n = 0;

	/* seven bits a byte, least significant first, the top bit: more */
	do {
		tmp[n] = v & 0x7f;
		v >>= 7;
		if (v)
			tmp[n] |= 0x80;
		n++;
	} while (v);
	pb__raw(b, tmp, n);
}

void pb__key(struct pb *b, unsigned int field, unsigned int wire)
{
	pb__varint(b, (__u64)field << 3 | wire);
}

void pb__uint(struct pb *b, unsigned int field, __u64 v)
{
	if (!v)
		return;
	pb__key(b, field, PB_VARINT);
	pb__varint(b, v);
}

void pb__bytes(struct pb *b, unsigned int field, const void *p, size_t len)
{
	pb__key(b, field, PB_LEN);
	pb__varint(b, len);
	pb__raw(b, p, len);
}

void pb__msg(struct pb *b, unsigned int field, const struct pb *m)
{
	if (m->oom)
		b->oom = true;
	pb__bytes(b, field, m->buf, m->len);
}

void pb__packed(struct pb *b, unsigned int field, const __u64 *v, size_t n)
{
	struct pb m = { 0 };
	size_t i;

	if (!n)
		return;
	for (i = 0; i < n; i++)
		pb__varint(&m, v[i]);
	pb__msg(b, field, &m);
	pb__free(&m);
}

void pb__free(struct pb *b)
{
	free(b->buf);
	memset(b, 0, sizeof(*b));
}

/* ---- interning ----------------------------------------------------------- */

/*
 * One open-addressing table for everything interned, keyed by bytes: a
 * kind letter then the fields ('S' and a string, 'F' and a name index,
 * 'M' and a mapping's fields, 'L' and a location's).
 */
struct slot {
	__u64 hash;
	size_t off, len;	/* key bytes in keys */
	__u64 id;		/* 0: empty */
};

struct intern {
	struct slot *slots;
	size_t cap, n;
	struct pb keys;
};

static __u64 hash_bytes(const unsigned char *p, size_t len)
{
	__u64 h = 0xcbf29ce484222325ULL;	/* FNV-1a */

	while (len--) {
		h ^= *p++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static struct slot *intern_find(struct intern *t, const void *key, size_t len, __u64 h)
{
	size_t i = h & (t->cap - 1);

	for (;; i = (i + 1) & (t->cap - 1)) {
		struct slot *s = &t->slots[i];

		if (!s->id)
			return s;
		if (s->hash == h && s->len == len && !memcmp(t->keys.buf + s->off, key, len))
			return s;
	}
}

static int intern_grow(struct intern *t)
{
	struct slot *old = t->slots;
	size_t i, ocap = t->cap;

	t->cap = ocap ? ocap * 2 : 1024;
	t->slots = calloc(t->cap, sizeof(*t->slots));
	if (!t->slots) {
		t->slots = old;
		t->cap = ocap;
		return -ENOMEM;
	}
	for (i = 0; i < ocap; i++) {
		struct slot *s;

		if (!old[i].id)
			continue;
		s = intern_find(t, t->keys.buf + old[i].off, old[i].len, old[i].hash);
		*s = old[i];
	}
	free(old);
	return 0;
}

/* The id of key, or 0 and *slot to fill when it is new (0 on no memory). */
static __u64 intern_get(struct intern *t, const void *key, size_t len, struct slot **slot)
{
	__u64 h = hash_bytes(key, len);
	struct slot *s;

	*slot = NULL;
	if ((t->n + 1) * 2 > t->cap && intern_grow(t))
		return 0;
	s = intern_find(t, key, len, h);
	if (s->id)
		return s->id;
	if (!pb_reserve(&t->keys, len))
		return 0;
	s->hash = h;
	s->off = t->keys.len;
	s->len = len;
	pb__raw(&t->keys, key, len);
	*slot = s;
	return 0;
}

static void intern_set(struct intern *t, struct slot *s, __u64 id)
{
	s->id = id;
	t->n++;
}

/* ---- profile builder ----------------------------------------------------- */

/* profile.proto field numbers */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE, PROFILE_MAPPING, PROFILE_LOCATION,
	PROFILE_FUNCTION, PROFILE_STRING_TABLE, PROFILE_TIME_NANOS = 9, PROFILE_DURATION_NANOS,
	PROFILE_PERIOD_TYPE, PROFILE_PERIOD, PROFILE_DEFAULT_SAMPLE_TYPE = 14,
};
enum { VALUETYPE_TYPE = 1, VALUETYPE_UNIT };
enum { SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE, SAMPLE_LABEL };
enum { LABEL_KEY = 1, LABEL_STR, LABEL_NUM, LABEL_NUM_UNIT };
enum {
	MAPPING_ID = 1, MAPPING_MEMORY_START, MAPPING_MEMORY_LIMIT, MAPPING_FILE_OFFSET,
	MAPPING_FILENAME, MAPPING_BUILD_ID, MAPPING_HAS_FUNCTIONS,
};
enum { LOCATION_ID = 1, LOCATION_MAPPING_ID, LOCATION_ADDRESS, LOCATION_LINE };
enum { LINE_FUNCTION_ID = 1, LINE_LINE };
enum { FUNCTION_ID = 1, FUNCTION_NAME, FUNCTION_SYSTEM_NAME, FUNCTION_FILENAME, FUNCTION_START_LINE };

struct pprof {
	struct intern in;
	struct pb body;		/* sample_type, sample, mapping, location, function */
	struct pb strings;	/* string_table, in index order */
	__u64 nstr, nfunc, nmap, nloc;
	__u64 default_type;
	struct pb period_type;
	__s64 period, time_ns, duration_ns;
	bool oom;
};

struct pprof *pprof__new(void)
{
	struct pprof *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	pprof__str(p, "", 0);	/* string_table[0] is "" */
	if (p->oom || p->nstr != 1) {
		pprof__free(p);
		return NULL;
	}
	return p;
}

void pprof__free(struct pprof *p)
{
	if (!p)
		return;
	free(p->in.slots);
	pb__free(&p->in.keys);
	pb__free(&p->body);
	pb__free(&p->strings);
	pb__free(&p->period_type);
	free(p);
}

__u64 pprof__str(struct pprof *p, const char *s, size_t len)
{
	size_t cap = 4 * len + 2;
	char *esc = malloc(cap + 1), *key;
	struct slot *slot;
	size_t elen;
	__u64 id;

	if (!esc) {
		p->oom = true;
		return 0;
	}
	key = esc;
	key[0] = 'S';
	esc__str(key + 1, cap, s, len, 0);
	elen = strlen(key + 1);
	id = intern_get(&p->in, key, elen + 1, &slot);
	if (!id && slot) {
		/* indexes start at 0: ids are index + 1 */
		id = ++p->nstr;
		intern_set(&p->in, slot, id);
		pb__bytes(&p->strings, PROFILE_STRING_TABLE, key + 1, elen);
	} else if (!id) {
		p->oom = true;
		id = 1;
	}
	free(esc);
	return id - 1;
}

__u64 pprof__cstr(struct pprof *p, const char *s)
{
	return pprof__str(p, s, strlen(s));
}

static void value_type(struct pprof *p, struct pb *m, const char *type, const char *unit)
{
	pb__uint(m, VALUETYPE_TYPE, pprof__cstr(p, type));
	pb__uint(m, VALUETYPE_UNIT, pprof__cstr(p, unit));
}

void pprof__sample_type(struct pprof *p, const char *type, const char *unit)
{
	struct pb m = { 0 };

	value_type(p, &m, type, unit);
	pb__msg(&p->body, PROFILE_SAMPLE_TYPE, &m);
	pb__free(&m);
}

void pprof__default_sample_type(struct pprof *p, const char *type)
{
	p->default_type = pprof__cstr(p, type);
}

void pprof__period(struct pprof *p, const char *type, const char *unit, __s64 period)
{
	pb__free(&p->period_type);
	value_type(p, &p->period_type, type, unit);
	p->period = period;
}

void pprof__time(struct pprof *p, __s64 time_ns, __s64 duration_ns)
{
	p->time_ns = time_ns;
	p->duration_ns = duration_ns;
}

/*
 * The id of a mapping, function or location key: the one it has, else the
 * next of *counter (*fresh: encode it now). 0 when out of memory.
 */
static __u64 intern_id(struct pprof *p, const void *key, size_t len, __u64 *counter, bool *fresh)
{
	struct slot *slot;
	__u64 id = intern_get(&p->in, key, len, &slot);

	*fresh = false;
	if (id || !slot) {
		p->oom |= !id;
		return id;
	}
	id = ++*counter;
	intern_set(&p->in, slot, id);
	*fresh = true;
	return id;
}

__u64 pprof__mapping(struct pprof *p, __u64 start, __u64 limit, __u64 file_offset,
		     const char *filename, const char *build_id, bool has_functions)
{
	struct { char kind; __u64 start, limit, off, file, id, fn; } __attribute__((packed)) k = {
		'M', start, limit, file_offset, pprof__cstr(p, filename),
		build_id ? pprof__cstr(p, build_id) : 0, has_functions,
	};
	struct pb m = { 0 };
	bool fresh;
	__u64 id = intern_id(p, &k, sizeof(k), &p->nmap, &fresh);

	if (!fresh)
		return id;
	pb__uint(&m, MAPPING_ID, id);
	pb__uint(&m, MAPPING_MEMORY_START, start);
	pb__uint(&m, MAPPING_MEMORY_LIMIT, limit);
	pb__uint(&m, MAPPING_FILE_OFFSET, file_offset);
	pb__uint(&m, MAPPING_FILENAME, k.file);
	pb__uint(&m, MAPPING_BUILD_ID, k.id);
	pb__uint(&m, MAPPING_HAS_FUNCTIONS, has_functions);
	pb__msg(&p->body, PROFILE_MAPPING, &m);
	pb__free(&m);
	return id;
}

static __u64 function(struct pprof *p, const char *name, const char *file, __s64 start_line)
{
	struct { char kind; __u64 name, file; __s64 start; } __attribute__((packed)) k = {
		'F', pprof__cstr(p, name), file ? pprof__cstr(p, file) : 0, start_line,
	};
	struct pb m = { 0 };
	bool fresh;
	__u64 id = intern_id(p, &k, sizeof(k), &p->nfunc, &fresh);

	if (!fresh)
		return id;
	pb__uint(&m, FUNCTION_ID, id);
	pb__uint(&m, FUNCTION_NAME, k.name);
	pb__uint(&m, FUNCTION_SYSTEM_NAME, k.name);
	if (k.file)
		pb__uint(&m, FUNCTION_FILENAME, k.file);
	if (start_line > 0)
		pb__uint(&m, FUNCTION_START_LINE, start_line);
	pb__msg(&p->body, PROFILE_FUNCTION, &m);
	pb__free(&m);
	return id;
}

__u64 pprof__location(struct pprof *p, __u64 mapping_id, __u64 addr, const char *func)
{
	return pprof__location_src(p, mapping_id, addr, func, NULL, 0, 0);
}

__u64 pprof__location_src(struct pprof *p, __u64 mapping_id, __u64 addr, const char *func,
			  const char *file, __s64 start_line, __s64 line)
{
	struct { char kind; __u64 map, addr, fn; __s64 line; } __attribute__((packed)) k = {
		'L', mapping_id, addr, function(p, func, file, start_line), line,
	};
	struct pb m = { 0 }, ln = { 0 };
	bool fresh;
	__u64 id = intern_id(p, &k, sizeof(k), &p->nloc, &fresh);

	if (!fresh)
		return id;
	pb__uint(&m, LOCATION_ID, id);
	pb__uint(&m, LOCATION_MAPPING_ID, mapping_id);
	pb__uint(&m, LOCATION_ADDRESS, addr);
	pb__uint(&ln, LINE_FUNCTION_ID, k.fn);
	if (line > 0)
		pb__uint(&ln, LINE_LINE, line);
	pb__msg(&m, LOCATION_LINE, &ln);
	pb__msg(&p->body, PROFILE_LOCATION, &m);
	pb__free(&ln);
	pb__free(&m);
	return id;
}

int pprof__sample(struct pprof *p, const __u64 *locs, size_t nlocs, const __s64 *values,
		  size_t nvalues, const struct pprof_label *labels, size_t nlabels)
{
	struct pb m = { 0 }, l = { 0 };
	bool oom;
	size_t i;

	pb__packed(&m, SAMPLE_LOCATION_ID, locs, nlocs);
	/* int64 values are varints of their two's complement */
	pb__packed(&m, SAMPLE_VALUE, (const __u64 *)values, nvalues);
	for (i = 0; i < nlabels; i++) {
		l.len = 0;
		pb__uint(&l, LABEL_KEY, pprof__cstr(p, labels[i].key));
		if (labels[i].str) {
			pb__uint(&l, LABEL_STR, pprof__str(p, labels[i].str, labels[i].str_len));
		} else {
			pb__uint(&l, LABEL_NUM, labels[i].num);
			if (labels[i].num_unit)
				pb__uint(&l, LABEL_NUM_UNIT, pprof__cstr(p, labels[i].num_unit));
		}
		pb__msg(&m, SAMPLE_LABEL, &l);
	}
	pb__msg(&p->body, PROFILE_SAMPLE, &m);
	oom = m.oom || l.oom || p->body.oom;
	pb__free(&l);
	pb__free(&m);
	return oom ? -ENOMEM : 0;
}

int pprof__encode(struct pprof *p, struct pb *out)
{
	pb__raw(out, p->body.buf, p->body.len);
	pb__raw(out, p->strings.buf, p->strings.len);
	pb__uint(out, PROFILE_TIME_NANOS, p->time_ns);
	pb__uint(out, PROFILE_DURATION_NANOS, p->duration_ns);
	if (p->period_type.len)
		pb__msg(out, PROFILE_PERIOD_TYPE, &p->period_type);
	pb__uint(out, PROFILE_PERIOD, p->period);
	pb__uint(out, PROFILE_DEFAULT_SAMPLE_TYPE, p->default_type);
	if (p->oom || p->body.oom || p->strings.oom || p->period_type.oom || p->in.keys.oom ||
	    out->oom)
		return -ENOMEM;
	return 0;
}

int pprof__gzip_bytes(const void *data, size_t len, void **buf, size_t *out_len)
{
	z_stream z = { 0 };
	unsigned char *o;
	size_t cap;
	int ret;

	*buf = NULL;
	*out_len = 0;
	/* windowBits 15 + 16: a gzip header and trailer around the deflate stream */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	cap = deflateBound(&z, len);
	o = malloc(cap ? cap : 1);
	if (!o) {
		deflateEnd(&z);
		return -ENOMEM;
	}
	z.next_in = (unsigned char *)data;
	z.avail_in = len;
	z.next_out = o;
	z.avail_out = cap;
	ret = deflate(&z, Z_FINISH);
	deflateEnd(&z);
	if (ret != Z_STREAM_END) {
		free(o);
		return -ENOMEM;
	}
	*buf = o;
	*out_len = cap - z.avail_out;
	return 0;
}

int pprof__gzip(struct pprof *p, void **buf, size_t *len)
{
	struct pb raw = { 0 };
	int err;

	*buf = NULL;
	*len = 0;
	err = pprof__encode(p, &raw);
	if (!err)
		err = pprof__gzip_bytes(raw.buf, raw.len, buf, len);
	pb__free(&raw);
	return err;
}
