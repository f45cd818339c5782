/* SPDX-License-Identifier: GPL-2.0 */
/* Histogram slot helpers for BPF programs. */
#ifndef BPFLITE_HIST_BPF_H
#define BPFLITE_HIST_BPF_H

#include "abi/hist_abi.h"

/* floor(log2(v)), 0 for v == 0: branch-light, no loops for the verifier. */
static __always_inline __u32 log2_u32(__u32 v)
{
	__u32 r, shift;

	r = (v > 0xFFFF) << 4; v >>= r;
	shift = (v > 0xFF) << 3; v >>= shift; r |= shift;
	shift = (v > 0xF) << 2; v >>= shift; r |= shift;
	shift = (v > 0x3) << 1; v >>= shift; r |= shift;
	r |= (v >> 1);
	return r;
}

static __always_inline __u32 log2_u64(__u64 v)
{
	__u32 hi = v >> 32;

	return hi ? log2_u32(hi) + 32 : log2_u32(v);
}

_Static_assert((HIST_SLOTS & (HIST_SLOTS - 1)) == 0, "HIST_SLOTS is a power of two");

/*
 * Clamp a slot to the last one, then mask it in the register that will
 * index the array. Verifiers before 6.3 or so (Debian 12's 6.1 among them)
 * learn a bound only on the register that was compared, and clang compares
 * a copy: "R2 unbounded memory access" at slots[slot]. The mask, in asm so
 * that clang cannot drop it as redundant, bounds the register itself.
 */
static __always_inline __u32 hist_clamp(__u32 s)
{
	if (s >= HIST_SLOTS)
		s = HIST_SLOTS - 1;
#ifdef __bpf__
	asm volatile("%0 &= %1" : "+r"(s) : "i"(HIST_SLOTS - 1));
#endif
	return s;
}

/* Slot i holds values in [2^i, 2^(i+1)) (slot 0 holds 0 and 1). */
static __always_inline __u32 hist_slot_log2(__u64 v)
{
	return hist_clamp(log2_u64(v));
}

/* Slot i holds values in [base + i*step, base + (i+1)*step). */
static __always_inline __u32 hist_slot_linear(__u64 v, __u64 base, __u64 step)
{
	__u64 s = v < base ? 0 : (v - base) / step;

	return hist_clamp(s < HIST_SLOTS ? s : HIST_SLOTS - 1);
}

/* Add one value: value (in the histogram's unit) picks the slot. */
static __always_inline void hist_add(struct hist *h, __u32 slot, __u64 ns)
{
	slot = hist_clamp(slot);
	__sync_fetch_and_add(&h->slots[slot], 1);
	__sync_fetch_and_add(&h->count, 1);
	__sync_fetch_and_add(&h->sum_ns, ns);
}

#ifdef __bpf__	/* the slot helpers above are also unit-tested on the host */
#include "bpf/loss.bpf.h"

static struct hist hist_zero;

/*
 * The histogram of key in map (a hash of __u32 -> struct hist), created
 * empty on first use (*created is then true, for the caller to fill in
 * comm and such). NULL when the map is full: counted in loss.map_full.
 */
static __always_inline struct hist *hist_lookup_or_init(void *map, __u32 *key, bool *created)
{
	struct hist *h = bpf_map_lookup_elem(map, key);

	*created = false;
	if (h)
		return h;
	if (bpf_map_update_elem(map, key, &hist_zero, BPF_NOEXIST) &&
	    !bpf_map_lookup_elem(map, key)) {
		loss_inc(map_full);
		return NULL;
	}
	*created = true;
	return bpf_map_lookup_elem(map, key);
}
#endif /* __bpf__ */

#endif
