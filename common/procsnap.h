/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user side of common/procsnap.bpf.h (and of offcputime's events of
 * the same form): a process BPF saw for the first time is snapshotted
 * while it lives, so its frames get names after it exits.
 */
#ifndef BPFLITE_PROCSNAP_H
#define BPFLITE_PROCSNAP_H

#include <stddef.h>

/* Ring buffer callback; ctx is the struct usyms, data a __u32 tgid. */
int procsnap__event(void *ctx, void *data, size_t len);

#endif
