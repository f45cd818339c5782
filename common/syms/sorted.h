/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one search the symbol tables share: in an array of structs sorted
 * by an unsigned address field, the last element whose field is <= key
 * (of equal fields, the last), or NULL when the array is empty or key is
 * below the first. Kernel and ELF symbols, perf-map entries, mappings and
 * unwinding rows all find "the entry that starts at or before addr" so;
 * each caller then checks the end of what it found, if it has one.
 *
 *	const struct ksym *s = SORTED_LAST_LE(k->syms, k->nr, addr, pc);
 */
#ifndef BPFLITE_SORTED_H
#define BPFLITE_SORTED_H

#include <stddef.h>
#include <string.h>
#include <linux/types.h>

/* A key field of key_size bytes (4 or 8) at p, widened as C would. */
static inline __u64 sorted__key(const void *p, size_t key_size)
{
	__u32 k32;
	__u64 k64;

	if (key_size == sizeof(k32)) {
		memcpy(&k32, p, sizeof(k32));
		return k32;
	}
	memcpy(&k64, p, sizeof(k64));
	return k64;
}

static inline const void *sorted__last_le(const void *base, size_t n, size_t size,
					  size_t key_off, size_t key_size, __u64 key)
{
	const char *b = base;
	size_t lo = 0, hi = n;

	/* [0, lo) are <= key, [hi, n) above it */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sorted__key(b + mid * size + key_off, key_size) <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? b + (lo - 1) * size : NULL;
}

/*
 * sorted__last_le() over arr[0..n) by arr's member field, typed as arr's
 * elements. The field must be an unsigned 32- or 64-bit integer.
 */
#define SORTED_LAST_LE(arr, n, field, key) ({					\
	_Static_assert((sizeof((arr)->field) == 4 || sizeof((arr)->field) == 8) &&	\
		       (__typeof__((arr)->field))-1 > 0,				\
		       "SORTED_LAST_LE: " #field " is not an unsigned 32/64-bit field");\
	(__typeof__(&(arr)[0]))sorted__last_le((arr), (n), sizeof(*(arr)),	\
		offsetof(__typeof__(*(arr)), field), sizeof((arr)->field), (key));	\
})

#endif
