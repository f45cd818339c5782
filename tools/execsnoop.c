// SPDX-License-Identifier: GPL-2.0
/*
 * execsnoop-lite: trace exec() system calls, with their full argv.
 * The user side of bpf/execsnoop.bpf.c: joins the ENTER, EXEC and EXIT
 * records of each exec by thread ID and prints one line per exec.
 */
#include <ctype.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "load/tool.h"
#include "out/esc.h"
#include "out/json.h"
#include "run/loop.h"
#include "run/timefmt.h"
#include "execsnoop.h"
#include "execsnoop.skel.h"

#define TOOL "execsnoop-lite"

static struct {
	bool failed;		/* -x */
	bool rel_time;		/* -t */
	bool quote;		/* -q */
	bool print_uid;		/* -U */
	bool filter_uid;
	__u32 uid;
	regex_t name, line;
	bool has_name, has_line;
	int max_args;
	int max_arg_len;
	int buffer_pages;	/* hidden: tests shrink the ring buffer */
} cfg = {
	.max_args = EXECSNOOP_DEF_ARGS,
	.max_arg_len = EXECSNOOP_DEF_ARG_LEN,
	.buffer_pages = 0,	/* EXECSNOOP_RINGBUF */
};

enum { OPT_MAX_ARGS = 0x100, OPT_MAX_ARG_LEN, OPT_BUFFER_PAGES };

static const char doc[] =
"Trace exec() system calls: who starts which program, with which arguments.\n"
"\v"
"EXAMPLES:\n"
"    execsnoop-lite             # trace all successful execs\n"
"    execsnoop-lite -x          # include failed execs (RET is -errno)\n"
"    execsnoop-lite -T          # include a time column (HH:MM:SS)\n"
"    execsnoop-lite -t          # include seconds since start\n"
"    execsnoop-lite -U          # include a UID column\n"
"    execsnoop-lite -u 1000     # only execs by UID 1000\n"
"    execsnoop-lite -q          # quote every argument\n"
"    execsnoop-lite -n main     # only command names matching 'main' (regex)\n"
"    execsnoop-lite -l tpkg     # only arguments matching 'tpkg' (regex)\n"
"    execsnoop-lite -c /sys/fs/cgroup/unified/app  # only this cgroup\n"
"    execsnoop-lite --max-args 50  # show up to 50 arguments\n"
"    execsnoop-lite -j          # NDJSON, one object per exec\n";

static const struct argp_option options[] = {
	{ "fails", 'x', NULL, 0, "Include failed execs (RET is -errno)", 0 },
	{ "time", 't', NULL, 0, "Include seconds since start (TIME(s))", 0 },
	{ "quote", 'q', NULL, 0, "Quote every argument (\"arg\", \\\" inside)", 0 },
	{ "name", 'n', "NAME", 0, "Only commands whose name matches NAME (regex)", 0 },
	{ "line", 'l', "LINE", 0, "Only execs whose arguments match LINE (regex)", 0 },
	{ "uid", 'u', "UID", 0, "Only execs by this UID", 0 },
	{ "print-uid", 'U', NULL, 0, "Include a UID column", 0 },
	{ "max-args", OPT_MAX_ARGS, "N", 0, "Show at most N arguments (default 20, max 128)", 0 },
	{ "max-arg-len", OPT_MAX_ARG_LEN, "BYTES", 0,
	  "Cut arguments at BYTES (default 256, max 1024)", 0 },
	{ "buffer-pages", OPT_BUFFER_PAGES, "PAGES", OPTION_HIDDEN,
	  "Ring buffer size in pages (power of 2; default 512 KiB)", 0 },
	{ 0 },
};

static void compile(regex_t *re, const char *pattern, const char *what)
{
	char buf[256];
	int err = regcomp(re, pattern, REG_EXTENDED | REG_NOSUB);

	if (err) {
		regerror(err, re, buf, sizeof(buf));
		msg__usage("invalid %s '%s': %s", what, pattern, buf);
	}
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	(void)state;
	switch (key) {
	case 'x':
		cfg.failed = true;
		break;
	case 't':
		cfg.rel_time = true;
		break;
	case 'q':
		cfg.quote = true;
		break;
	case 'n':
		compile(&cfg.name, arg, "NAME");
		cfg.has_name = true;
		break;
	case 'l':
		compile(&cfg.line, arg, "LINE");
		cfg.has_line = true;
		break;
	case 'u':
		cfg.uid = opts__num(arg, "UID", 0, UINT_MAX - 1);
		cfg.filter_uid = true;
		break;
	case 'U':
		cfg.print_uid = true;
		break;
	case OPT_MAX_ARGS:
		cfg.max_args = opts__num(arg, "max-args", 1, EXECSNOOP_MAX_ARGS);
		break;
	case OPT_MAX_ARG_LEN:
		cfg.max_arg_len = opts__num(arg, "max-arg-len", 8, EXECSNOOP_ARG_LEN_MAX);
		break;
	case OPT_BUFFER_PAGES:
		cfg.buffer_pages = opts__num(arg, "buffer pages", 1, 1 << 16);
		if (cfg.buffer_pages & (cfg.buffer_pages - 1))
			msg__usage("buffer pages must be a power of 2");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* ---- joining the records of one exec ----------------------------------- */

struct pending {
	struct pending *next;
	__u32 tid;
	bool have_exec;
	char new_comm[EXECSNOOP_COMM_LEN];
	char filename[EXECSNOOP_FILE_LEN];
	struct exec_enter e;	/* args cut to e.args_len */
};

#define NR_BUCKETS 1024
static struct pending *buckets[NR_BUCKETS];
static size_t nr_pending;

static struct pending **find(__u32 tid)
{
	struct pending **pp = &buckets[tid % NR_BUCKETS];

	while (*pp && (*pp)->tid != tid)
		pp = &(*pp)->next;
	return pp;
}

static struct pending *take(__u32 tid)
{
	struct pending **pp = find(tid), *p = *pp;

	if (p) {
		*pp = p->next;
		nr_pending--;
	}
	return p;
}

static void put(struct pending *p)
{
	struct pending **head = &buckets[p->tid % NR_BUCKETS];

	free(take(p->tid));	/* a thread is in one exec at a time */
	p->next = *head;
	*head = p;
	nr_pending++;
}

/* ---- output ------------------------------------------------------------ */

static __u64 start_ns;		/* CLOCK_MONOTONIC at start */
static double mono_to_epoch;	/* epoch seconds - monotonic seconds */

/*
 * The argument at off in e, its length (at most --max-arg-len) and
 * whether it was cut there; returns the offset of the next one.
 */
static __u32 arg_at(const struct exec_enter *e, __u32 off, const char **s, size_t *len, bool *cut)
{
	size_t n;

	*s = e->args + off;
	n = strnlen(*s, e->args_len - off);
	*cut = n > (size_t)cfg.max_arg_len;
	*len = *cut ? (size_t)cfg.max_arg_len : n;
	return off + n + 1;
}

static bool needs_quotes(const char *s, size_t len)
{
	if (!len)
		return true;
	for (size_t i = 0; i < len; i++)
		if (isspace((unsigned char)s[i]) || strchr("\"'\\", s[i]))
			return true;
	return false;
}

/* One argument for the text line: quoted when asked or when needed. */
static void put_arg(FILE *f, const char *s, size_t len, bool cut)
{
	bool q = cfg.quote || needs_quotes(s, len);

	if (q)
		fputc('"', f);
	esc__put(f, s, len, q ? ESC_QUOTED : 0);
	if (q)
		fputc('"', f);
	if (cut)
		fputs("...", f);
}

/* The arguments joined by spaces, unquoted: what -l matches. */
static char *arg_line(const struct pending *p)
{
	const struct exec_enter *e = &p->e;
	size_t n = e->args_len + sizeof(p->filename) + 1;
	char *line = malloc(n), *w = line;

	if (!line)
		return NULL;
	if (!e->argc && (e->flags & ARGS_FAULT)) {
		snprintf(line, n, "%s", p->filename);
		return line;
	}
	for (__u32 i = 0, off = 0; i < e->argc && off < e->args_len; i++) {
		const char *s;
		size_t len;
		bool cut;

		off = arg_at(e, off, &s, &len, &cut);
		if (w != line)
			*w++ = ' ';
		memcpy(w, s, len);
		w += len;
	}
	*w = 0;
	return line;
}

static void print_json(const struct pending *p, int ret, const char *comm)
{
	const struct exec_enter *e = &p->e;
	bool unread = e->flags & ARGS_FAULT;
	__u32 cuts[EXECSNOOP_MAX_ARGS];
	int ncut = 0;
	struct json j;
	char hms[16];

	json__begin(&j, stdout);
	json__str(&j, "type", "exec");
	json__fixed(&j, "timestamp", mono_to_epoch + e->ts / 1e9, 6);
	if (env.timestamp)
		json__str(&j, "time", timefmt__hms(hms, sizeof(hms)));
	if (cfg.rel_time)
		json__fixed(&j, "time_s", (e->ts - start_ns) / 1e9, 3);
	json__strn(&j, "pcomm", comm, strnlen(comm, EXECSNOOP_COMM_LEN));
	json__uint(&j, "pid", e->tgid);
	json__uint(&j, "tid", e->tid);
	json__uint(&j, "ppid", e->ppid);
	json__uint(&j, "uid", e->uid);
	json__int(&j, "ret", ret);
	json__arr(&j, "args");
	if (!e->argc && unread && p->have_exec) {
		json__str(&j, NULL, p->filename);
	} else {
		for (__u32 i = 0, off = 0; i < e->argc && off < e->args_len; i++) {
			const char *s;
			size_t len;
			bool cut;

			off = arg_at(e, off, &s, &len, &cut);
			json__strn(&j, NULL, s, len);
			if (cut && ncut < EXECSNOOP_MAX_ARGS)
				cuts[ncut++] = i;
		}
	}
	json__arr_end(&j);
	json__bool(&j, "args_truncated", (e->flags & ARGS_MORE) || unread);
	json__arr(&j, "args_cut");
	for (int i = 0; i < ncut; i++)
		json__uint(&j, NULL, cuts[i]);
	json__arr_end(&j);
	json__bool(&j, "args_unread", unread);
	if (p->have_exec)
		json__str(&j, "filename", p->filename);
	else
		json__null(&j, "filename");
	json__end(&j);
}

static void print_text(const struct pending *p, int ret, const char *comm)
{
	const struct exec_enter *e = &p->e;
	char hms[16], c[4 * EXECSNOOP_COMM_LEN + 1];

	if (env.timestamp)
		printf("%-9s", timefmt__hms(hms, sizeof(hms)));
	if (cfg.rel_time)
		printf("%-8.3f", (e->ts - start_ns) / 1e9);
	if (cfg.print_uid)
		printf("%-6u", e->uid);
	printf("%-16s %-7u %-7u %3d ",
	       esc__str(c, sizeof(c), comm, strnlen(comm, EXECSNOOP_COMM_LEN), 0),
	       e->tgid, e->ppid, ret);
	if (!e->argc && (e->flags & ARGS_FAULT)) {
		if (p->have_exec)
			put_arg(stdout, p->filename, strlen(p->filename), false);
		fputs(p->have_exec ? " [argv unreadable]" : "[argv unreadable]", stdout);
	} else {
		for (__u32 i = 0, off = 0; i < e->argc && off < e->args_len; i++) {
			const char *s;
			size_t len;
			bool cut;

			off = arg_at(e, off, &s, &len, &cut);
			if (i)
				fputc(' ', stdout);
			put_arg(stdout, s, len, cut);
		}
		if (e->flags & ARGS_FAULT)
			fputs(" [rest of argv unreadable]", stdout);
		else if (e->flags & ARGS_MORE)
			fputs(" ...", stdout);
	}
	fputc('\n', stdout);
	fflush(stdout);
}

static void finish(struct pending *p, int ret)
{
	const char *comm = p->have_exec ? p->new_comm : p->e.comm;
	char c[EXECSNOOP_COMM_LEN + 1];
	char *line;

	if (ret < 0 && !cfg.failed)
		return;
	snprintf(c, sizeof(c), "%.*s", EXECSNOOP_COMM_LEN, comm);
	if (cfg.has_name && regexec(&cfg.name, c, 0, NULL, 0))
		return;
	if (cfg.has_line) {
		line = arg_line(p);
		if (!line || regexec(&cfg.line, line, 0, NULL, 0)) {
			free(line);
			return;
		}
		free(line);
	}
	if (env.json)
		print_json(p, ret, c);
	else
		print_text(p, ret, c);
}

static int handle_record(void *ctx, void *data, size_t size)
{
	__u32 type = *(__u32 *)data;
	struct pending *p;

	(void)ctx;
	if (type == REC_ENTER && size >= offsetof(struct exec_enter, args)) {
		const struct exec_enter *e = data;
		size_t n = size - offsetof(struct exec_enter, args);

		if (e->args_len > n)
			return 0;
		p = calloc(1, offsetof(struct pending, e.args) + e->args_len + 1);
		if (!p)
			return 0;
		memcpy(&p->e, e, offsetof(struct exec_enter, args) + e->args_len);
		p->tid = e->tid;
		put(p);
	} else if (type == REC_EXEC && size >= sizeof(struct exec_exec)) {
		const struct exec_exec *x = data;

		p = take(x->old_tid);
		if (!p)
			return 0;
		p->tid = x->tid;
		p->have_exec = true;
		memcpy(p->new_comm, x->comm, sizeof(p->new_comm));
		memcpy(p->filename, x->filename, sizeof(p->filename));
		p->filename[sizeof(p->filename) - 1] = 0;
		put(p);
	} else if (type == REC_EXIT && size >= sizeof(struct exec_exit)) {
		const struct exec_exit *x = data;

		p = take(x->tid);
		/* a thread that was not the leader, and its EXEC record was lost */
		if (!p && x->enter_tid != x->tid)
			p = take(x->enter_tid);
		if (!p)
			return 0;
		finish(p, x->ret);
		free(p);
	}
	return 0;
}

/*
 * An exec whose EXIT record was lost (counted by BPF) would wait here for
 * good. Twice a second: a pending exec more than a second old whose thread
 * BPF no longer has in flight is over, and dropped.
 */
#define STALE_NS	1000000000ULL

static int sweep(void *ctx)
{
	struct execsnoop_bpf *skel = ctx;
	static int ticks;
	size_t dropped = 0;
	__u64 now;
	int fd;

	if (++ticks % 5 || !nr_pending)
		return 0;
	fd = bpf_map__fd(skel->maps.inflight);
	now = timefmt__mono_ns();
	for (int b = 0; b < NR_BUCKETS; b++) {
		struct pending **pp = &buckets[b], *p;

		while ((p = *pp)) {
			__u32 tid = p->tid, v;

			/* young, or still in its exec (a slow file system) */
			if (now - p->e.ts < STALE_NS || !bpf_map_lookup_elem(fd, &tid, &v)) {
				pp = &p->next;
				continue;
			}
			*pp = p->next;
			nr_pending--;
			free(p);
			dropped++;
		}
	}
	if (dropped)
		msg__verbose("dropped %zu execs whose exit record was lost", dropped);
	return 0;
}

static void print_header(void)
{
	if (env.json)
		return;
	if (env.timestamp)
		printf("%-9s", "TIME");
	if (cfg.rel_time)
		printf("%-8s", "TIME(s)");
	if (cfg.print_uid)
		printf("%-6s", "UID");
	printf("%-16s %-7s %-7s %3s %s\n", "PCOMM", "PID", "PPID", "RET", "ARGS");
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct ring_buffer *rb = NULL;
	struct execsnoop_bpf *skel;
	int err;

	msg__init(TOOL);
	opts__parse_tool(options, parse_arg, NULL, doc,
			 OPTS_CGROUP | OPTS_TIMESTAMP,
			 argc, argv);

	if (attach__tracefs())
		return EXIT_FAIL;
	skel = TOOL_OPEN(execsnoop_bpf);
	if (!skel)
		return EXIT_FAIL;
	TOOL_SET_FILTERS(skel);
	skel->rodata->cfg_self = getpid();
	skel->rodata->cfg_max_args = cfg.max_args;
	skel->rodata->cfg_arg_len = cfg.max_arg_len;
	skel->rodata->cfg_filter_uid = cfg.filter_uid;
	skel->rodata->cfg_uid = cfg.uid;
	if (cfg.buffer_pages)
		bpf_map__set_max_entries(skel->maps.events, cfg.buffer_pages * getpagesize());

	err = tool__load_attach(skel->skeleton);
	if (err)
		goto out;
	rb = tool__ringbuf(skel->maps.events, handle_record, NULL);
	if (!rb) {
		err = -errno;
		goto out;
	}
	start_ns = timefmt__mono_ns();
	mono_to_epoch = timefmt__mono_to_epoch();

	loop__signals();
	print_header();
	tool__tracing("exec syscalls");
	err = loop__ringbuf(rb, 0, 100, NULL, sweep, skel);
	msg__verbose("%zu execs pending at exit", nr_pending);
	loss__report(&skel->bss->loss, env.json);
out:
	ring_buffer__free(rb);
	execsnoop_bpf__destroy(skel);
	return err ? EXIT_FAIL : EXIT_OK;
}
