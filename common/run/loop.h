/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one signal and poll loop. SIGINT and SIGTERM set loop_exiting; EINTR
 * is never an error. Summary tools call loop__intervals(); event tools
 * call loop__ringbuf().
 */
#ifndef BPFLITE_LOOP_H
#define BPFLITE_LOOP_H

#include <signal.h>
#include <stdbool.h>
#include <bpf/libbpf.h>

extern volatile sig_atomic_t loop_exiting;

void loop__signals(void);
/*
 * Route every wait of the loops through fn (--serve): fn waits up to
 * timeout_ms for its own work and for fd (-1: none) and returns 1 when fd
 * is readable.
 */
void loop__set_wait(int (*fn)(int timeout_ms, int fd));
/* Monotonic milliseconds. */
long long loop__now_ms(void);

/*
 * Call report(ctx) every interval seconds (interval 0: only at the end),
 * count times (0: until a signal), and once more when a signal ends the
 * run mid-interval. report returns 0, or a negative error that ends the
 * loop. Returns that error or 0.
 */
int loop__intervals(int interval, int count, int (*report)(void *ctx), void *ctx);

/*
 * Poll rb until a signal, or until duration seconds (0: no limit), or
 * until stop(ctx) returns true (may be NULL); tick(ctx) (may be NULL) is
 * called about every tick_ms. Returns 0 or a negative error.
 */
int loop__ringbuf(struct ring_buffer *rb, int duration, int tick_ms,
		  bool (*stop)(void *ctx), int (*tick)(void *ctx), void *ctx);

#endif
