// SPDX-License-Identifier: GPL-2.0
/* strace-lite: options, -e expressions and the filters they set. */
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <strings.h>
#include "serve/prom.h"
#include "serve/serve.h"
#include "strace/decode/syscalls.h"
#include "strace_lite.h"

struct strace_cfg cfg = { .strsize = 32, .signals = ~0ULL };

enum {
	OPT_SUMMARY_ONLY = 'c', OPT_SUMMARY = 'C', OPT_SORT = 'S', OPT_HIST = 'L',
};

static const char doc[] =
"Trace system calls of a command or of running processes, as strace does, from BPF.\n"
"\v"
"EXAMPLES:\n"
"    strace-lite ls /tmp                 # trace ls; exit with its status\n"
"    strace-lite -f -e trace=%file make  # file calls of make and children\n"
"    strace-lite -p 1234,1235 -T         # attach to two processes; durations\n"
"    strace-lite -c -p 1234              # calls, errors, time; at Ctrl-C\n"
"    strace-lite -c                      # the same for every process\n"
"    strace-lite -c -L cmd               # and a latency histogram per call\n"
"    strace-lite -f -u www-data -e trace=%net  # network calls of a user\n"
"    strace-lite -Z -e trace=openat cmd  # failed openat calls only\n"
"    strace-lite -j -o trace.json cmd    # NDJSON events to a file\n"
"    strace-lite -c --serve 9302 -p 1234 # Prometheus counters on 127.0.0.1:9302\n";

enum { OPT_DEBUG = 0x100 };

static const struct argp_option options[] = {
	{ "summary-only", 'c', NULL, 0, "Count time, calls and errors per syscall; print a summary at the end", 0 },
	{ "summary", 'C', NULL, 0, "Like -c, and trace the calls too", 0 },
	{ "summary-sort-by", 'S', "SORTBY", 0, "Sort the summary by time (default), calls, name, errors or nothing", 0 },
	{ "histogram", 'L', NULL, 0, "With -c/-C: a log2 latency histogram per syscall", 0 },
	{ "summary-wall-clock", 'w', NULL, 0, "-c sums wall time, entry to exit, not system time", 0 },
	{ "follow-forks", 'f', NULL, 0, "Trace children and threads as they are created; -ff with -o: a file per process", 0 },
	{ "attach", 'p', "PID[,PID...]", 0, "Attach to these processes (all their threads)", 0 },
	{ "user", 'u', "USER", 0, "Run the command as this user (name or uid); without a command, trace every process of the user", 0 },
	{ "expr", 'e', "EXPR", 0, "trace=[!]NAME|%CLASS|CLASS,..., signal=[!]SIG,... or status=successful|failed|all", 0 },
	{ "successful-only", 'z', NULL, 0, "Only calls that succeed", 0 },
	{ "failed-only", 'Z', NULL, 0, "Only calls that fail", 0 },
	{ "string-limit", 's', "STRSIZE", 0, "Bytes of strings and buffers shown (default 32; copies stop at 256)", 0 },
	{ "decode-fds", 'y', NULL, 0, "Print the paths of file descriptors", 0 },
	{ "absolute-timestamps", 't', NULL, 0, "Time of day on each line; -tt with microseconds, -ttt epoch", 0 },
	{ "relative-timestamps", 'r', NULL, 0, "Time since the previous line on each line", 0 },
	{ "syscall-times", 'T', NULL, 0, "Time spent in each call, <seconds>", 0 },
	{ "output", 'o', "FILE", 0, "Write the trace and the summary to FILE; with -ff, FILE.PID per process", 0 },
	{ "quiet", 'q', NULL, 0, "No \"Hit Ctrl-C\" line; -qq: no \"+++ exited\" lines either", 0 },
	{ "trace-path", 'P', "PATH", 0, "Only calls that touch PATH: a path argument or a descriptor of it (repeatable)", 0 },
	{ "no-abbrev", 'v', NULL, 0, "Unabbreviated structures, as strace -v: stat's and termios's every field", 0 },
	{ "debug", OPT_DEBUG, NULL, 0, "libbpf's debug output, the attach form chosen for each tracepoint", 0 },
	{ "const-print-style", 'X', "FORMAT", 0, "Constants as raw numbers, abbrev (names, the default) or verbose (both)", 0 },
	{ "stack-trace", 'k', NULL, 0, "Not supported: stacks at each call need the process stopped (ptrace); out of scope", 0 },
	{ 0 },
};

/* ---- -e trace= ---------------------------------------------------------- */

static void mask_set(__u64 *m, int slot, bool on)
{
	if (on)
		m[slot / 64] |= 1ULL << (slot % 64);
	else
		m[slot / 64] &= ~(1ULL << (slot % 64));
}

static void unknown_syscall(const char *name)
{
	const char *close[4];
	int n = syscall__suggest(name, close, 4);

	msg__err("invalid system call '%s'", name);
	if (n) {
		char buf[256] = "";

		for (int i = 0; i < n; i++)
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s",
				 i ? ", " : "", close[i]);
		msg__hint("did you mean: %s?", buf);
	}
	fprintf(stderr, "Try '%s --help' for more information.\n", msg_tool);
	exit(EXIT_USAGE);
}

/* Both ABIs' slots of a call by this name (none when neither has it). */
static int mask_name(__u64 *m, const char *name, bool on)
{
	int nr, hits = 0;

	if ((nr = syscall__nr(name, false)) >= 0) {
		mask_set(m, nr, on);
		hits++;
	}
	if ((nr = syscall__nr(name, true)) >= 0) {
		mask_set(m, STRACE_IA32 + nr, on);
		hits++;
	}
	return hits;
}

/*
 * strace's classes of the stat and statfs calls, by name (ia32's own
 * names too): %fstat is fstat, fstatat and statx, %%stat all of them.
 */
static const struct {
	const char *cls, *names;
} stat_classes[] = {
	{ "%stat", "stat stat64 oldstat" },
	{ "%lstat", "lstat lstat64 oldlstat" },
	{ "%fstat", "fstat fstat64 oldfstat newfstatat fstatat64 statx" },
	{ "%%stat", "stat stat64 oldstat lstat lstat64 oldlstat fstat fstat64 oldfstat "
		    "newfstatat fstatat64 statx" },
	{ "%statfs", "statfs statfs64" },
	{ "%fstatfs", "fstatfs fstatfs64" },
	{ "%%statfs", "statfs statfs64 fstatfs fstatfs64 ustat" },
};

/* /REGEX: every call of either ABI whose name matches (POSIX extended), as strace */
static void mask_regex(__u64 *m, const char *item, bool on)
{
	regex_t re;
	int hits = 0;

	if (regcomp(&re, item + 1, REG_EXTENDED | REG_NOSUB))
		msg__usage("invalid -e trace: '%s' is not a regular expression", item);
	for (int ia32 = 0; ia32 < 2; ia32++)
		for (int nr = 0; nr < STRACE_NR; nr++) {
			const char *n = syscall__name(nr, ia32);

			if (n && !regexec(&re, n, 0, NULL, 0)) {
				mask_set(m, (ia32 ? STRACE_IA32 : 0) + nr, on);
				hits++;
			}
		}
	regfree(&re);
	if (!hits)
		msg__usage("invalid -e trace: no system call matches '%s'", item);
}

/* Slots of one name or class: both ABIs, by name. */
static void mask_item(__u64 *m, const char *item, bool on)
{
	unsigned int cls;
	int nr;

	if (!strcmp(item, "all")) {
		memset(m, on ? 0xff : 0, sizeof(cfg.mask));
		return;
	}
	if (!strcmp(item, "none")) {
		if (on)
			memset(m, 0, sizeof(cfg.mask));
		return;
	}
	/* strace's legacy class names: trace=file is trace=%file */
	if (item[0] != '%' && sysdecode__class(item) && syscall__nr(item, false) < 0 &&
	    syscall__nr(item, true) < 0) {
		char pct[32];

		snprintf(pct, sizeof(pct), "%%%s", item);
		mask_item(m, pct, on);
		return;
	}
	if (item[0] == '/') {
		mask_regex(m, item, on);
		return;
	}
	for (size_t i = 0; i < sizeof(stat_classes) / sizeof(stat_classes[0]); i++) {
		char names[160], *tok, *save = NULL;

		if (strcmp(item, stat_classes[i].cls))
			continue;
		snprintf(names, sizeof(names), "%s", stat_classes[i].names);
		for (tok = strtok_r(names, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
			mask_name(m, tok, on);
		return;
	}
	if (item[0] == '%') {
		size_t n;
		const struct sysdecode_info *t = sysdecode__table(&n);

		cls = sysdecode__class(item);
		if (!cls)
			msg__usage("invalid system call class '%s' (known: %%file %%desc %%process %%net %%signal %%memory %%ipc %%stat %%lstat %%fstat %%%%stat %%statfs %%fstatfs %%%%statfs)", item);
		for (size_t i = 0; i < n; i++)
			if (t[i].classes & cls)
				mask_name(m, t[i].name, on);
		return;
	}
	if (!strncmp(item, "ia32:", 5)) {
		if ((nr = syscall__nr(item + 5, true)) < 0)
			unknown_syscall(item);
		mask_set(m, STRACE_IA32 + nr, on);
		return;
	}
	if (!mask_name(m, item, on))
		unknown_syscall(item);
}

static void parse_trace(const char *list)
{
	bool neg = *list == '!';
	char *dup, *tok, *save = NULL;

	if (neg)
		list++;
	if (!*list)
		msg__usage("invalid -e trace: empty list");
	if (!cfg.mask_set)	/* the first -e trace= starts from nothing */
		memset(cfg.mask, 0, sizeof(cfg.mask));
	if (neg)		/* trace=!a,b: everything but a and b */
		memset(cfg.mask, 0xff, sizeof(cfg.mask));
	cfg.mask_set = true;
	dup = strdup(list);
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		mask_item(cfg.mask, tok, !neg);
	free(dup);
}

/* -e signal=[!]SIG,...: names with or without SIG, numbers, all, none */
static void parse_signals(const char *list)
{
	bool neg = *list == '!';
	char *dup, *tok, *save = NULL;

	if (neg)
		list++;
	cfg.signals = neg ? ~0ULL : 0;
	dup = strdup(list);
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const char *name = strncasecmp(tok, "SIG", 3) ? tok : tok + 3;
		__u64 bits = 0;
		char *end;
		long n = strtol(tok, &end, 10);

		if (!strcmp(tok, "all"))
			bits = ~0ULL;
		else if (!strcmp(tok, "none"))
			bits = 0;
		else if (!*end && end != tok && n >= 1 && n <= 64)
			bits = 1ULL << (n - 1);
		else {
			for (int sig = 1; sig < 32 && !bits; sig++)
				if (sigabbrev_np(sig) && !strcasecmp(sigabbrev_np(sig), name))
					bits = 1ULL << (sig - 1);
			if (!bits && !strcasecmp(name, "IO"))
				bits = 1ULL << (SIGIO - 1);
			if (!bits)
				msg__usage("invalid signal '%s' in -e signal=", tok);
		}
		if (neg)
			cfg.signals &= ~bits;
		else
			cfg.signals |= bits;
	}
	free(dup);
}

static void parse_expr(const char *e)
{
	const char *eq = strchr(e, '=');

	if (!eq) {
		parse_trace(e);
		return;
	}
	if (!strncmp(e, "trace=", 6) || !strncmp(e, "t=", 2)) {
		parse_trace(eq + 1);
		return;
	}
	if (!strncmp(e, "signal=", 7) || !strncmp(e, "signals=", 8) || !strncmp(e, "s=", 2)) {
		parse_signals(eq + 1);
		return;
	}
	if (!strncmp(e, "status=", 7)) {
		if (!strcmp(eq + 1, "successful"))
			cfg.status = STATUS_SUCCESSFUL;
		else if (!strcmp(eq + 1, "failed"))
			cfg.status = STATUS_FAILED;
		else if (!strcmp(eq + 1, "all"))
			cfg.status = STATUS_ALL;
		else
			msg__usage("invalid -e status: '%s' (successful, failed or all)", eq + 1);
		return;
	}
	msg__usage("invalid -e expression '%s' (trace=..., signal=... or status=...)", e);
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	long long pids[MAX_PIDS];

	switch (key) {
	case 'c':
		cfg.summary_only = true;
		break;
	case 'C':
		cfg.summary = true;
		break;
	case 'S':
		if (!strcmp(arg, "time") || !strcmp(arg, "time_total"))
			cfg.sort = SORT_TIME;
		else if (!strcmp(arg, "calls") || !strcmp(arg, "count"))
			cfg.sort = SORT_CALLS;
		else if (!strcmp(arg, "name") || !strcmp(arg, "syscall"))
			cfg.sort = SORT_NAME;
		else if (!strcmp(arg, "errors"))
			cfg.sort = SORT_ERRORS;
		else if (!strcmp(arg, "nothing"))
			cfg.sort = SORT_NOTHING;
		else
			msg__usage("invalid sort key '%s' (time, calls, name, errors or nothing)", arg);
		break;
	case 'L':
		cfg.hist = true;
		break;
	case 'w':
		cfg.wall = true;
		break;
	case 'f':
		cfg.ff = cfg.follow;	/* the second -f */
		cfg.follow = true;
		break;
	case 'q':
		cfg.quiet++;
		break;
	case 'P':
		if (cfg.npaths >= MAX_PATHS)
			msg__usage("at most %d -P paths", MAX_PATHS);
		cfg.paths[cfg.npaths++] = arg;
		break;
	case 'X':
		if (!strcmp(arg, "raw"))
			sysdecode__style = SYSDECODE_RAW;
		else if (!strcmp(arg, "abbrev"))
			sysdecode__style = SYSDECODE_ABBREV;
		else if (!strcmp(arg, "verbose"))
			sysdecode__style = SYSDECODE_VERBOSE;
		else
			msg__usage("invalid -X format '%s' (raw, abbrev or verbose)", arg);
		break;
	case 'v':
		sysdecode__verbose = true;
		break;
	case OPT_DEBUG:
		env.verbose = true;
		msg_verbose = true;
		break;
	case 'k':
		msg__usage("-k is not supported: a stack at each call needs the process stopped (ptrace)");
		break;
	case 'p': {
		int n = opts__num_list(arg, "PID", 1, INT_MAX, pids, MAX_PIDS - cfg.npids);

		for (int i = 0; i < n; i++) {
			opts__check_pid(pids[i], "PID");
			cfg.pids[cfg.npids++] = pids[i];
		}
		break;
	}
	case 'u':
		cfg.user = arg;
		break;
	case 'e':
		parse_expr(arg);
		break;
	case 'z':
		cfg.status = STATUS_SUCCESSFUL;
		break;
	case 'Z':
		cfg.status = STATUS_FAILED;
		break;
	case 's':
		cfg.strsize = opts__num(arg, "STRSIZE", 0, INT_MAX);
		if (cfg.strsize > STRACE_STR_MAX) {
			/* strace users ask for -s 1024 out of habit: serve what we copy */
			msg__warn("-s %d: strings and buffers are copied up to %d bytes",
				  cfg.strsize, STRACE_STR_MAX);
			cfg.strsize = STRACE_STR_MAX;
		}
		break;
	case 'y':
		cfg.fd_paths = true;
		break;
	case 't':
		cfg.tstamps++;
		break;
	case 'r':
		cfg.relative = true;
		break;
	case 'T':
		cfg.durations = true;
		break;
	case 'o':
		cfg.output = arg;
		break;
	case ARGP_KEY_ARG:
		/* the command and its arguments: the rest of the line */
		cfg.cmd = &state->argv[state->next - 1];
		state->next = state->argc;
		break;
	case ARGP_KEY_END:
		/* -c alone counts every process, as syscount does */
		if (!cfg.cmd && !cfg.npids && !cfg.user && !cfg.summary_only)
			msg__usage("must have a command to run, -p PID or -u USER");
		if (cfg.cmd && cfg.npids)
			msg__usage("a command and -p PID cannot be combined");
		if (cfg.user && !cfg.cmd && cfg.npids)
			msg__usage("-u and -p cannot be combined");
		if (cfg.user) {	/* an unknown user is a usage error */
			uid_t uid;
			gid_t gid;
			const char *name;

			opts__resolve_user(&uid, &gid, &name);
		}
		if (cfg.hist && !cfg.summary_only && !cfg.summary)
			msg__usage("-L needs -c or -C");
		if (serve__spec() && (!cfg.summary_only || cfg.summary || cfg.hist || cfg.output))
			msg__usage("--serve needs -c (and takes no -C, -L or -o)");
		if (!cfg.output)	/* strace: -ff without -o is -f */
			cfg.ff = false;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/*
 * A user from /etc/passwd, by name or number. Read with fgetpwent, not
 * getpwnam: a static binary must not load the NSS modules of another
 * glibc (they crash).
 */
void opts__resolve_user(uid_t *uid, gid_t *gid, const char **name)
{
	static char namebuf[256];
	FILE *f = fopen("/etc/passwd", "re");
	struct passwd *pw;
	char *end;
	long v;

	errno = 0;
	v = strtol(cfg.user, &end, 10);
	if (*end || end == cfg.user || v < 0)
		v = -1;
	while (f && (pw = fgetpwent(f))) {
		if (!strcmp(pw->pw_name, cfg.user) || (v >= 0 && pw->pw_uid == (uid_t)v)) {
			*uid = pw->pw_uid;
			*gid = pw->pw_gid;
			snprintf(namebuf, sizeof(namebuf), "%s", pw->pw_name);
			*name = namebuf;
			fclose(f);
			return;
		}
	}
	if (f)
		fclose(f);
	if (v < 0)
		msg__usage("unknown user '%s'", cfg.user);
	*uid = v;		/* a number without a passwd entry */
	*gid = v;
	*name = NULL;
}

void strace__parse_opts(int argc, char **argv)
{
	/* stop at the command: its options are its own */
	setenv("POSIXLY_CORRECT", "1", 1);
	opts__module(&prom__argp);
	opts__parse_tool(options, parse_arg, "[COMMAND [ARG...]]", doc, 0, argc, argv);
	unsetenv("POSIXLY_CORRECT");
}
