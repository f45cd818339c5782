// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "run/msg.h"

const char *msg_tool = "bpflite";
bool msg_verbose;

void msg__init(const char *tool)
{
	msg_tool = tool;
	libbpf_set_print(msg__libbpf_print);
}

static void vmsg(const char *kind, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: %s", msg_tool, kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void msg__err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void msg__fail(int err, const char *what, ...)
{
	va_list ap;

	if (err < 0)
		err = -err;
	fprintf(stderr, "%s: failed to ", msg_tool);
	va_start(ap, what);
	vfprintf(stderr, what, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(err));
}

void msg__hint(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("hint: ", fmt, ap);
	va_end(ap);
}

void msg__warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

void msg__verbose(const char *fmt, ...)
{
	va_list ap;

	if (!msg_verbose)
		return;
	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void msg__usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try '%s --help' for more information.\n", msg_tool);
	exit(EXIT_USAGE);
}

void msg__hint_for(int err)
{
	if (err < 0)
		err = -err;
	switch (err) {
	case EPERM:
	case EACCES:
		if (geteuid() != 0)
			msg__hint("run as root, or grant CAP_BPF and CAP_PERFMON");
		else
			msg__hint("BPF is restricted here (lockdown, a seccomp filter or kernel.unprivileged_bpf_disabled); run -v for details");
		break;
	case ENOENT:
	case ESRCH:
		msg__hint("the kernel may lack this tracepoint or BTF; run -v for details");
		break;
	case E2BIG:
	case ENOMEM:
		msg__hint("a map could not be allocated: check the memory cgroup limit or lower the map sizes");
		break;
	default:
		break;
	}
}

/*
 * The last verifier log libbpf printed: libbpf prints it at warning level
 * between "-- BEGIN PROG LOAD LOG --" and "-- END PROG LOAD LOG --", so
 * it reaches us even without -v. Its tail is kept for the failure message.
 */
#define VLOG_TAIL 4096
static char vlog_prog[128];
static char vlog[VLOG_TAIL];
static size_t vlog_len;
static bool vlog_open, vlog_seen;

static void vlog_append(const char *s, size_t n)
{
	if (n >= VLOG_TAIL) {
		s += n - (VLOG_TAIL - 1);
		n = VLOG_TAIL - 1;
	}
	if (vlog_len + n >= VLOG_TAIL) {
		size_t drop = vlog_len + n - (VLOG_TAIL - 1);

		memmove(vlog, vlog + drop, vlog_len - drop);
		vlog_len -= drop;
	}
	memcpy(vlog + vlog_len, s, n);
	vlog_len += n;
	vlog[vlog_len] = '\0';
}

static void vlog_capture(const char *text)
{
	static const char begin[] = "-- BEGIN PROG LOAD LOG --", end[] = "-- END PROG LOAD LOG --";
	const char *b = strstr(text, begin), *e;

	if (b) {
		const char *q = strstr(text, "prog '");

		vlog_prog[0] = '\0';
		if (q && q < b)
			sscanf(q, "prog '%127[^']'", vlog_prog);
		vlog_len = 0;
		vlog[0] = '\0';
		vlog_open = vlog_seen = true;
		text = b + sizeof(begin) - 1;
		if (*text == '\n')
			text++;
	}
	if (!vlog_open)
		return;
	e = strstr(text, end);
	vlog_append(text, e ? (size_t)(e - text) : strlen(text));
	if (e)
		vlog_open = false;
}

const char *msg__verifier_log(const char **prog)
{
	if (!vlog_seen)
		return NULL;
	*prog = vlog_prog[0] ? vlog_prog : "?";
	return vlog;
}

int msg__libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char buf[1024], *text = buf;
	va_list aq;
	int n;

	if (level == LIBBPF_DEBUG && !msg_verbose)
		return 0;
	va_copy(aq, ap);
	n = vsnprintf(buf, sizeof(buf), fmt, aq);
	va_end(aq);
	if (n >= (int)sizeof(buf)) {	/* a whole verifier log: one call */
		text = malloc(n + 1);
		if (text)
			vsnprintf(text, n + 1, fmt, ap);
		else
			text = buf;
	}
	if (level == LIBBPF_WARN)
		vlog_capture(text);
	/* Without -v, warnings are only noise unless something fails; the
	 * caller then prints a failure message with the verifier log's tail. */
	if (msg_verbose)
		fputs(text, stderr);
	if (text != buf)
		free(text);
	return n;
}
