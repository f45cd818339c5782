/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Options shared by every tool: one argp child parser. A tool chooses the
 * options it offers with a mask (strace-lite's -p takes a list, for
 * example, so it does not take ours); -j, -v, --btf and the hidden
 * --force-raw-tp and --force-libbpf are always there.
 */
#ifndef BPFLITE_OPTS_H
#define BPFLITE_OPTS_H

#include <argp.h>
#include <stdbool.h>
#include <sys/types.h>
#include <linux/types.h>

enum {
	OPTS_PID	= 1 << 0,	/* -p PID */
	OPTS_TID	= 1 << 1,	/* -t TID */
	OPTS_CGROUP	= 1 << 2,	/* -c CGROUP_PATH */
	OPTS_TIMESTAMP	= 1 << 3,	/* -T */
	OPTS_MS		= 1 << 4,	/* -m milliseconds */
	OPTS_INTERVAL	= 1 << 5,	/* positional [interval [count]] */
	OPTS_DURATION	= 1 << 6,	/* positional [duration] */
};

struct env {
	pid_t pid;			/* tgid filter, 0 = any */
	pid_t tid;			/* thread filter, 0 = any */
	const char *cgroup_path;
	__u64 cgroup_id;		/* cgroup v2 id of cgroup_path */
	bool timestamp;
	bool milliseconds;
	bool json;
	bool verbose;
	bool force_raw_tp;		/* hidden: test the raw_tp fallback */
	bool force_libbpf;		/* hidden: test the libbpf skeleton fallback */
	const char *btf_path;		/* --btf FILE for kernels without BTF */
	int interval;			/* seconds; 0 = only at exit */
	int count;			/* intervals; 0 = until Ctrl-C */
	int duration;			/* seconds; 0 = until Ctrl-C */
	int nr_positional;
};

extern struct env env;

/* --version: its argp key, and what it does: print "<tool> <version>", exit 0. */
#define OPTS_KEY_VERSION 0x10ff
void opts__version(void) __attribute__((noreturn));

/*
 * A module's own options, given before opts__parse_tool(): syms__argp
 * (--no-demangle), prom__argp (the exporter's --serve and --max-series),
 * window__argp (--interval, --ring), stack__argp (-U, -K, --unwind,
 * --python and the stack map's sizes). A tool links only the modules it
 * registers, and offers only their options. Up to 4 modules; one given
 * twice counts once. A module registered later checks its options first
 * (argp ends its children last to first): window after prom.
 */
void opts__module(const struct argp *argp);
/* The argp child for the options chosen in mask. */
const struct argp_child *opts__children(unsigned int mask);
/*
 * Parse a tool's argv with its own argp (whose children come from
 * opts__children()). Usage errors exit 2 with "<tool>: ..." messages.
 */
void opts__parse(const struct argp *argp, int argc, char **argv, void *input);

/*
 * The same in one call: the tool's own options and parser (either may be
 * NULL) with the shared options of mask.
 */
void opts__parse_tool(const struct argp_option *options, argp_parser_t parser,
		      const char *args_doc, const char *doc, unsigned int mask,
		      int argc, char **argv);

/*
 * Strict number parsing: the whole string must be a number in [min, max].
 * On failure: a usage error naming what, exit 2.
 */
long long opts__num(const char *arg, const char *what, long long min, long long max);
/* The same, for a value in a list such as "1,2,3": returns count parsed. */
int opts__num_list(const char *arg, const char *what, long long min, long long max,
		   long long *out, int max_out);
/* Checks a process exists (exit 2 otherwise). */
void opts__check_pid(pid_t pid, const char *what);
/* Resolve a cgroup v2 directory to its id (exit 2 when it is not one). */
__u64 opts__cgroup_id(const char *path);

#endif
