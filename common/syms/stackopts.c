// SPDX-License-Identifier: GPL-2.0
/* The stack options of profile-lite and offcputime-lite (stackopts.h). */
#include "syms/stackopts.h"
#include "run/msg.h"
#include "run/opts.h"

struct stack_opts stack_opts = {
	.storage = STACK_STORAGE_DEFAULT,
	.depth = STACK_DEPTH_DEFAULT,
	.unwind = UNW_MODE_AUTO,
	.python = true,
};

enum { OPT_STORAGE = 0x3100, OPT_DEPTH, OPT_UNWIND, OPT_PYTHON, OPT_NO_PYTHON };

static error_t parse_stack(int key, char *arg, struct argp_state *state)
{
	(void)state;
	switch (key) {
	case 'U':
		stack_opts.user_only = true;
		break;
	case 'K':
		stack_opts.kernel_only = true;
		break;
	case OPT_STORAGE:
		stack_opts.storage = opts__num(arg, "stack storage size", 1, 1 << 24);
		stack_opts.storage_set = true;
		break;
	case OPT_DEPTH:
		stack_opts.depth = opts__num(arg, "stack depth", 1, STACK_DEPTH_MAX);
		stack_opts.depth_set = true;
		break;
	case OPT_UNWIND:
		stack_opts.unwind = unwinder__mode(arg);
		break;
	case OPT_PYTHON:
	case OPT_NO_PYTHON:
		stack_opts.python = key == OPT_PYTHON;
		stack_opts.python_set = true;
		break;
	case ARGP_KEY_END:
		if (stack_opts.user_only && stack_opts.kernel_only)
			msg__usage("-U and -K are mutually exclusive");
		if (stack_opts.python && stack_opts.python_set && stack_opts.kernel_only)
			msg__usage("--python needs user stacks (not with -K)");
		if (stack_opts.kernel_only)
			stack_opts.python = false;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_option stack_options[] = {
	{ "user-stacks-only", 'U', NULL, 0, "Show stacks from user space only (no kernel space stacks)", 0 },
	{ "kernel-stacks-only", 'K', NULL, 0, "Show stacks from kernel space only (no user space stacks)", 0 },
	{ "stack-storage-size", OPT_STORAGE, "N", 0, "The number of unique stack traces that can be stored and displayed (default 2048 by tables, 16384 with --unwind fp)", 0 },
	{ "perf-max-stack-depth", OPT_DEPTH, "N", 0, "The limit for both kernel and user stack traces (default 64, at most 127; 127 with --unwind dwarf)", 0 },
	{ "unwind", OPT_UNWIND, "MODE", 0, "User stacks by each file's .eh_frame where it has one, else frame pointers (auto, the default; dwarf), or by frame pointers only (fp)", 0 },
	{ "python", OPT_PYTHON, NULL, 0, "Name CPython 3.10 to 3.13's functions in user stacks (the default; in place of the eval loop's frames with --unwind auto|dwarf, else above the native leaf)", 0 },
	{ "no-python", OPT_NO_PYTHON, NULL, 0, "Native frames only in Python processes' user stacks", 0 },
	{ 0 },
};

const struct argp stack__argp = { stack_options, parse_stack, NULL, NULL, NULL, NULL, NULL };
