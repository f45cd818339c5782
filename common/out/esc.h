/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Untrusted text (comm, file names, argv, symbol names) on its way to a
 * terminal or a text file: whoever runs the traced program chooses it, so
 * it must not forge lines or reach the terminal as control sequences.
 * Every text printer writes such strings through esc__put()/esc__str():
 *   - "\n", "\t", "\r", "\\"; other bytes < 0x20 and 0x7f as "\xNN";
 *   - invalid UTF-8 byte by byte as "\xNN"; the C1 controls (U+0080 to
 *     U+009F, e.g. the one-byte CSI) as their two bytes "\xc2\x9b";
 *   - valid, printable UTF-8 as it is.
 * ESC_QUOTED also escapes '"' (text inside double quotes, as execsnoop-lite
 * quotes arguments); ESC_FOLDED also ';' as "\x3b" (the frame separator of
 * folded stacks). JSON has its own escaper (json.h).
 */
#ifndef BPFLITE_ESC_H
#define BPFLITE_ESC_H

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define ESC_QUOTED	0x1
#define ESC_FOLDED	0x2

/* Write s (len bytes; it may hold NULs) escaped to f. */
void esc__put(FILE *f, const char *s, size_t len, unsigned int flags);
/*
 * s escaped into buf (always NUL-terminated, cut before an escape that
 * does not fit). Returns buf, for printf("%-16s", esc__str(...)).
 */
char *esc__str(char *buf, size_t size, const char *s, size_t len, unsigned int flags);
/* The same for a C string. */
char *esc__cstr(char *buf, size_t size, const char *s, unsigned int flags);
/*
 * A fixed-size char array (a comm: NUL-terminated or full) escaped, in a
 * buffer that lives until the end of the enclosing statement's block:
 * printf("%-16s", ESC_ARRAY(e->comm)).
 */
#define ESC_ARRAY(a)							\
	esc__str((char[4 * sizeof(a) + 1]){ 0 }, 4 * sizeof(a) + 1, (a),	\
		 strnlen((a), sizeof(a)), 0)

#endif
