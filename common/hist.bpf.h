/* SPDX-License-Identifier: GPL-2.0 */
/* Histogram slot helpers for BPF programs. */
#ifndef BPFLITE_HIST_BPF_H
#define BPFLITE_HIST_BPF_H

#include "hist_abi.h"

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

/* Slot i holds values in [2^i, 2^(i+1)) (slot 0 holds 0 and 1). */
static __always_inline __u32 hist_slot_log2(__u64 v)
{
	__u32 s = log2_u64(v);

	return s < HIST_SLOTS ? s : HIST_SLOTS - 1;
}

/* Slot i holds values in [base + i*step, base + (i+1)*step). */
static __always_inline __u32 hist_slot_linear(__u64 v, __u64 base, __u64 step)
{
	__u64 s = v < base ? 0 : (v - base) / step;

	return s < HIST_SLOTS ? s : HIST_SLOTS - 1;
}

/* Add one value: value (in the histogram's unit) picks the slot. */
static __always_inline void hist_add(struct hist *h, __u32 slot, __u64 ns)
{
	if (slot >= HIST_SLOTS)
		slot = HIST_SLOTS - 1;
	__sync_fetch_and_add(&h->slots[slot], 1);
	__sync_fetch_and_add(&h->count, 1);
	__sync_fetch_and_add(&h->sum_ns, ns);
}

#ifdef __bpf__	/* the slot helpers above are also unit-tested on the host */
#include "loss.bpf.h"

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
