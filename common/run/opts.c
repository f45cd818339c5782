// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include "run/msg.h"
#include "run/opts.h"
#include "run/version.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

struct env env;

enum {
	OPT_BTF = 0x1000,
	OPT_FORCE_RAW_TP,
	OPT_FORCE_LIBBPF,
	OPT_VERSION = OPTS_KEY_VERSION,
};

void opts__version(void)
{
	printf("%s %s\n", msg_tool, BPFLITE_VERSION);
	exit(EXIT_OK);
}

static unsigned int opts_mask;

long long opts__num(const char *arg, const char *what, long long min, long long max)
{
	char *end;
	long long v;

	if (!arg || !*arg)
		msg__usage("invalid %s: empty", what);
	errno = 0;
	v = strtoll(arg, &end, 0);
	if (errno || *end || end == arg)
		msg__usage("invalid %s: '%s' is not a number", what, arg);
	if (v < min || v > max) {
		if (max == LLONG_MAX)
			msg__usage("invalid %s: %s (must be at least %lld)", what, arg, min);
		msg__usage("invalid %s: %s (must be %lld to %lld)", what, arg, min, max);
	}
	return v;
}

int opts__num_list(const char *arg, const char *what, long long min, long long max,
		   long long *out, int max_out)
{
	char *dup = strdup(arg), *tok, *save = NULL;
	int n = 0;

	if (!dup)
		exit(EXIT_FAIL);
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == max_out)
			msg__usage("too many values for %s (at most %d)", what, max_out);
		out[n++] = opts__num(tok, what, min, max);
	}
	free(dup);
	if (!n)
		msg__usage("invalid %s: empty", what);
	return n;
}

void opts__check_pid(pid_t pid, const char *what)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d", pid);
	if (access(path, F_OK) && kill(pid, 0) && errno == ESRCH)
		msg__usage("%s %d: no such process", what, pid);
}

__u64 opts__cgroup_id(const char *path)
{
	struct {
		struct file_handle fh;
		__u64 id;
	} h;
	struct statfs sfs;
	int mount_id;

	if (statfs(path, &sfs))
		msg__usage("invalid cgroup '%s': %s", path, strerror(errno));
	if (sfs.f_type != CGROUP2_SUPER_MAGIC) {
		msg__err("invalid cgroup '%s': not a cgroup v2 directory", path);
		msg__hint("give a directory of the cgroup2 mount (see: mount -t cgroup2)");
		exit(EXIT_USAGE);
	}
	h.fh.handle_bytes = sizeof(h.id);
	if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mount_id, 0))
		msg__usage("invalid cgroup '%s': %s", path, strerror(errno));
	return h.id;
}

static error_t parse_common(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'p':
		env.pid = opts__num(arg, "PID", 1, INT_MAX);
		opts__check_pid(env.pid, "PID");
		break;
	case 't':
		env.tid = opts__num(arg, "TID", 1, INT_MAX);
		opts__check_pid(env.tid, "TID");
		break;
	case 'c':
		env.cgroup_path = arg;
		env.cgroup_id = opts__cgroup_id(arg);
		break;
	case 'T':
		env.timestamp = true;
		break;
	case 'm':
		env.milliseconds = true;
		break;
	case 'j':
		env.json = true;
		break;
	case 'v':
		env.verbose = true;
		msg_verbose = true;
		break;
	case OPT_BTF:
		if (access(arg, R_OK))
			msg__usage("cannot read BTF file '%s': %s", arg, strerror(errno));
		env.btf_path = arg;
		break;
	case 'h':
		argp_state_help(state, stdout, ARGP_HELP_STD_HELP);
		break;
	case OPT_FORCE_RAW_TP:
		env.force_raw_tp = true;
		break;
	case OPT_FORCE_LIBBPF:
		env.force_libbpf = true;
		break;
	case OPT_VERSION:
		opts__version();
	case ARGP_KEY_ARG:
		if (opts_mask & OPTS_INTERVAL) {
			if (env.nr_positional == 0) {
				env.interval = opts__num(arg, "interval", 1, INT_MAX);
				env.count = 0;
			} else if (env.nr_positional == 1) {
				env.count = opts__num(arg, "count", 1, INT_MAX);
			} else {
				msg__usage("unexpected argument '%s'", arg);
			}
		} else if (opts_mask & OPTS_DURATION) {
			if (env.nr_positional)
				msg__usage("unexpected argument '%s'", arg);
			env.duration = opts__num(arg, "duration", 1, INT_MAX);
		} else {
			return ARGP_ERR_UNKNOWN;
		}
		env.nr_positional++;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static struct argp_option all_options[] = {
	{ "pid", 'p', "PID", 0, "Trace this process only", 0 },
	{ "tid", 't', "TID", 0, "Trace this thread only", 0 },
	{ "cgroup", 'c', "CGROUP_PATH", 0, "Trace tasks in this cgroup v2 directory (and below) only", 0 },
	{ "timestamp", 'T', NULL, 0, "Include a timestamp on output", 0 },
	{ "milliseconds", 'm', NULL, 0, "Millisecond histogram", 0 },
	{ "json", 'j', NULL, 0, "Print NDJSON, one object per line", 0 },
	{ "verbose", 'v', NULL, 0, "Verbose debug output (libbpf, attach choices)", 0 },
	{ "btf", OPT_BTF, "FILE", 0, "Use this BTF file for kernels without /sys/kernel/btf/vmlinux", 0 },
	{ "version", OPT_VERSION, NULL, 0, "Print the version and exit", 0 },
	{ NULL, 'h', NULL, OPTION_HIDDEN, "Show this help", 0 },
	{ "force-raw-tp", OPT_FORCE_RAW_TP, NULL, OPTION_HIDDEN, "Use raw_tp instead of tp_btf", 0 },
	{ "force-libbpf", OPT_FORCE_LIBBPF, NULL, OPTION_HIDDEN, "Load by the libbpf skeleton, not the light loader", 0 },
	{ 0 },
};

/* what opts__children() keeps of all_options: at most all of it, and its end */
static struct argp_option chosen[sizeof(all_options) / sizeof(all_options[0])];
static struct argp common_argp = { chosen, parse_common, NULL, NULL, NULL, NULL, NULL };
/* the modules' argps, in the order given */
#define MAX_MODULES 4
static const struct argp *modules[MAX_MODULES];
static int nr_modules;
/* common, the modules and the end */
static struct argp_child children[1 + MAX_MODULES + 1];

void opts__module(const struct argp *argp)
{
	for (int i = 0; i < nr_modules; i++)
		if (modules[i] == argp)
			return;
	if (nr_modules == MAX_MODULES) {
		msg__err("more than %d option modules (opts.c: MAX_MODULES)", MAX_MODULES);
		exit(EXIT_FAIL);
	}
	modules[nr_modules++] = argp;
}

const struct argp_child *opts__children(unsigned int mask)
{
	static const struct { int key; unsigned int bit; } bits[] = {
		{ 'p', OPTS_PID }, { 't', OPTS_TID }, { 'c', OPTS_CGROUP },
		{ 'T', OPTS_TIMESTAMP }, { 'm', OPTS_MS },
	};
	int n = 0;

	opts_mask = mask;
	for (struct argp_option *o = all_options; o->name || o->key; o++) {
		bool keep = true;

		for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
			if (o->key == bits[i].key && !(mask & bits[i].bit))
				keep = false;
		if (keep)
			chosen[n++] = *o;
	}
	memset(&chosen[n], 0, sizeof(chosen[n]));
	children[0].argp = &common_argp;
	children[0].header = NULL;
	children[0].group = 0;
	memset(&children[1], 0, sizeof(children) - sizeof(children[0]));
	n = 1;
	/*
	 * argp ends the last child first (ARGP_KEY_END), the tool's own parser
	 * last: a module registered later checks its options before one
	 * registered earlier (window's "--ring needs --interval" before the
	 * exporter's "--serve takes no -j").
	 */
	for (int i = 0; i < nr_modules; i++)
		children[n++].argp = modules[i];
	return children;
}

void opts__parse(const struct argp *argp, int argc, char **argv, void *input)
{
	int err;

	/* Usage errors exit 2; argp's own default is 64. */
	argp_err_exit_status = EXIT_USAGE;
	/* Name the tool the same way however it was started. */
	program_invocation_name = (char *)msg_tool;
	program_invocation_short_name = (char *)msg_tool;
	if (argc > 0)
		argv[0] = (char *)msg_tool;
	err = argp_parse(argp, argc, argv, 0, NULL, input);
	if (err)
		exit(EXIT_USAGE);
}

void opts__parse_tool(const struct argp_option *options, argp_parser_t parser,
		      const char *args_doc, const char *doc, unsigned int mask,
		      int argc, char **argv)
{
	struct argp argp = {
		.options = options,
		.parser = parser,
		.args_doc = args_doc,
		.doc = doc,
		.children = opts__children(mask),
	};

	opts__parse(&argp, argc, argv, NULL);
}
