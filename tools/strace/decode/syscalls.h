/* SPDX-License-Identifier: GPL-2.0 */
/*
 * System call names and numbers (x86_64 and ia32), generated at build time
 * from the kernel UAPI headers by scripts/gen-syscalls.sh into
 * build/syscall_table.h, and errno names.
 */
#ifndef BPFLITE_SYSCALLS_H
#define BPFLITE_SYSCALLS_H

#include <stdbool.h>
#include <stddef.h>

/* Numbers per ABI that tools keep tables for (bitmaps, statistics). */
#define SYSCALL_NR_SLOTS 512

/* Name of x86_64 (ia32 false) or ia32 syscall nr; NULL when unknown. */
const char *syscall__name(int nr, bool ia32);
/* Number of a syscall name, -1 when unknown. */
int syscall__nr(const char *name, bool ia32);
/*
 * Printable name: "read", "ia32:read", "syscall_0x1d3" (a number the
 * headers do not know), "ia32:syscall_0x1d3". Returns buf.
 */
const char *syscall__format(char *buf, size_t len, int nr, bool ia32);
/*
 * Up to max x86_64 names close to name (edit distance, or a common
 * prefix), best first. Returns how many.
 */
int syscall__suggest(const char *name, const char **out, int max);
/* "ENOENT" for 2; "E<n>" for numbers without a name. Returns buf. */
const char *errno__name(int err, char *buf, size_t len);

#endif
