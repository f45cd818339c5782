/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Time windows and the flight recorder, shared by the aggregating stack
 * tools (offcputime-lite, dstate-lite, profile-lite).
 *
 * Options: a tool that registers window__argp (opts__module()) offers
 *   --interval SECS  one aggregate per window of SECS seconds (decimals
 *                    allowed, at least 0.1), each stamped with its
 *                    wall-clock start and end;
 *   --ring N         with --interval: keep only the last N windows in
 *                    memory and print nothing until SIGUSR1, which prints
 *                    (and forgets) the kept windows while the tool keeps
 *                    running; SIGINT/SIGTERM print them and end the run.
 * The values are in window_opts after parsing.
 *
 * Life of a tool:
 *   w = windows__new(report, ctx);  after attach, just before the loop:
 *                                   the first window starts here (with
 *                                   --ring, SIGUSR1 is caught from option
 *                                   parsing on: one during start-up is
 *                                   served at the first tick)
 *   windows__tick(w);               from the loop's tick (every ~100 ms):
 *                                   closes the window when it is due, or
 *                                   when SIGUSR1 asked for a dump
 *   windows__finish(w);             at the end of the run (after detach):
 *                                   the last, partial window, then the
 *                                   ring; without --interval it is the
 *                                   one report, to stdout
 *   windows__free(w);
 * report(ctx, out) writes one window's aggregate to out and empties the
 * tool's maps, so the next window starts from zero. It writes out only
 * (never stdout): with --ring, out is a memory buffer.
 *
 * Every window starts with a header the window code writes (times are
 * UTC, ISO 8601, milliseconds; SEQ counts windows from 1):
 *   text and -f:  "# window SEQ START END"
 *   -j:           {"type":"window","window":SEQ,"start":"START","end":"END",
 *                  "seconds":S}
 * In folded output the header is a comment line: flamegraph-lite reads it
 * (--from/--to pick windows); flamegraph.pl skips it as a line without a
 * count (it says "Ignored N lines with invalid format" on stderr) and
 * speedscope skips it silently, so both draw the windows summed.
 *
 * Memory: the ring holds at most N windows and at most WINDOW_RING_BYTES
 * of their text, whichever comes first: when a new window does not fit,
 * the oldest kept windows are dropped (counted, and said at the dump); a
 * window that alone exceeds the limit is cut at its last full line
 * (said too). Each window is printed at most once.
 */
#ifndef BPFLITE_WINDOW_H
#define BPFLITE_WINDOW_H

#include <argp.h>
#include <stdbool.h>
#include <stdio.h>

/* Text kept by the ring at most, all windows together. */
#define WINDOW_RING_BYTES	(64UL << 20)
/* --ring N at most: the list of kept windows costs ~100 bytes each. */
#define WINDOW_RING_MAX		100000

struct window_opts {
	long long interval_ms;	/* 0: one report at the end of the run */
	unsigned int ring;	/* 0: print each window when it closes */
};

extern struct window_opts window_opts;
/* The module's options, for opts__module(): after prom__argp. */
extern const struct argp window__argp;

typedef int (*window_report_fn)(void *ctx, FILE *out);

struct windows;

struct windows *windows__new(window_report_fn report, void *ctx);
/* 0, or report's negative error (which ends the run). */
int windows__tick(struct windows *w);
int windows__finish(struct windows *w);
void windows__free(struct windows *w);

/* "2026-11-30T21:44:20.123Z" for a CLOCK_REALTIME time in ms; buf >= 32. */
const char *window__iso(char *buf, size_t len, long long epoch_ms);
/*
 * Parse a time as the headers print it ("2026-11-30T21:44:20.123Z"; the
 * seconds, the fraction and the Z are optional, a space may replace the T)
 * into epoch ms. HH:MM[:SS[.fff]] alone is that time of day on the UTC date of
 * day_ms (an epoch ms; returns -1 if day_ms < 0). -1: not a time.
 */
long long window__parse_time(const char *s, long long day_ms);

#endif
