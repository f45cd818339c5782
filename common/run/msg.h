/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Messages every tool prints the same way:
 *   <tool>: failed to <verb> <object>: <strerror>
 *   <tool>: hint: <what the user can do>
 *   <tool>: warning: <something was lost or degraded>
 * Diagnostics go to stderr; results go to stdout.
 */
#ifndef BPFLITE_MSG_H
#define BPFLITE_MSG_H

#include <stdarg.h>
#include <stdbool.h>
#include <bpf/libbpf.h>

/* Exit codes shared by every tool. */
#define EXIT_OK		0
#define EXIT_FAIL	1
#define EXIT_USAGE	2

extern const char *msg_tool;
extern bool msg_verbose;

void msg__init(const char *tool);
void msg__err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "failed to <what>: strerror(err)"; err may be negative (libbpf style) */
void msg__fail(int err, const char *what, ...) __attribute__((format(printf, 2, 3)));
void msg__hint(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void msg__warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Printed only under -v. */
void msg__verbose(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A usage error: message, the --help pointer, exit(EXIT_USAGE). */
void msg__usage(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* Hints for errors the user can fix (EPERM: privileges, ENOENT: BTF...). */
void msg__hint_for(int err);

/*
 * The one libbpf print callback: output only under -v; it always keeps
 * the tail of the last verifier log libbpf printed.
 */
int msg__libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap);
/* That tail (NULL when the verifier rejected nothing) and its program. */
const char *msg__verifier_log(const char **prog);

#endif
