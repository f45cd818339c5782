/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user side of common/bpf/procsnap.bpf.h (and of offcputime's events of
 * the same form): a process BPF saw for the first time is snapshotted
 * while it lives, so its frames get names after it exits.
 */
#ifndef BPFLITE_PROCSNAP_H
#define BPFLITE_PROCSNAP_H

#include <stddef.h>

/* Ring buffer callback; ctx is the struct usyms, data a __u32 tgid. */
int procsnap__event(void *ctx, void *data, size_t len);

struct usyms;
/*
 * From a tool's tick (every ~100 ms): every 5 s, once the symbolizer knows
 * BPFLITE_PRUNE_AT processes (default 4096), forget the exited ones that
 * have no key left in the nr maps fds, whose keys (key_sizes bytes)
 * start with a __u32 tgid. A map that cannot be read whole skips the prune.
 */
void procsnap__prune(struct usyms *u, const int *fds, const size_t *key_sizes, int nr);

#endif
