// SPDX-License-Identifier: GPL-2.0
/*
 * strace-lite: trace system calls and signals of a command or of running
 * processes, with strace's interface, from raw_syscalls tracepoints: the
 * filtering, copying and -c counting happen in BPF, so the traced
 * process is never stopped. The user side of bpf/strace.bpf.c.
 */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <stdio_ext.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include "tool.h"
#include "hist.h"
#include "json.h"
#include "loop.h"
#include "syscalls.h"
#include "sysdecode.h"
#include "strace.h"
#include "strace.skel.h"

#define TOOL "strace-lite"
#define MAX_PIDS 64

enum { SORT_TIME, SORT_CALLS, SORT_NAME, SORT_ERRORS, SORT_NOTHING };

static struct {
	bool summary_only;	/* -c */
	bool summary;		/* -C */
	bool hist;		/* -L */
	bool follow;		/* -f */
	int sort;		/* -S */
	pid_t pids[MAX_PIDS];	/* -p */
	int npids;
	const char *user;	/* -u */
	int status;		/* -z, -Z, -e status= */
	int strsize;		/* -s */
	bool fd_paths;		/* -y */
	int tstamps;		/* -t count */
	bool relative;		/* -r */
	bool durations;		/* -T */
	const char *output;	/* -o */
	char **cmd;		/* the command, or NULL */
	__u64 mask[STRACE_SLOTS / 64];
	bool mask_set;
} cfg = { .strsize = 32 };

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
"    strace-lite -c -L cmd               # and a latency histogram per call\n"
"    strace-lite -f -u www-data -e trace=%net  # network calls of a user\n"
"    strace-lite -Z -e trace=openat cmd  # failed openat calls only\n"
"    strace-lite -j -o trace.json cmd    # NDJSON events to a file\n";

static const struct argp_option options[] = {
	{ "summary-only", 'c', NULL, 0, "Count time, calls and errors per syscall; print a summary at the end", 0 },
	{ "summary", 'C', NULL, 0, "Like -c, and trace the calls too", 0 },
	{ "summary-sort-by", 'S', "SORTBY", 0, "Sort the summary by time (default), calls, name, errors or nothing", 0 },
	{ "histogram", 'L', NULL, 0, "With -c/-C: a log2 latency histogram per syscall", 0 },
	{ "summary-wall-clock", 'w', NULL, 0, "Accepted for strace's habit: -c time is always wall time, entry to exit", 0 },
	{ "follow-forks", 'f', NULL, 0, "Trace children and threads as they are created", 0 },
	{ "attach", 'p', "PID[,PID...]", 0, "Attach to these processes (all their threads)", 0 },
	{ "user", 'u', "USER", 0, "Run the command as this user (name or uid); without a command, trace every process of the user", 0 },
	{ "expr", 'e', "EXPR", 0, "trace=[!]NAME|%CLASS,... or status=successful|failed", 0 },
	{ "successful-only", 'z', NULL, 0, "Only calls that succeed", 0 },
	{ "failed-only", 'Z', NULL, 0, "Only calls that fail", 0 },
	{ "string-limit", 's', "STRSIZE", 0, "Bytes of strings and buffers shown (default 32; copies stop at 256)", 0 },
	{ "decode-fds", 'y', NULL, 0, "Print the paths of file descriptors", 0 },
	{ "absolute-timestamps", 't', NULL, 0, "Time of day on each line; -tt with microseconds, -ttt epoch", 0 },
	{ "relative-timestamps", 'r', NULL, 0, "Time since the previous line on each line", 0 },
	{ "syscall-times", 'T', NULL, 0, "Time spent in each call, <seconds>", 0 },
	{ "output", 'o', "FILE", 0, "Write the trace and the summary to FILE", 0 },
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
	if (item[0] == '%') {
		size_t n;
		const struct sysdecode_info *t = sysdecode__table(&n);

		cls = sysdecode__class(item);
		if (!cls)
			msg__usage("invalid system call class '%s' (known: %%file %%desc %%process %%net %%signal %%memory %%ipc)", item);
		for (size_t i = 0; i < n; i++) {
			if (!(t[i].classes & cls))
				continue;
			if ((nr = syscall__nr(t[i].name, false)) >= 0)
				mask_set(m, nr, on);
			if ((nr = syscall__nr(t[i].name, true)) >= 0)
				mask_set(m, STRACE_IA32 + nr, on);
		}
		return;
	}
	if (!strncmp(item, "ia32:", 5)) {
		if ((nr = syscall__nr(item + 5, true)) < 0)
			unknown_syscall(item);
		mask_set(m, STRACE_IA32 + nr, on);
		return;
	}
	nr = syscall__nr(item, false);
	if (nr < 0 && syscall__nr(item, true) < 0)
		unknown_syscall(item);
	if (nr >= 0)
		mask_set(m, nr, on);
	if ((nr = syscall__nr(item, true)) >= 0)
		mask_set(m, STRACE_IA32 + nr, on);
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
	msg__usage("invalid -e expression '%s' (trace=... or status=...)", e);
}

static void resolve_user(uid_t *uid, gid_t *gid, const char **name);

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
	case 'w':	/* what -c measures anyway */
		break;
	case 'f':
		cfg.follow = true;
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
		if (!cfg.cmd && !cfg.npids && !cfg.user)
			msg__usage("must have a command to run, -p PID or -u USER");
		if (cfg.cmd && cfg.npids)
			msg__usage("a command and -p PID cannot be combined");
		if (cfg.user && !cfg.cmd && cfg.npids)
			msg__usage("-u and -p cannot be combined");
		if (cfg.user) {	/* an unknown user is a usage error */
			uid_t uid;
			gid_t gid;
			const char *name;

			resolve_user(&uid, &gid, &name);
		}
		if (cfg.hist && !cfg.summary_only && !cfg.summary)
			msg__usage("-L needs -c or -C");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* ---- output ------------------------------------------------------------- */

/*
 * The trace goes to stderr (line-buffered) or to -o FILE, as strace's; JSON
 * to stdout unless -o. Every line reaches the file in one write(2), so
 * it never splices with what the traced program writes there.
 */
static FILE *out;
#define OUT_BUF 65536

static void emit(const char *p, size_t n)
{
	/* a full buffer flushes what it holds: never half a line */
	if (__fpending(out) + n > OUT_BUF)
		fflush(out);
	fwrite(p, 1, n, out);
}

static void emit_line(struct sbuf *b)
{
	sbuf__putn(b, "\n", 1);
	emit(b->p, b->len);
}
static struct strace_bpf *skel;
static long long mono_to_real_ns;
static __u64 last_ts;
static struct sbuf line, args[6];

struct pending {
	struct pending *next;
	struct strace_enter e;
	size_t size;
};
#define PENDING_BUCKETS 1024
static struct pending *pending[PENDING_BUCKETS];

/* Entries are recycled: a storm of calls does not go through malloc. */
static struct pending *pending_free;

static struct pending *pending_alloc(void)
{
	struct pending *p = pending_free;

	if (p) {
		pending_free = p->next;
		return p;
	}
	return malloc(sizeof(*p));
}

static void pending_release(struct pending *p)
{
	p->next = pending_free;
	pending_free = p;
}

static struct pending **pending_find(__u32 tid)
{
	struct pending **p = &pending[tid % PENDING_BUCKETS];

	while (*p && (*p)->e.h.tid != tid)
		p = &(*p)->next;
	return p;
}

static bool many_tasks(void)
{
	return cfg.follow || cfg.npids > 1 || (cfg.user && !cfg.cmd);
}

static const char *slot_name(char *buf, size_t len, __u32 slot)
{
	const char *n = slot < STRACE_IA32 ? syscall__name(slot, false) : NULL;

	if (n)		/* the common case: no copy */
		return n;
	if (slot >= STRACE_IA32)
		return syscall__format(buf, len, slot - STRACE_IA32, true);
	return syscall__format(buf, len, slot, false);
}

/* The decoder row of each slot, looked up by name once. */
static const struct sysdecode_info *slot_infos[STRACE_SLOTS];

static void slot_infos_init(void)
{
	for (__u32 slot = 0; slot < STRACE_SLOTS; slot++) {
		const char *n = slot >= STRACE_IA32 ? syscall__name(slot - STRACE_IA32, true) :
				syscall__name(slot, false);

		slot_infos[slot] = n ? sysdecode__find(n) : NULL;
	}
}

static const struct sysdecode_info *slot_info(__u32 slot)
{
	return slot < STRACE_SLOTS ? slot_infos[slot] : NULL;
}

static void prefix(struct sbuf *b, __u32 tid, __u64 ts)
{
	long long real = ts + mono_to_real_ns;
	time_t sec = real / 1000000000;
	struct tm tm;

	if (many_tasks())
		sbuf__printf(b, "[pid %d] ", tid);
	if (cfg.tstamps >= 3) {
		sbuf__printf(b, "%lld.%06lld ", real / 1000000000, real % 1000000000 / 1000);
	} else if (cfg.tstamps) {
		localtime_r(&sec, &tm);
		sbuf__printf(b, "%02d:%02d:%02d", tm.tm_hour, tm.tm_min, tm.tm_sec);
		if (cfg.tstamps == 2)
			sbuf__printf(b, ".%06lld", real % 1000000000 / 1000);
		sbuf__printf(b, " ");
	}
	if (cfg.relative) {
		__u64 d = last_ts ? ts - last_ts : 0;

		sbuf__printf(b, "%6llu.%06llu ", d / 1000000000, d % 1000000000 / 1000);
		last_ts = ts;
	}
}

/*
 * -y: the path of each fd a traced process opened, from its open calls,
 * so that a line printed after the process closed it (or exited) still
 * names it. Forgotten at close and at exit.
 */
struct fdent {
	struct fdent *next;
	pid_t tgid;
	int fd;
	char *path;
};
#define FD_BUCKETS 1024
static struct fdent *fds[FD_BUCKETS];

static struct fdent **fd_find(pid_t tgid, int fd)
{
	struct fdent **p = &fds[((unsigned int)tgid * 31 + fd) % FD_BUCKETS];

	while (*p && ((*p)->tgid != tgid || (*p)->fd != fd))
		p = &(*p)->next;
	return p;
}

static void fd_remember(pid_t tgid, int fd, const char *path, size_t len);

static const char *fd_known(pid_t tgid, int fd)
{
	struct fdent *e = *fd_find(tgid, fd);

	if (!e && fd == AT_FDCWD) {
		/* the cwd, kept from its first use until a chdir */
		char path[64], target[PATH_MAX];
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/%d/cwd", tgid);
		n = readlink(path, target, sizeof(target));
		if (n <= 0)
			return NULL;
		fd_remember(tgid, fd, target, n);
		e = *fd_find(tgid, fd);
	}
	return e ? e->path : NULL;
}

static void fd_forget(pid_t tgid, int fd)
{
	struct fdent **p = fd_find(tgid, fd), *e = *p;

	if (e) {
		*p = e->next;
		free(e->path);
		free(e);
	}
}

static void fd_remember(pid_t tgid, int fd, const char *path, size_t len)
{
	struct fdent *e;

	fd_forget(tgid, fd);
	e = calloc(1, sizeof(*e));
	if (!e || !(e->path = strndup(path, len))) {
		free(e);
		return;
	}
	e->tgid = tgid;
	e->fd = fd;
	e->next = fds[((unsigned int)tgid * 31 + fd) % FD_BUCKETS];
	fds[((unsigned int)tgid * 31 + fd) % FD_BUCKETS] = e;
}

static void fd_forget_process(pid_t tgid)
{
	for (int b = 0; b < FD_BUCKETS; b++) {
		for (struct fdent **p = &fds[b]; *p;) {
			struct fdent *e = *p;

			if (e->tgid == tgid) {
				*p = e->next;
				free(e->path);
				free(e);
			} else {
				p = &e->next;
			}
		}
	}
}

/*
 * What a call did to the fd table: opens before the line is printed (so
 * "= 3</path>"), closes after it (so "close(3</path>)").
 */
static void fd_track(const struct strace_enter *e, const struct strace_exit *x, bool before)
{
	const struct sysdecode_info *in = slot_info(e->h.slot);
	const char *name;

	if (!cfg.fd_paths || !in || !x || e->h.slot >= STRACE_IA32 || x->ret < 0)
		return;
	name = in->name;
	if (in->ret == 'f' && before) {
		/* the first path argument copied names the new fd */
		for (int k = 0; k < STRACE_CAPS; k++) {
			int a = e->cap_arg[k];

			if (a < 6 && in->args[a] == 'p' && e->cap_len[k] > 0) {
				fd_remember(e->h.tgid, x->ret, e->cap[k], e->cap_len[k] - 1);
				return;
			}
		}
		if (!strncmp(name, "dup", 3)) {
			const char *p = fd_known(e->h.tgid, e->args[0]);

			if (p)
				fd_remember(e->h.tgid, x->ret, p, strlen(p));
			else	/* a copy of what we do not know: not what it was */
				fd_forget(e->h.tgid, x->ret);
		} else {
			fd_forget(e->h.tgid, x->ret);
		}
	} else if (!strcmp(name, "close") && !before) {
		fd_forget(e->h.tgid, e->args[0]);
	} else if (!strncmp(name, "chdir", 5) || !strcmp(name, "fchdir")) {
		if (!before)
			fd_forget(e->h.tgid, AT_FDCWD);
	}
}

/* Is fd of tgid close-on-exec? ("flags:" of /proc/<tgid>/fdinfo/<fd>, octal) */
static bool fd_cloexec(pid_t tgid, int fd)
{
	char path[96], line[128];
	unsigned long flags = 0;
	bool cloexec = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", tgid, fd);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "flags: %lo", &flags) == 1) {
			cloexec = flags & O_CLOEXEC;
			break;
		}
	}
	if (f)
		fclose(f);
	return cloexec;
}

/* -y: the fds a process has when tracing starts (inherited ones, stdio). */
static void fd_snapshot(pid_t tgid)
{
	char dir[64], path[96], target[PATH_MAX];
	struct dirent *d;
	DIR *dp;
	int fd;

	if (!cfg.fd_paths)
		return;
	fd_known(tgid, AT_FDCWD);	/* its cwd, while it is there to read */
	snprintf(dir, sizeof(dir), "/proc/%d/fd", tgid);
	dp = opendir(dir);
	while (dp && (d = readdir(dp))) {
		ssize_t n;

		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		fd = atoi(d->d_name);
		if (fd_cloexec(tgid, fd))	/* gone at exec */
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", tgid, fd);
		n = readlink(path, target, sizeof(target) - 1);
		if (n > 0)
			fd_remember(tgid, fd, target, n);
	}
	if (dp)
		closedir(dp);
}

/* Decode the arguments of an entry into args[]; returns how many. */
static int decode_args(const struct strace_enter *e, const struct strace_exit *x)
{
	const struct sysdecode_info *in = slot_info(e->h.slot);
	struct sysdecode_opts o = { .strsize = cfg.strsize, .fd_paths = cfg.fd_paths,
				    .tgid = e->h.tgid, .fd_path = fd_known };
	bool ia32 = e->h.slot >= STRACE_IA32;
	int n = in ? (int)strlen(in->args) : 6;

	for (int i = 0; i < n && i < 6; i++) {
		struct sysdecode_cap cap = { 0 };
		char kind = in && !ia32 ? in->args[i] : 'x';

		sbuf__reset(&args[i]);
		for (int k = 0; k < STRACE_CAPS; k++) {
			if (e->cap_arg[k] == i && e->cap_len[k]) {
				cap.valid = true;
				cap.data = e->cap[k];
				cap.len = e->cap_len[k];
				if (kind == 'p' || kind == 's') {
					/* read_user_str counts the NUL */
					if (cap.len > 0)
						cap.len--;
					cap.more = e->cap_len[k] >= STRACE_STR_MAX;
				}
			}
		}
		if ((kind == 'p' || kind == 's') && (!cap.valid || cap.len < 0) && x &&
		    x->cap_str && x->cap_arg == i && x->cap_len > 0) {
			/* copied again at exit */
			cap.valid = true;
			cap.data = x->cap;
			cap.len = x->cap_len - 1;
			cap.more = x->cap_len >= STRACE_STR_MAX;
		}
		if ((kind == 'r' || kind == 'R') && x && x->cap_len && !x->cap_str) {
			cap.valid = true;
			cap.data = x->cap;
			cap.len = x->cap_len;
			cap.more = x->ret > x->cap_len;
		}
		if (!cfg.strsize && e->args[i] &&
		    ((kind == 'w' && i < 5 && e->args[i + 1]) || (kind == 'r' && x && x->ret > 0))) {
			/* -s 0: nothing copied, and strace shows ""... */
			sbuf__reset(&args[i]);
			sbuf__printf(&args[i], "\"\"...");
			continue;
		}
		if ((kind == 'r' || kind == 'R') && !cap.valid) {
			/* nothing was read (error or 0 bytes): the address */
			kind = 'x';
			if (x && x->ret == 0)
				kind = 'E';
		}
		if (kind == 'v') {
			for (int k = 0; k < STRACE_CAPS; k++)
				if (e->cap_arg[k] == (STRACE_ARGV_ARG | i))
					kind = 'V', cap.data = e->cap[k], cap.len = e->cap_len[k];
		}
		/* open's mode only matters with O_CREAT or O_TMPFILE, strace omits it */
		if (kind == 'm' && i > 0 && in && in->args[i - 1] == 'o' &&
		    !(e->args[i - 1] & (O_CREAT | 020000000))) {
			n = i;
			break;
		}
		if (kind == 'V') {
			sbuf__printf(&args[i], "[");
			for (int a = 0; a < (cap.len & 0xff) && a < STRACE_ARGV; a++) {
				const char *s = cap.data + a * STRACE_ARGV_LEN;
				size_t l = strnlen(s, STRACE_ARGV_LEN);

				if (a)
					sbuf__printf(&args[i], ", ");
				sysdecode__quote(&args[i], s, l, cfg.strsize, l >= STRACE_ARGV_LEN - 1);
			}
			if (cap.len & STRACE_ARGV_MORE)
				sbuf__printf(&args[i], ", ...");
			sbuf__printf(&args[i], "]");
		} else if (kind == 'E')
			sbuf__printf(&args[i], "\"\"");
		else
			sysdecode__arg(&args[i], &o, kind, e->args[i], cap.valid ? &cap : NULL,
				       i < 5 ? e->args[i + 1] : 0);
	}
	return n;
}

static void emit_json(const struct strace_enter *e, int nargs, const struct strace_exit *x,
		      bool unfinished, __u64 ts)
{
	struct json j;
	char name[64], err[32];

	json__begin(&j, out);
	json__str(&j, "type", "syscall");
	json__fixed(&j, "timestamp", (ts + mono_to_real_ns) / 1e9, 6);
	json__uint(&j, "pid", e->h.tgid);
	json__uint(&j, "tid", e->h.tid);
	json__str(&j, "syscall", slot_name(name, sizeof(name), e->h.slot));
	json__arr(&j, "args");
	for (int i = 0; i < nargs; i++)
		json__strn(&j, NULL, args[i].p ? args[i].p : "", args[i].len);
	json__arr_end(&j);
	if (x) {
		json__int(&j, "ret", x->ret);
		if (x->ret < 0 && x->ret >= -4095)
			json__str(&j, "error", sysdecode__errname(-x->ret, err, sizeof(err)));
		json__fixed(&j, "duration", (x->h.ts - e->h.ts) / 1e9, 6);
	} else if (unfinished) {
		json__bool(&j, "unfinished", true);
	} else {
		json__null(&j, "ret");
	}
	json__end(&j);
}

/* Did the user ask for this slot? (-y traces fd calls it does not show) */
static bool shown(__u32 slot)
{
	return slot < STRACE_SLOTS && (cfg.mask[slot / 64] & (1ULL << (slot % 64)));
}

/* One line: the entry e, and its exit x (NULL: did not return or not yet). */
static void print_call(const struct strace_enter *e, const struct strace_exit *x, bool unfinished)
{
	const struct sysdecode_info *in = slot_info(e->h.slot);
	struct sysdecode_opts o = { .strsize = cfg.strsize, .fd_paths = cfg.fd_paths,
				    .tgid = e->h.tgid, .fd_path = fd_known };
	char name[64];
	int n;

	if (!shown(e->h.slot))
		return;
	n = decode_args(e, x);
	if (env.json) {
		emit_json(e, n, x, unfinished, e->h.ts);
		return;
	}
	sbuf__reset(&line);
	prefix(&line, e->h.tid, e->h.ts);
	const char *sname = slot_name(name, sizeof(name), e->h.slot);

	sbuf__putn(&line, sname, strlen(sname));
	sbuf__putn(&line, "(", 1);
	for (int i = 0; i < n; i++) {
		if (i)
			sbuf__putn(&line, ", ", 2);
		sbuf__putn(&line, args[i].p ? args[i].p : "", args[i].len);
	}
	if (unfinished) {
		sbuf__printf(&line, " <unfinished ...>");
	} else {
		sbuf__putn(&line, ")", 1);
		/* strace puts " = " at column 40 (its -a 40) */
		sbuf__pad(&line, 39);
		if (x)
			sysdecode__ret(&line, &o, in && e->h.slot < STRACE_IA32 ? in->ret : 'd', x->ret);
		else
			sysdecode__ret(&line, &o, 'n', 0);
		if (x && cfg.durations) {
			__u64 d = x->h.ts - e->h.ts;

			sbuf__printf(&line, " <%llu.%06llu>", d / 1000000000, d % 1000000000 / 1000);
		}
	}
	emit_line(&line);
}

static bool status_wanted(long long ret)
{
	bool failed = ret < 0 && ret >= -4095;

	return cfg.status == STATUS_ALL || (cfg.status == STATUS_FAILED) == failed;
}

static void on_enter(const struct strace_enter *e, size_t size)
{
	const struct sysdecode_info *in = slot_info(e->h.slot);
	struct pending **pp = pending_find(e->h.tid), *p = *pp;

	if (p) {	/* the previous call never returned to us */
		if (cfg.status == STATUS_ALL)
			print_call(&p->e, NULL, true);
		*pp = p->next;
		pending_release(p);
	}
	if (in && in->ret == 'n' && e->h.slot < STRACE_IA32) {
		/* exit, exit_group: no return to wait for */
		if (cfg.status == STATUS_ALL)	/* neither failed nor successful */
			print_call(e, NULL, false);
		return;
	}
	p = pending_alloc();
	if (!p)
		return;
	/* copy what came: a small event has no string copies */
	memcpy(&p->e, e, size < sizeof(p->e) ? size : sizeof(p->e));
	if (size < sizeof(p->e))
		p->e.cap_len[0] = p->e.cap_len[1] = 0;
	p->next = pending[e->h.tid % PENDING_BUCKETS];
	pending[e->h.tid % PENDING_BUCKETS] = p;
}

static void on_exit_event(const struct strace_exit *x)
{
	struct pending **pp = pending_find(x->h.tid), *p = *pp;
	char name[64], err[32];

	if (p && p->e.h.slot == x->h.slot) {
		*pp = p->next;
		fd_track(&p->e, x, true);
		if (status_wanted(x->ret))
			print_call(&p->e, x, false);
		fd_track(&p->e, x, false);
		pending_release(p);
		return;
	}
	/* the entry was lost: say what we know */
	if (!status_wanted(x->ret) || !shown(x->h.slot))
		return;
	if (env.json) {
		struct json j;

		json__begin(&j, out);
		json__str(&j, "type", "syscall");
		json__uint(&j, "pid", x->h.tgid);
		json__uint(&j, "tid", x->h.tid);
		json__str(&j, "syscall", slot_name(name, sizeof(name), x->h.slot));
		json__bool(&j, "resumed", true);
		json__int(&j, "ret", x->ret);
		if (x->ret < 0 && x->ret >= -4095)
			json__str(&j, "error", sysdecode__errname(-x->ret, err, sizeof(err)));
		json__end(&j);
		return;
	}
	sbuf__reset(&line);
	prefix(&line, x->h.tid, x->h.ts);
	sbuf__printf(&line, "<... %s resumed>)", slot_name(name, sizeof(name), x->h.slot));
	sysdecode__ret(&line, &(struct sysdecode_opts){ .strsize = cfg.strsize }, 'd', x->ret);
	emit_line(&line);
}

/* A whole call in one event (nothing was copied at its entry). */
static void on_call(const struct strace_exit *x)
{
	struct pending **pp = pending_find(x->h.tid), *p = *pp;
	struct strace_enter e;

	if (p) {	/* an earlier call never returned to us */
		if (cfg.status == STATUS_ALL)
			print_call(&p->e, NULL, true);
		*pp = p->next;
		pending_release(p);
	}
	memset(&e, 0, STRACE_ENTER_SMALL);
	e.h = x->h;
	e.h.type = EV_ENTER;
	e.h.ts = x->enter_ts;
	memcpy(e.args, x->args, sizeof(e.args));
	e.cap_arg[0] = e.cap_arg[1] = 0xff;
	fd_track(&e, x, true);
	if (status_wanted(x->ret))
		print_call(&e, x, false);
	fd_track(&e, x, false);
}

static void on_proc_exit(const struct strace_proc_exit *x)
{
	struct pending **pp = pending_find(x->h.tid), *p = *pp;
	int code = x->exit_code;

	if (p) {
		if (cfg.status == STATUS_ALL)
			print_call(&p->e, NULL, false);
		*pp = p->next;
		pending_release(p);
	}
	if (x->h.tid == x->h.tgid)
		fd_forget_process(x->h.tgid);
	if (env.json) {
		struct json j;

		json__begin(&j, out);
		json__str(&j, "type", "exit");
		json__uint(&j, "pid", x->h.tgid);
		json__uint(&j, "tid", x->h.tid);
		if (code & 0x7f) {
			json__str(&j, "signal", sigabbrev_np(code & 0x7f) ? sigabbrev_np(code & 0x7f) : "?");
			json__bool(&j, "core_dumped", code & 0x80);
		} else {
			json__int(&j, "status", (code >> 8) & 0xff);
		}
		json__end(&j);
		return;
	}
	sbuf__reset(&line);
	prefix(&line, x->h.tid, x->h.ts);
	if (code & 0x7f) {
		const char *s = sigabbrev_np(code & 0x7f);

		sbuf__printf(&line, "+++ killed by SIG%s %s+++", s ? s : "?",
			     code & 0x80 ? "(core dumped) " : "");
	} else {
		sbuf__printf(&line, "+++ exited with %d +++", (code >> 8) & 0xff);
	}
	emit_line(&line);
}

/* strace's si_code names: generic ones, and SIGCHLD's own. */
static const char *si_code_name(int signo, int code, char *buf, size_t len)
{
	static const char *chld[] = { NULL, "CLD_EXITED", "CLD_KILLED", "CLD_DUMPED",
				      "CLD_TRAPPED", "CLD_STOPPED", "CLD_CONTINUED" };

	switch (code) {
	case 0: return "SI_USER";
	case 0x80: return "SI_KERNEL";
	case -1: return "SI_QUEUE";
	case -2: return "SI_TIMER";
	case -3: return "SI_MESGQ";
	case -4: return "SI_ASYNCIO";
	case -6: return "SI_TKILL";
	}
	if (signo == SIGCHLD && code > 0 && code <= 6)
		return chld[code];
	snprintf(buf, len, "%d", code);
	return buf;
}

static void on_signal(const struct strace_signal *x)
{
	const char *abbrev = sigabbrev_np(x->signo);
	char sig[32], code[16];
	const char *c = si_code_name(x->signo, x->code, code, sizeof(code));
	bool has_pid = x->code == 0 || x->code == -1 || x->code == -6 || x->signo == SIGCHLD;

	if (abbrev)
		snprintf(sig, sizeof(sig), "SIG%s", abbrev);
	else
		snprintf(sig, sizeof(sig), "%d", x->signo);
	if (env.json) {
		struct json j;

		json__begin(&j, out);
		json__str(&j, "type", "signal");
		json__fixed(&j, "timestamp", (x->h.ts + mono_to_real_ns) / 1e9, 6);
		json__uint(&j, "pid", x->h.tgid);
		json__uint(&j, "tid", x->h.tid);
		json__str(&j, "signal", sig);
		json__str(&j, "si_code", c);
		if (has_pid) {
			json__int(&j, "si_pid", x->pid);
			json__uint(&j, "si_uid", x->uid);
		}
		json__end(&j);
		return;
	}
	sbuf__reset(&line);
	prefix(&line, x->h.tid, x->h.ts);
	sbuf__printf(&line, "--- %s {si_signo=%s, si_code=%s", sig, sig, c);
	if (has_pid)
		sbuf__printf(&line, ", si_pid=%d, si_uid=%u", x->pid, x->uid);
	if (x->signo == SIGCHLD && x->code > 0)
		sbuf__printf(&line, ", si_status=%d", x->status);
	sbuf__printf(&line, "} ---");
	emit_line(&line);
}

static int handle_event(void *ctx, void *data, size_t size)
{
	const struct strace_hdr *h = data;

	(void)ctx;
	if (size < sizeof(*h))
		return 0;
	switch (h->type) {
	case EV_ENTER:
		if (size >= STRACE_ENTER_SMALL && h->slot < STRACE_SLOTS)
			on_enter(data, size);
		break;
	case EV_EXIT:
		if (size >= STRACE_EXIT_SMALL && h->slot < STRACE_SLOTS)
			on_exit_event(data);
		break;
	case EV_CALL:
		if (size >= STRACE_EXIT_SMALL && h->slot < STRACE_SLOTS)
			on_call(data);
		break;
	case EV_SIGNAL:
		if (size >= sizeof(struct strace_signal))
			on_signal(data);
		break;
	case EV_PROC_EXIT:
		if (size >= sizeof(struct strace_proc_exit))
			on_proc_exit(data);
		break;
	}
	return 0;
}

/* ---- summary -------------------------------------------------------------- */

struct row {
	char name[48];
	__u64 calls, errors, ns;
	struct hist h;
};

static int cmp_rows(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	switch (cfg.sort) {
	case SORT_CALLS:
		if (x->calls != y->calls)
			return x->calls < y->calls ? 1 : -1;
		break;
	case SORT_ERRORS:
		if (x->errors != y->errors)
			return x->errors < y->errors ? 1 : -1;
		break;
	case SORT_NAME:
		return strcmp(x->name, y->name);
	case SORT_NOTHING:
		return 0;
	default:
		if (x->ns != y->ns)
			return x->ns < y->ns ? 1 : -1;
	}
	return strcmp(x->name, y->name);
}

static int print_summary(void)
{
	int ncpu = libbpf_num_possible_cpus();
	struct strace_stat *st = calloc(ncpu, sizeof(*st));
	struct strace_hist *hs = calloc(ncpu, sizeof(*hs));
	struct row *rows = calloc(STRACE_SLOTS, sizeof(*rows));
	__u64 calls = 0, errors = 0, ns = 0;
	int n = 0;

	if (!st || !hs || !rows)
		return -ENOMEM;
	for (__u32 slot = 0; slot < STRACE_SLOTS; slot++) {
		struct row *r = &rows[n];

		if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.stats), &slot, st))
			continue;
		memset(r, 0, sizeof(*r));
		for (int c = 0; c < ncpu; c++) {
			r->calls += st[c].calls;
			r->errors += st[c].errors;
			r->ns += st[c].ns;
		}
		if (!r->calls)
			continue;
		if (cfg.hist && !bpf_map_lookup_elem(bpf_map__fd(skel->maps.hists), &slot, hs)) {
			for (int c = 0; c < ncpu; c++)
				for (int i = 0; i < STRACE_HIST_SLOTS && i < HIST_SLOTS; i++)
					r->h.slots[i] += hs[c].slots[i];
			r->h.count = r->calls;
			r->h.sum_ns = r->ns;
		}
		{
			char tmp[sizeof(r->name)];

			snprintf(r->name, sizeof(r->name), "%s", slot_name(tmp, sizeof(tmp), slot));
		}
		calls += r->calls;
		errors += r->errors;
		ns += r->ns;
		n++;
	}
	qsort(rows, n, sizeof(*rows), cmp_rows);

	if (env.json) {
		struct json j;

		json__begin(&j, out);
		json__str(&j, "type", "summary");
		json__arr(&j, "syscalls");
		for (int i = 0; i < n; i++) {
			json__obj(&j, NULL);
			json__str(&j, "syscall", rows[i].name);
			json__uint(&j, "calls", rows[i].calls);
			json__uint(&j, "errors", rows[i].errors);
			json__fixed(&j, "seconds", rows[i].ns / 1e9, 6);
			json__uint(&j, "usecs_per_call", rows[i].ns / 1000 / rows[i].calls);
			json__fixed(&j, "percent_time", ns ? 100.0 * rows[i].ns / ns : 0, 2);
			if (cfg.hist) {
				json__obj(&j, "histogram");
				hist__json_log2(&j, &rows[i].h, "usecs", 1e3);
				json__obj_end(&j);
			}
			json__obj_end(&j);
		}
		json__arr_end(&j);
		json__obj(&j, "total");
		json__uint(&j, "calls", calls);
		json__uint(&j, "errors", errors);
		json__fixed(&j, "seconds", ns / 1e9, 6);
		json__obj_end(&j);
		json__end(&j);
	} else {
		const char *dash = "------ ----------- ----------- --------- --------- ----------------\n";

		fprintf(out, "%% time     seconds  usecs/call     calls    errors syscall\n%s", dash);
		for (int i = 0; i < n; i++)
			fprintf(out, "%6.2f %11.6f %11llu %9llu %9.llu %s\n",
				ns ? 100.0 * rows[i].ns / ns : 0.0, rows[i].ns / 1e9,
				(unsigned long long)(rows[i].ns / 1000 / rows[i].calls),
				(unsigned long long)rows[i].calls, (unsigned long long)rows[i].errors,
				rows[i].name);
		fprintf(out, "%s%6.2f %11.6f %11llu %9llu %9.llu total\n", dash, 100.0, ns / 1e9,
			(unsigned long long)(calls ? ns / 1000 / calls : 0),
			(unsigned long long)calls, (unsigned long long)errors);
		if (cfg.hist) {
			for (int i = 0; i < n; i++) {
				fprintf(out, "\nsyscall = %s\n", rows[i].name);
				hist__print_log2(out, rows[i].h.slots, HIST_SLOTS, "usecs");
			}
		}
	}
	fflush(out);
	free(st);
	free(hs);
	free(rows);
	return 0;
}

/* ---- targets -------------------------------------------------------------- */

static pid_t child = -1;
static int child_status = -1;
static struct ring_buffer *rb;

static int trace_tid(pid_t tid, __u32 flags)
{
	struct strace_task t = { .slot = STRACE_SLOT_NONE, .flags = flags };

	return bpf_map_update_elem(bpf_map__fd(skel->maps.traced), &tid, &t, BPF_ANY);
}

/*
 * A thread's start time in clock ticks (field 22 of /proc/TID/stat), 0
 * when it is gone or a zombie. /proc/TID works for any thread.
 */
static unsigned long long task_start(pid_t tid)
{
	char path[64], buf[512], *p, state;
	unsigned long long start;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	/* after the comm, which may hold spaces and parentheses */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
			 "%*d %*d %*d %*d %llu", &state, &start) != 2)
		return 0;
	if (state == 'Z' || state == 'X')
		return 0;
	return start ? start : 1;	/* 1 tick apart from the first: never 0 */
}

/*
 * -p: every thread of the process. A thread that exits between the
 * listing and its entry in the traced set would stay there for good: its
 * exit, the only thing that removes it, has happened. So each entry
 * carries the start time listed; BPF checks it at the thread's first
 * call (a new task with that tid is not traced), and prune_traced()
 * drops the entries of threads that are gone before making one. The
 * listing is read again until it has nothing new, for threads created
 * meanwhile by threads not yet traced.
 */
static int attach_pid(pid_t pid)
{
	int fd = bpf_map__fd(skel->maps.traced), n = 0, fresh;
	char path[64];
	struct dirent *d;
	DIR *dir;

	fd_snapshot(pid);
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	for (int round = 0; round < 10; round++) {
		fresh = 0;
		dir = opendir(path);
		if (!dir)
			break;
		while ((d = readdir(dir))) {
			struct strace_task t = { .slot = STRACE_SLOT_NONE };
			pid_t tid;

			if (d->d_name[0] < '0' || d->d_name[0] > '9')
				continue;
			tid = atoi(d->d_name);
			if (!bpf_map_lookup_elem(fd, &tid, &t))
				continue;	/* traced already */
			t.start_ticks = task_start(tid);
			if (!t.start_ticks)
				continue;
			if (bpf_map_update_elem(fd, &tid, &t, BPF_NOEXIST) && errno != EEXIST) {
				int err = -errno;

				closedir(dir);
				return err;
			}
			fresh++;
		}
		closedir(dir);
		n += fresh;
		if (!fresh)
			break;
	}
	return n ? 0 : -ESRCH;
}

/* -p: drop the entries of listed threads that ended before their first call. */
static void prune_traced(void)
{
	int fd = bpf_map__fd(skel->maps.traced);
	__u32 key, next, *prev = NULL;
	struct strace_task t;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		if (!bpf_map_lookup_elem(fd, &next, &t) && t.start_ticks &&
		    task_start(next) != t.start_ticks) {
			bpf_map_delete_elem(fd, &next);
			continue;	/* from the same key: deleted ones are skipped */
		}
		key = next;
		prev = &key;
	}
}

/*
 * Command mode: the child waits on a pipe until the tool has attached and
 * put it in the traced set, then execs; a failed exec reports its errno
 * through a close-on-exec pipe.
 */
static int go_pipe[2] = { -1, -1 }, err_pipe[2] = { -1, -1 };

/*
 * A user from /etc/passwd, by name or number. Read with fgetpwent, not
 * getpwnam: a static binary must not load the NSS modules of another
 * glibc (they crash).
 */
static void resolve_user(uid_t *uid, gid_t *gid, const char **name)
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

/* Supplementary groups of user name from /etc/group (as initgroups does). */
static int set_groups(const char *name, gid_t gid)
{
	gid_t groups[256];
	int n = 0;
	FILE *f;
	struct group *g;

	groups[n++] = gid;
	f = name ? fopen("/etc/group", "re") : NULL;
	while (f && (g = fgetgrent(f)) && n < 256) {
		for (char **m = g->gr_mem; m && *m; m++) {
			if (!strcmp(*m, name) && g->gr_gid != gid) {
				groups[n++] = g->gr_gid;
				break;
			}
		}
	}
	if (f)
		fclose(f);
	return setgroups(n, groups);
}

/*
 * The command's file, found in PATH before it starts, as strace does: its
 * trace begins at the one execve of that file.
 */
static char cmd_path[PATH_MAX];

static int resolve_cmd(void)
{
	const char *name = cfg.cmd[0], *path = getenv("PATH");
	struct stat st;
	int err = ENOENT;

	if (strchr(name, '/')) {
		if (snprintf(cmd_path, sizeof(cmd_path), "%s", name) >= (int)sizeof(cmd_path))
			return errno = ENAMETOOLONG, -1;
		return stat(cmd_path, &st) ? -1 : 0;
	}
	if (!path)
		path = "/bin:/usr/bin";
	while (*path) {
		const char *end = strchrnul(path, ':');
		int len = end - path;

		/* an empty entry is the current directory */
		if (snprintf(cmd_path, sizeof(cmd_path), "%.*s%s%s", len, path, len ? "/" : "",
			     name) < (int)sizeof(cmd_path) &&
		    !stat(cmd_path, &st) && S_ISREG(st.st_mode)) {
			if (!access(cmd_path, X_OK))
				return 0;
			err = EACCES;
		}
		path = *end ? end + 1 : end;
	}
	errno = err;
	return -1;
}

static int start_child(void)
{
	uid_t uid = 0;
	gid_t gid = 0;
	const char *uname = NULL;

	if (cfg.user)
		resolve_user(&uid, &gid, &uname);
	if (pipe(go_pipe) || pipe2(err_pipe, O_CLOEXEC))
		return -errno;
	fflush(NULL);
	child = fork();
	if (child < 0)
		return -errno;
	if (child == 0) {
		char c;
		int e;

		close(go_pipe[1]);
		close(err_pipe[0]);
		while (read(go_pipe[0], &c, 1) < 0 && errno == EINTR)
			;
		close(go_pipe[0]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		if (cfg.user) {
			if (set_groups(uname, gid) || setgid(gid) || setuid(uid))
				goto fail;
		}
		signal(SIGHUP, SIG_DFL);
		/* the path resolve_cmd() found: no PATH search to trace */
		execv(cmd_path, cfg.cmd);
fail:
		e = errno;
		if (write(err_pipe[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go_pipe[0]);
	close(err_pipe[1]);
	return 0;
}

/*
 * SIGINT, SIGTERM, SIGHUP: stop, and pass the signal on to a command we
 * started (strace kills the tracees it started).
 */
static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
	stop_signal = sig;
	loop_exiting = 1;
}

static void stop_signals(void)
{
	struct sigaction sa = { .sa_handler = on_stop_signal };

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static void stop_child(int sig)
{
	long long end = loop__now_ms() + 1000;

	if (child <= 0 || child_status >= 0)
		return;
	kill(child, sig);
	/* its "+++ killed by" line; a command that ignores sig is left be */
	while (loop__now_ms() < end) {
		if (waitpid(child, &child_status, WNOHANG) == child)
			break;
		child_status = -1;
		ring_buffer__consume(rb);
		usleep(10000);
	}
	ring_buffer__consume(rb);
}

/* Release the child; 0 when its exec went through. */
static int release_child(void)
{
	int e = 0;
	ssize_t n;

	if (trace_tid(child, TASK_WAIT_EXEC))
		return -errno;
	/* what it inherits from us, less the go pipe it closes before exec */
	fd_snapshot(child);
	fd_forget(child, go_pipe[0]);
	if (write(go_pipe[1], "g", 1) != 1)
		return -errno;
	close(go_pipe[1]);
	do {
		n = read(err_pipe[0], &e, sizeof(e));
	} while (n < 0 && errno == EINTR);
	close(err_pipe[0]);
	if (n == sizeof(e)) {
		msg__fail(e, "run '%s'", cfg.cmd[0]);
		waitpid(child, NULL, 0);
		child = -1;
		return -e;
	}
	return 0;
}

/* Done when no traced thread is left (and the child is reaped). */
static bool targets_gone(void *ctx)
{
	__u32 key;

	static long long last, last_prune;
	long long now = loop__now_ms();

	(void)ctx;
	if (cfg.user && !cfg.cmd)	/* -u USER: until Ctrl-C */
		return false;
	/* called after every poll: look at most every 20 ms */
	if (now - last < 20)
		return false;
	last = now;
	if (child > 0 && child_status < 0) {
		int st;

		if (waitpid(child, &st, WNOHANG) == child)
			child_status = st;
	}
	if (cfg.npids && now - last_prune >= 200) {
		last_prune = now;
		prune_traced();
	}
	return bpf_map_get_next_key(bpf_map__fd(skel->maps.traced), NULL, &key) != 0;
}

static int tick(void *ctx)
{
	(void)ctx;
	/* the BPF side wakes us only past a backlog: drain on time too */
	int err = ring_buffer__consume(rb);

	return err < 0 && err != -EINTR ? err : 0;
}

static void report_lost(void)
{
	__u32 key, next, *prev = NULL;
	__u64 v;
	int fd = bpf_map__fd(skel->maps.lost);

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		if (!bpf_map_lookup_elem(fd, &next, &v) && v)
			msg__warn("pid %u: %llu events lost", next, (unsigned long long)v);
		key = next;
		prev = &key;
	}
}

static void set_rodata(void)
{
	size_t n;
	const struct sysdecode_info *t = sysdecode__table(&n);
	int nr;

	skel->rodata->cfg_trace = !cfg.summary_only;
	skel->rodata->cfg_summary = cfg.summary_only || cfg.summary;
	skel->rodata->cfg_hist = cfg.hist;
	skel->rodata->cfg_follow = cfg.follow;
	if (cfg.user && !cfg.cmd) {	/* every task of the user */
		uid_t uid;
		gid_t gid;
		const char *name;

		resolve_user(&uid, &gid, &name);
		skel->rodata->cfg_uid = uid;
	}
	skel->rodata->cfg_status = cfg.status;
	skel->rodata->cfg_strsize = cfg.strsize;
	if (!cfg.mask_set)
		memset(cfg.mask, 0xff, sizeof(cfg.mask));
	memcpy((void *)skel->rodata->cfg_mask, cfg.mask, sizeof(cfg.mask));
	if (cfg.fd_paths && !skel->rodata->cfg_summary) {
		/*
		 * -y: follow opens, dups and closes even when -e trace= leaves
		 * them out, so that fds are named from the calls, not from /proc
		 * when the line is printed (by then the fd may be another file).
		 */
		__u64 *m = (__u64 *)skel->rodata->cfg_mask;

		for (size_t i = 0; i < n; i++) {
			if (t[i].ret != 'f' && strcmp(t[i].name, "close") &&
			    strcmp(t[i].name, "chdir") && strcmp(t[i].name, "fchdir"))
				continue;
			nr = syscall__nr(t[i].name, false);
			if (nr >= 0)
				m[nr / 64] |= 1ULL << (nr % 64);
		}
	}
	for (size_t i = 0; i < n; i++) {
		nr = syscall__nr(t[i].name, false);
		if (nr >= 0)
			skel->rodata->cfg_capture[nr] = sysdecode__capture_mask(&t[i]);
	}
	const char *execs[4][2] = { { "execve", "" }, { "execveat", "" },
				    { "execve", "ia32" }, { "execveat", "ia32" } };
	const char *noret[4][2] = { { "exit", "" }, { "exit_group", "" },
				    { "exit", "ia32" }, { "exit_group", "ia32" } };
	for (int i = 0; i < 4; i++) {
		nr = syscall__nr(execs[i][0], *execs[i][1]);
		((__u32 *)skel->rodata->cfg_exec_slots)[i] =
			nr < 0 ? STRACE_SLOT_NONE : (__u32)((*execs[i][1] ? STRACE_IA32 : 0) + nr);
		nr = syscall__nr(noret[i][0], *noret[i][1]);
		((__u32 *)skel->rodata->cfg_noreturn_slots)[i] =
			nr < 0 ? STRACE_SLOT_NONE : (__u32)((*noret[i][1] ? STRACE_IA32 : 0) + nr);
	}
}

int main(int argc, char **argv)
{
	struct timespec rt, mt;
	int err = 0, rc = EXIT_OK;

	msg__init(TOOL);
	/* stop at the command: its options are its own */
	setenv("POSIXLY_CORRECT", "1", 1);
	opts__parse_tool(options, parse_arg, "[COMMAND [ARG...]]", doc,
			 0,
			 argc, argv);
	unsetenv("POSIXLY_CORRECT");

	slot_infos_init();
	if (cfg.cmd && resolve_cmd()) {
		msg__fail(-errno, "run '%s'", cfg.cmd[0]);
		return EXIT_FAIL;
	}
	if (cfg.output) {
		out = fopen(cfg.output, "we");	/* close-on-exec: not the command's */
		if (!out) {
			msg__fail(-errno, "open output file '%s'", cfg.output);
			return EXIT_FAIL;
		}
		setvbuf(out, NULL, _IOFBF, OUT_BUF);
	} else if (env.json) {
		out = stdout;
	} else {
		out = stderr;
		setvbuf(out, NULL, _IOLBF, OUT_BUF);
	}
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mt);
	mono_to_real_ns = (rt.tv_sec - mt.tv_sec) * 1000000000LL + (rt.tv_nsec - mt.tv_nsec);

	skel = TOOL_OPEN(strace_bpf);
	if (!skel)
		return EXIT_FAIL;
	set_rodata();
	/* maps of features that are off: one entry, one page */
	if (!skel->rodata->cfg_summary)
		bpf_map__set_max_entries(skel->maps.stats, 1);
	if (!cfg.hist)
		bpf_map__set_max_entries(skel->maps.hists, 1);
	if (!skel->rodata->cfg_trace)
		bpf_map__set_max_entries(skel->maps.events, getpagesize());

	err = tool__load_attach(skel->skeleton);
	if (err)
		goto out;
	rb = tool__ringbuf(skel->maps.events, handle_event, NULL);
	if (!rb) {
		err = -errno;
		goto out;
	}

	loop__signals();
	stop_signals();
	if (cfg.cmd) {
		err = start_child();
		if (err) {
			msg__fail(err, "start '%s'", cfg.cmd[0]);
			goto out;
		}
	} else {
		for (int i = 0; i < cfg.npids; i++) {
			err = attach_pid(cfg.pids[i]);
			if (err) {
				msg__fail(err, "attach to process %d", cfg.pids[i]);
				goto out;
			}
		}
	}
	/* strace says nothing before a command's trace, nor into a file */
	if (!cfg.cmd && !cfg.output)
		tool__tracing("system calls");
	if (cfg.cmd) {
		err = release_child();
		if (err)
			goto out;
	}
	err = loop__ringbuf(rb, 0, 50, targets_gone, tick, NULL);
	if (stop_signal)
		stop_child(stop_signal);
	/* a last look: events of the final exits */
	ring_buffer__consume(rb);
	fflush(out);
	if (!err && (cfg.summary_only || cfg.summary))
		err = print_summary();
	report_lost();
	loss__report(&skel->bss->loss, env.json && out == stdout);
	if (env.json && out != stdout && loss__total(&skel->bss->loss)) {
		/* -o: the record belongs with the events it is about */
		struct json j;

		json__begin(&j, out);
		json__str(&j, "type", "loss");
		json__uint(&j, "lost_events", skel->bss->loss.events);
		json__uint(&j, "map_full", skel->bss->loss.map_full);
		json__end(&j);
	}
	if (child > 0) {
		if (child_status < 0 && !stop_signal)
			waitpid(child, &child_status, 0);
		if (child_status >= 0)
			rc = WIFEXITED(child_status) ? WEXITSTATUS(child_status) :
			     128 + WTERMSIG(child_status);
	}
out:
	ring_buffer__free(rb);
	strace_bpf__destroy(skel);
	if (out && out != stdout)
		fclose(out);
	if (err)
		return EXIT_FAIL;
	return rc;
}
