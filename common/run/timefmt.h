/* SPDX-License-Identifier: GPL-2.0 */
#ifndef BPFLITE_TIMEFMT_H
#define BPFLITE_TIMEFMT_H

#include <stddef.h>

/* Local wall-clock time as HH:MM:SS (bcc's -T). */
const char *timefmt__hms(char *buf, size_t len);
/* Seconds since the epoch, with microseconds. */
double timefmt__epoch(void);

/* CLOCK_MONOTONIC in nanoseconds (bpf_ktime_get_ns()'s clock). */
unsigned long long timefmt__mono_ns(void);
/* Add to a monotonic time in seconds to get epoch seconds. */
double timefmt__mono_to_epoch(void);

#endif
