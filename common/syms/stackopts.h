/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The options of the tools that print stacks of their own (profile-lite,
 * offcputime-lite), as one argp module (opts__module()): -U, -K,
 * --stack-storage-size, --perf-max-stack-depth, --unwind, --python and
 * --no-python,
 * parsed into stack_opts, with the checks they need among themselves.
 */
#ifndef BPFLITE_STACKOPTS_H
#define BPFLITE_STACKOPTS_H

#include <argp.h>
#include <stdbool.h>
#include "syms/unwind.h"

/* the defaults --help names */
#define STACK_STORAGE_DEFAULT	16384
#define STACK_DEPTH_DEFAULT	64
/* the most --perf-max-stack-depth takes: the kernel's perf_event_max_stack default */
#define STACK_DEPTH_MAX		127

struct stack_opts {
	bool user_only, kernel_only;	/* -U, -K */
	int storage;			/* unique stacks the map holds */
	int depth;			/* frames a stack holds at most */
	bool storage_set, depth_set;	/* given, not the default */
	enum unw_mode unwind;
	bool python;			/* on unless --no-python (or -K) */
	bool python_set;		/* --python or --no-python given */
};

extern struct stack_opts stack_opts;
extern const struct argp stack__argp;

#endif
