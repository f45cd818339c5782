// SPDX-License-Identifier: GPL-2.0
/*
 * opensnoop-lite: trace open(), openat() and openat2() with their results.
 * The user side of bpf/opensnoop.bpf.c.
 */
#include <ctype.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include "load/tool.h"
#include "out/esc.h"
#include "out/json.h"
#include "run/loop.h"
#include "run/timefmt.h"
#include "opensnoop.h"
#include "opensnoop.skel.h"

#define TOOL "opensnoop-lite"

static struct {
	int duration;		/* -d */
	bool failed;		/* -x */
	bool filter_uid;
	__u32 uid;		/* -u */
	bool print_uid;		/* -U */
	const char *name;	/* -n */
	bool extended;		/* -e */
	__u64 flag_bits;	/* -f: one-bit flags, any of them */
	__u64 flag_masks[OPENSNOOP_FLAG_MASKS];	/* -f: several-bit flags, all of one */
	__u32 accmodes;		/* -f O_RDONLY/O_WRONLY/O_RDWR */
	bool full_path;		/* -F */
	int buffer_pages;	/* -b */
	int wakeup_bytes;	/* hidden, for the benchmark */
} cfg = { .buffer_pages = OPENSNOOP_RINGBUF_PAGES, .wakeup_bytes = -1 };

enum { OPT_WAKEUP = 0x100 };

static const char doc[] =
"Trace open(), openat() and openat2(): which process opens which file.\n"
"\v"
"EXAMPLES:\n"
"    opensnoop-lite              # trace all opens\n"
"    opensnoop-lite -T           # include seconds since start\n"
"    opensnoop-lite -U           # include a UID column\n"
"    opensnoop-lite -x           # only failed opens\n"
"    opensnoop-lite -p 181       # only PID 181\n"
"    opensnoop-lite -t 123       # only TID 123\n"
"    opensnoop-lite -u 1000      # only UID 1000\n"
"    opensnoop-lite -d 10        # trace for 10 seconds only\n"
"    opensnoop-lite -n main      # only process names containing 'main'\n"
"    opensnoop-lite -e           # show the open flags\n"
"    opensnoop-lite -f O_WRONLY -f O_RDWR  # only opens for writing\n"
"    opensnoop-lite -F           # full path of relative opens\n"
"    opensnoop-lite -j           # NDJSON, one object per open\n";

static const struct argp_option options[] = {
	{ "duration", 'd', "DURATION", 0, "Trace for DURATION seconds, then exit 0", 0 },
	{ "failed", 'x', NULL, 0, "Only failed opens", 0 },
	{ "uid", 'u', "UID", 0, "Only opens by this UID", 0 },
	{ "print-uid", 'U', NULL, 0, "Include a UID column", 0 },
	{ "name", 'n', "NAME", 0, "Only process names containing NAME", 0 },
	{ "extended-fields", 'e', NULL, 0, "Include the open flags (FLAGS, octal)", 0 },
	{ "flag-filter", 'f', "FLAG", 0,
	  "Only opens with this flag (O_WRONLY, O_CREAT, ...); repeat for any of several", 0 },
	{ "full-path", 'F', NULL, 0, "Full path of relative opens (from the cwd or the dirfd)", 0 },
	{ "buffer-pages", 'b', "PAGES", 0, "Ring buffer size in pages (power of 2, default 512)", 0 },
	{ "wakeup-bytes", OPT_WAKEUP, "BYTES", OPTION_HIDDEN, "Wake the reader when BYTES are waiting (0: the kernel's way)", 0 },
	{ 0 },
};

/* glibc defines O_LARGEFILE as 0 on 64-bit hosts; the kernel's flag bit (asm-generic). */
#define KERNEL_O_LARGEFILE 0100000

static const struct { const char *name; unsigned long long bits; } flag_names[] = {
	{ "O_WRONLY", O_WRONLY }, { "O_RDWR", O_RDWR },
	{ "O_CREAT", O_CREAT }, { "O_EXCL", O_EXCL }, { "O_NOCTTY", O_NOCTTY },
	{ "O_TRUNC", O_TRUNC }, { "O_APPEND", O_APPEND }, { "O_NONBLOCK", O_NONBLOCK },
	{ "O_DSYNC", O_DSYNC }, { "O_ASYNC", O_ASYNC }, { "O_DIRECT", O_DIRECT },
	{ "O_LARGEFILE", KERNEL_O_LARGEFILE }, { "O_DIRECTORY", O_DIRECTORY },
	{ "O_NOFOLLOW", O_NOFOLLOW }, { "O_NOATIME", O_NOATIME }, { "O_CLOEXEC", O_CLOEXEC },
	{ "O_SYNC", O_SYNC }, { "O_PATH", O_PATH }, { "O_TMPFILE", O_TMPFILE },
};
#define NR_FLAGS (sizeof(flag_names) / sizeof(flag_names[0]))

static void add_flag(const char *arg)
{
	char name[32];

	snprintf(name, sizeof(name), "%s%s", strncasecmp(arg, "O_", 2) ? "O_" : "", arg);
	for (char *c = name; *c; c++)
		*c = toupper((unsigned char)*c);
	if (!strcmp(name, "O_RDONLY")) {
		cfg.accmodes |= 1U << O_RDONLY;
		return;
	}
	for (size_t i = 0; i < NR_FLAGS; i++) {
		if (strcmp(name, flag_names[i].name))
			continue;
		/* access modes are values, not bits */
		if (flag_names[i].bits == O_WRONLY || flag_names[i].bits == O_RDWR) {
			cfg.accmodes |= 1U << flag_names[i].bits;
		} else if (__builtin_popcountll(flag_names[i].bits) == 1) {
			cfg.flag_bits |= flag_names[i].bits;
		} else {
			/*
			 * All of its bits, as the JSON flag names go: -f O_SYNC
			 * must not match an O_DSYNC open, nor -f O_TMPFILE an
			 * O_DIRECTORY one.
			 */
			size_t j;

			for (j = 0; j < OPENSNOOP_FLAG_MASKS && cfg.flag_masks[j]; j++)
				if (cfg.flag_masks[j] == flag_names[i].bits)
					return;
			/* only O_SYNC and O_TMPFILE have several bits: always room */
			if (j < OPENSNOOP_FLAG_MASKS)
				cfg.flag_masks[j] = flag_names[i].bits;
		}
		return;
	}
	msg__usage("invalid FLAG '%s' (O_RDONLY, O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, ...)", arg);
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	long long v;

	(void)state;
	switch (key) {
	case 'd':
		cfg.duration = opts__num(arg, "duration", 1, INT_MAX / 1000);
		break;
	case 'x':
		cfg.failed = true;
		break;
	case 'u':
		cfg.uid = opts__num(arg, "UID", 0, UINT_MAX - 1);
		cfg.filter_uid = true;
		break;
	case 'U':
		cfg.print_uid = true;
		break;
	case 'n':
		if (!*arg)
			msg__usage("invalid NAME: empty");
		cfg.name = arg;
		break;
	case 'e':
		cfg.extended = true;
		break;
	case 'f':
		add_flag(arg);
		break;
	case 'F':
		cfg.full_path = true;
		break;
	case 'b':
		v = opts__num(arg, "buffer-pages", 1, 1 << 18);
		if (v & (v - 1))
			msg__usage("invalid buffer-pages: %s (must be a power of 2)", arg);
		cfg.buffer_pages = v;
		break;
	case OPT_WAKEUP:
		cfg.wakeup_bytes = opts__num(arg, "wakeup-bytes", 0, INT_MAX);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* ---- output ------------------------------------------------------------ */

static __u64 start_ns;		/* CLOCK_MONOTONIC at start */
static double mono_to_epoch;	/* epoch seconds - monotonic seconds */
/*
 * Output is flushed once per batch read from the ring buffer (after each
 * poll), not per line: at hundreds of thousands of opens a second a
 * write() per line would make the reader the bottleneck. JSON lines are
 * built in memory (json__end flushes its stream) and copied to stdout.
 */
static FILE *jf;
static char *jbuf;
static size_t jsize;

static const char *sys_names[] = { "open", "openat", "openat2" };

/* The path to print: as given, or with -F the directories joined before it. */
static const char *event_path(const struct open_event *e, char *out, size_t outlen, bool *cut)
{
	const char *dirs[OPENSNOOP_FULL_DEPTH];
	size_t off = e->path_len, len = 0;
	int n = 0;

	*cut = false;
	if (!cfg.full_path || e->buf[0] == '/' || !e->full)
		return e->buf;
	if (e->full & FULL_FAILED) {
		*cut = true;
		return e->buf;
	}
	while (n < e->ndirs && n < OPENSNOOP_FULL_DEPTH &&
	       off + OPENSNOOP_NAME_MAX <= (size_t)e->path_len + e->dirs_len) {
		dirs[n++] = e->buf + off;
		off += OPENSNOOP_NAME_MAX;
	}
	if (e->full & FULL_CUT) {
		*cut = true;
		len += snprintf(out + len, outlen - len, "...");
	}
	while (n-- > 0 && len < outlen)
		len += snprintf(out + len, outlen - len, "/%s", dirs[n]);
	if (len < outlen)
		snprintf(out + len, outlen - len, "/%s", e->buf);
	return out;
}

static void print_json(const struct open_event *e, const char *path, bool cut)
{
	struct json j;

	rewind(jf);
	json__begin(&j, jf);
	json__str(&j, "type", "open");
	json__fixed(&j, "timestamp", mono_to_epoch + e->ts / 1e9, 6);
	if (env.timestamp)
		json__fixed(&j, "time_s", (e->ts - start_ns) / 1e9, 6);
	json__uint(&j, "pid", e->tgid);
	json__uint(&j, "tid", e->tid);
	json__uint(&j, "uid", e->uid);
	json__strn(&j, "comm", e->comm, strnlen(e->comm, OPENSNOOP_COMM_LEN));
	json__int(&j, "fd", e->ret >= 0 ? e->ret : -1);
	json__int(&j, "err", e->ret >= 0 ? 0 : -e->ret);
	json__uint(&j, "flags", e->flags);
	json__arr(&j, "flag_names");
	json__str(&j, NULL, (e->flags & O_ACCMODE) == O_WRONLY ? "O_WRONLY" :
			    (e->flags & O_ACCMODE) == O_RDWR ? "O_RDWR" : "O_RDONLY");
	for (size_t i = 2; i < NR_FLAGS; i++)
		if ((e->flags & flag_names[i].bits) == flag_names[i].bits)
			json__str(&j, NULL, flag_names[i].name);
	json__arr_end(&j);
	if (e->flags & (O_CREAT | O_TMPFILE))
		json__uint(&j, "mode", e->mode);
	json__str(&j, "syscall", e->syscall < 3 ? sys_names[e->syscall] : "?");
	json__str(&j, "path", path);
	if (cfg.full_path)
		json__bool(&j, "path_cut", cut);
	json__end(&j);
	fwrite(jbuf, 1, ftell(jf), stdout);
}

static void print_text(const struct open_event *e, const char *path)
{
	if (env.timestamp)
		printf("%-14.9f", (e->ts - start_ns) / 1e9);
	if (cfg.print_uid)
		printf("%-6u", e->uid);
	printf("%-6u %-16s %4d %3d ", env.tid ? e->tid : e->tgid, ESC_ARRAY(e->comm),
	       e->ret >= 0 ? e->ret : -1, e->ret >= 0 ? 0 : -e->ret);
	if (cfg.extended)
		printf("%08llo ", (unsigned long long)e->flags);
	esc__put(stdout, path, strlen(path), 0);
	putchar('\n');
}

static int handle_event(void *ctx, void *data, size_t size)
{
	const struct open_event *e = data;
	char full[sizeof(e->buf) + 64];
	const char *path;
	bool cut;

	(void)ctx;
	if (size < offsetof(struct open_event, buf) + 1 ||
	    size < offsetof(struct open_event, buf) + e->path_len + e->dirs_len || !e->path_len)
		return 0;
	if (cfg.name && !memmem(e->comm, strnlen(e->comm, OPENSNOOP_COMM_LEN), cfg.name,
				strlen(cfg.name)))
		return 0;
	path = event_path(e, full, sizeof(full), &cut);
	if (env.json)
		print_json(e, path, cut);
	else
		print_text(e, path);
	return 0;
}

/* Called after every poll: the batch just read goes out in one write. */
static bool after_poll(void *ctx)
{
	(void)ctx;
	fflush(stdout);
	return false;
}

static void print_header(void)
{
	if (env.json)
		return;
	if (env.timestamp)
		printf("%-14s", "TIME(s)");
	if (cfg.print_uid)
		printf("%-6s", "UID");
	printf("%-6s %-16s %4s %3s ", env.tid ? "TID" : "PID", "COMM", "FD", "ERR");
	if (cfg.extended)
		printf("%-9s", "FLAGS");
	printf("PATH\n");
	fflush(stdout);
}

/*
 * Load the exit programs with the -F walk (<name>_full) or those without;
 * and none for a tracepoint the kernel lacks (open(2) has none on
 * architectures without the syscall).
 */
static void choose_programs(struct opensnoop_bpf *skel)
{
	static const char *dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	struct bpf_program *prog;
	char path[256];

	bpf_object__for_each_program(prog, skel->obj) {
		const char *tp = strchr(bpf_program__section_name(prog), '/');
		bool found = false;

		for (size_t i = 0; tp && i < 2 && !found; i++) {
			snprintf(path, sizeof(path), "%s/events%s", dirs[i], tp);
			found = !access(path, F_OK);
		}
		if (!found) {
			msg__verbose("no tracepoint %s: skipped", tp ? tp + 1 : "?");
			bpf_program__set_autoload(prog, false);
		} else if (!strncmp(bpf_program__name(prog), "sys_exit_", 9)) {
			bool full = strstr(bpf_program__name(prog), "_full");

			bpf_program__set_autoload(prog, full == cfg.full_path);
		}
	}
}

int main(int argc, char **argv)
{
	struct ring_buffer *rb = NULL;
	struct opensnoop_bpf *skel;
	int err;

	msg__init(TOOL);
	opts__parse_tool(options, parse_arg, NULL, doc,
			 OPTS_PID | OPTS_TID | OPTS_CGROUP | OPTS_TIMESTAMP,
			 argc, argv);

	jf = open_memstream(&jbuf, &jsize);
	if (!jf)
		return EXIT_FAIL;
	if (attach__tracefs())
		return EXIT_FAIL;
	/* only classic tracepoints: TOOL_OPEN reads no BTF for a choice */
	skel = TOOL_OPEN(opensnoop_bpf);
	if (!skel)
		return EXIT_FAIL;
	choose_programs(skel);
	TOOL_SET_FILTERS(skel);
	skel->rodata->cfg_self = getpid();
	skel->rodata->cfg_filter_uid = cfg.filter_uid;
	skel->rodata->cfg_uid = cfg.uid;
	skel->rodata->cfg_failed_only = cfg.failed;
	skel->rodata->cfg_flag_bits = cfg.flag_bits;
	memcpy((void *)skel->rodata->cfg_flag_masks, cfg.flag_masks, sizeof(cfg.flag_masks));
	skel->rodata->cfg_accmodes = cfg.accmodes;
	bpf_map__set_max_entries(skel->maps.events, cfg.buffer_pages * getpagesize());
	/*
	 * Wake the reader once 64 KiB (at most a quarter of the buffer) are
	 * waiting, not whenever it has caught up: at high open rates that
	 * is one wake-up per ~1000 events instead of one per few, ~30%
	 * less overhead on a tight open loop. At low rates the 100 ms poll
	 * timer delivers the events.
	 */
	if (cfg.wakeup_bytes < 0) {
		cfg.wakeup_bytes = cfg.buffer_pages * getpagesize() / 4;
		if (cfg.wakeup_bytes > 65536)
			cfg.wakeup_bytes = 65536;
	}
	skel->rodata->cfg_wakeup_bytes = cfg.wakeup_bytes;

	err = tool__load_attach(skel->skeleton);
	if (err)
		goto out;
	rb = tool__ringbuf(skel->maps.events, handle_event, NULL);
	if (!rb) {
		err = -errno;
		goto out;
	}
	start_ns = timefmt__mono_ns();
	mono_to_epoch = timefmt__mono_to_epoch();

	loop__signals();
	print_header();
	tool__tracing("open syscalls");
	err = loop__ringbuf(rb, cfg.duration, 100, after_poll, NULL, NULL);
	fflush(stdout);
	loss__report(&skel->bss->loss, env.json);
out:
	ring_buffer__free(rb);
	opensnoop_bpf__destroy(skel);
	fclose(jf);
	free(jbuf);
	return err ? EXIT_FAIL : EXIT_OK;
}
