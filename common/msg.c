// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "msg.h"

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
			msg__hint("BPF is restricted here (lockdown, a seccomp filter or kernel.unprivileged_bpf_disabled); run -v for the verifier's log");
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

int msg__libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && !msg_verbose)
		return 0;
	/* Without -v, warnings are only noise unless something fails; the
	 * caller then prints a failure message and suggests -v. */
	if (!msg_verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}
