// SPDX-License-Identifier: GPL-2.0
/*
 * flamegraph-lite: read folded stacks ("comm;frame;frame count", root
 * first, as offcputime-lite -f, bcc's -f and stackcollapse-perf print
 * them) and write one self-contained interactive SVG flame graph: inline
 * CSS and script, no fonts, nothing fetched.
 *
 * The stacks are merged into a tree (a hash table finds a child by parent,
 * kind and name). Frames are written flat, in depth-first order, each a
 * <g class="f"> holding <title>, <rect> and <text>: deep stacks then do
 * not nest elements hundreds of levels deep (XML parsers limit nesting),
 * and the script rebuilds the tree from the order and the rows.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "out/esc.h"
#include "out/json.h"
#include "run/msg.h"
#include "run/opts.h"
#include "out/window.h"

#define TOOL "flamegraph-lite"

/* Geometry in pixels; the script gets the same numbers. */
#define FRAME_H		16
#define FONT_SIZE	12
#define FONT_WIDTH	0.6	/* advance of a monospace glyph, in ems */
#define XPAD		10
#define YPAD_TOP	60	/* title, subtitle, legend, buttons */
#define YPAD_BOTTOM	34	/* details line */

#define COUNT_MAX	9007199254740992.0	/* 2^53 */

enum kind { K_USER, K_KERNEL, K_DELIM, K_MISSED, K_ROOT, K_PYTHON };

static struct {
	const char *title;
	const char *countname;
	int width;
	double minwidth;	/* pixels, or percent of the total */
	bool minwidth_pct;
	bool inverted;
	bool guess_kernel;
	bool countname_set;
	const char *from, *to;	/* --from/--to: pick windows */
	bool diff, normalize, folded_out;
} cfg = {
	.countname = "samples",
	.width = 1200,
	.minwidth = 0.1,
};

enum {
	OPT_TITLE = 0x100,
	OPT_WIDTH,
	OPT_MINWIDTH,
	OPT_COUNTNAME,
	OPT_INVERTED,
	OPT_GUESS_KERNEL,
	OPT_FROM,
	OPT_TO,
	OPT_DIFF,
	OPT_NORMALIZE,
	OPT_FOLDED,
};

static const char doc[] =
"Turn folded stacks into a self-contained interactive SVG flame graph.\n"
"\n"
"Reads FILEs (or standard input) with one stack per line, root first:\n"
"\"comm;frame;frame count\". Kernel frames are told from user frames by a\n"
"\"_[k]\" suffix or by following a \"-\" frame (offcputime-lite -d); with\n"
"--guess-kernel also from a kernel entry point (entry_SYSCALL_64, ...) on.\n"
"Python frames, \"NAME (FILE.py:LINE)\" as --python and py-spy name them,\n"
"are green.\n"
"Counts may be fractional (\"a;b 2.5\"). Lines starting with \"#\" that are\n"
"not stacks are comments; \"# window SEQ START END\" (--interval, --ring of\n"
"the stack tools) starts a window, \"# countname UNIT\" names the counts.\n"
"The SVG goes to standard output.\n"
"\v"
"EXAMPLES:\n"
"    offcputime-lite -df 10 | flamegraph-lite --countname us > off.svg\n"
"                          # off-CPU time for 10 s, kernel frames in blue\n"
"    offcputime-lite -f 10 | flamegraph-lite --guess-kernel > off.svg\n"
"                          # the same without the \"-\" delimiter\n"
"    perf script | stackcollapse-perf.pl --kernel | flamegraph-lite > cpu.svg\n"
"                          # perf samples, kernel frames marked _[k]\n"
"    flamegraph-lite --inverted --title 'Waits' a.folded b.folded > w.svg\n"
"                          # an icicle graph of two files merged\n"
"    flamegraph-lite --minwidth 0.5% < stacks.folded > big.svg\n"
"                          # omit frames under 0.5% of the total\n"
"    flamegraph-lite --from 21:44:20 --to 21:44:30 ring.folded > spike.svg\n"
"                          # the windows of 21:44:20-21:44:30 (UTC) only\n"
"    flamegraph-lite --from 21:44:10 --to 21:44:20 --folded ring.folded > before.folded\n"
"                          # the windows before, as folded lines\n"
"    flamegraph-lite --diff before.folded spike.folded > diff.svg\n"
"                          # spike's stacks, red where they grew, blue where they shrank\n";

static const struct argp_option options[] = {
	{ "title", OPT_TITLE, "TEXT", 0, "Title (default: \"Flame Graph\", or \"Icicle Graph\")", 0 },
	{ "width", OPT_WIDTH, "PIXELS", 0, "Width of the image (default 1200)", 0 },
	{ "minwidth", OPT_MINWIDTH, "PIXELS|PCT%", 0,
	  "Omit frames narrower than this many pixels, or this percent of the total (default 0.1)", 0 },
	{ "countname", OPT_COUNTNAME, "NAME", 0, "Unit of the counts, e.g. \"us\" (default \"samples\")", 0 },
	{ "inverted", OPT_INVERTED, NULL, 0, "Icicle graph: roots at the top, growing down", 0 },
	{ "guess-kernel", OPT_GUESS_KERNEL, NULL, 0,
	  "Frames from a kernel entry point (entry_SYSCALL_64, ret_from_fork, ...) to the leaf are kernel frames",
	  0 },
	{ "from", OPT_FROM, "TIME", 0,
	  "Only windows that end after TIME (UTC: 2026-11-30T21:44[:20[.123]][Z], or HH:MM[:SS] on the "
	  "day of the first window)", 0 },
	{ "to", OPT_TO, "TIME", 0, "Only windows that start before TIME", 0 },
	{ "diff", OPT_DIFF, NULL, 0,
	  "Two FILEs, BEFORE AFTER: draw AFTER, each frame red where it grew, blue where it shrank", 0 },
	{ "normalize", OPT_NORMALIZE, NULL, 0, "With --diff: scale BEFORE to AFTER's total first", 0 },
	{ "folded", OPT_FOLDED, NULL, 0,
	  "Write the picked lines (--from/--to) as folded stacks, not an SVG", 0 },
	{ "version", OPTS_KEY_VERSION, NULL, 0, "Print the version and exit", 0 },
	{ NULL, 'h', NULL, OPTION_HIDDEN, "Show this help", 0 },
	{ 0 },
};

static const char **files;
static int nr_files;

static double parse_minwidth(const char *arg)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (end == arg || errno || !isfinite(v) || v < 0)
		msg__usage("invalid minwidth: '%s' (give pixels, or a percent such as 0.5%%)", arg);
	if (*end == '%' && end[1] == '\0') {
		if (v > 100)
			msg__usage("invalid minwidth: '%s' (a percent is at most 100%%)", arg);
		cfg.minwidth_pct = true;
	} else if (*end) {
		msg__usage("invalid minwidth: '%s' (give pixels, or a percent such as 0.5%%)", arg);
	}
	return v;
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case OPT_TITLE:
		cfg.title = arg;
		break;
	case OPT_WIDTH:
		cfg.width = opts__num(arg, "width", 200, 100000);
		break;
	case OPT_MINWIDTH:
		cfg.minwidth = parse_minwidth(arg);
		break;
	case OPT_COUNTNAME:
		if (!*arg)
			msg__usage("invalid countname: empty");
		cfg.countname = arg;
		cfg.countname_set = true;
		break;
	case OPT_FROM:
	case OPT_TO:
		/* HH:MM needs the input's date: checked again at its first window */
		if (window__parse_time(arg, 0) < 0)
			msg__usage("invalid time: '%s' (give 2026-11-30T21:44[:20[.123]][Z] or HH:MM[:SS], UTC)",
				   arg);
		if (key == OPT_FROM)
			cfg.from = arg;
		else
			cfg.to = arg;
		break;
	case OPT_DIFF:
		cfg.diff = true;
		break;
	case OPT_NORMALIZE:
		cfg.normalize = true;
		break;
	case OPT_FOLDED:
		cfg.folded_out = true;
		break;
	case ARGP_KEY_END:
		if (cfg.diff && nr_files != 2)
			msg__usage("--diff needs two FILEs: BEFORE AFTER");
		if (cfg.normalize && !cfg.diff)
			msg__usage("--normalize needs --diff");
		if (cfg.diff && cfg.folded_out)
			msg__usage("--diff and --folded are mutually exclusive");
		break;
	case OPT_INVERTED:
		cfg.inverted = true;
		break;
	case OPT_GUESS_KERNEL:
		cfg.guess_kernel = true;
		break;
	case 'h':
		argp_state_help(state, stdout, ARGP_HELP_STD_HELP);
		break;
	case OPTS_KEY_VERSION:
		opts__version();
	case ARGP_KEY_ARG:
		files[nr_files++] = arg;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* ---- the tree ------------------------------------------------------- */

struct node {
	struct node *parent, *child, *next;	/* children sorted by name later */
	struct node *hnext;			/* hash chain */
	char *name;
	size_t len;
	size_t hash;
	double total;				/* this frame and everything above it */
	double before;				/* the same in BEFORE (--diff) */
	double rel;				/* offset in its parent, in counts */
	double off;				/* offset from the left, in counts */
	enum kind kind;
};

static struct node root = { .name = "all", .len = 3, .kind = K_ROOT };
static struct node **htab;
static size_t hsize, hcount;

static struct {
	unsigned long long lines;	/* stacks read */
	unsigned long long before_lines;	/* of them, in BEFORE (--diff) */
	unsigned long long malformed;
	char first_bad[64];		/* where the first malformed line was */
	bool kernel_seen, python_seen;
	bool reading_before;		/* counts go to node.before */
	int countname_out;		/* --folded: "# countname" lines written */
	/* windows (# window SEQ START END) */
	bool skipping;			/* outside the picked windows */
	long long from_ms, to_ms;	/* resolved at the first window */
	bool resolved;
	unsigned long long windows, picked;	/* in this file */
	long long first_ms, last_ms;	/* span of the picked windows */
} in = { .first_ms = -1 };

static size_t hash(const struct node *parent, enum kind kind, const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ULL;

	while (len--) {
		h ^= (unsigned char)*s++;
		h *= 1099511628211ULL;
	}
	/* mix the parent and kind into every bit (murmur3's finalizer) */
	h ^= (uintptr_t)parent * 0x9e3779b97f4a7c15ULL + kind;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	return h ^ (h >> 33);
}

static void oom(void)
{
	msg__fail(ENOMEM, "allocate memory for the stacks");
	exit(EXIT_FAIL);
}

static void rehash(void)
{
	size_t nsize = hsize ? hsize * 2 : 4096, i;
	struct node **nt = calloc(nsize, sizeof(*nt)), *n, *next;

	if (!nt)
		oom();
	for (i = 0; i < hsize; i++) {
		for (n = htab[i]; n; n = next) {
			size_t b = n->hash & (nsize - 1);

			next = n->hnext;
			n->hnext = nt[b];
			nt[b] = n;
		}
	}
	free(htab);
	htab = nt;
	hsize = nsize;
}

/*
 * Nodes and their names come from large blocks, never freed (the process
 * ends after writing the SVG): no allocator overhead per frame.
 */
static void *arena_alloc(size_t size)
{
	static char *cur, *end;
	void *p;

	size = (size + 7) & ~(size_t)7;
	if (size > (size_t)(end - cur)) {
		size_t block = size > (1 << 20) ? size : 1 << 20;

		cur = malloc(block);
		if (!cur)
			oom();
		end = cur + block;
	}
	p = cur;
	cur += size;
	return p;
}

static struct node *child(struct node *parent, enum kind kind, const char *name, size_t len)
{
	struct node *n;
	size_t h, b;

	if (hcount * 4 >= hsize * 3)
		rehash();
	h = hash(parent, kind, name, len);
	b = h & (hsize - 1);
	for (n = htab[b]; n; n = n->hnext)
		if (n->hash == h && n->parent == parent && n->kind == kind && n->len == len &&
		    !memcmp(n->name, name, len))
			return n;
	n = arena_alloc(sizeof(*n) + len + 1);
	memset(n, 0, sizeof(*n));
	n->name = (char *)(n + 1);
	memcpy(n->name, name, len);
	n->name[len] = '\0';
	n->len = len;
	n->hash = h;
	n->kind = kind;
	n->parent = parent;
	n->next = parent->child;
	parent->child = n;
	n->hnext = htab[b];
	htab[b] = n;
	hcount++;
	return n;
}

static bool has_prefix(const char *s, size_t len, const char *p)
{
	size_t n = strlen(p);

	return len >= n && !memcmp(s, p, n);
}

/*
 * Where a kernel stack starts, when nothing marks it: system call and
 * exception entries, kernel threads, idle. Every frame from one of these
 * to the leaf is the kernel's.
 */
/*
 * A Python frame as bpflite's --python and py-spy name one:
 * "NAME (FILE:LINE)", FILE a .py file or a frozen module ("<frozen ...>").
 */
static bool python_frame(const char *s, size_t len)
{
	size_t i = len, colon, open;

	if (len < 8 || s[len - 1] != ')')
		return false;
	for (i = len - 1; i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9'; i--)
		;
	if (i == len - 1 || i < 2 || s[i - 1] != ':')
		return false;
	colon = i - 1;
	for (open = colon; open > 1 && !(s[open - 1] == '(' && s[open - 2] == ' '); open--)
		;
	if (open <= 2 || open == colon)
		return false;
	/* s[open .. colon) is the file */
	if (colon - open >= 3 && !memcmp(s + colon - 3, ".py", 3))
		return true;
	return s[open] == '<' && s[colon - 1] == '>';
}

static bool kernel_entry(const char *s, size_t len)
{
	static const char *const prefixes[] = {
		"entry_SYSCALL", "entry_INT80", "entry_SYSENTER", "do_syscall_",
		"__x64_sys_", "__ia32_sys_", "__arm64_sys_", "x64_sys_call",
		"ret_from_fork", "asm_exc_", "asm_sysvec_", "asm_common_interrupt",
		"el0t_", "el0_svc", "secondary_startup", "common_startup_64",
		"start_secondary", "x86_64_start_", "start_kernel", "cpu_startup_entry",
	};
	size_t i;

	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (has_prefix(s, len, prefixes[i]))
			return true;
	return len == 7 && !memcmp(s, "kthread", 7);
}

static void malformed(const char *file, unsigned long long lineno)
{
	if (!in.malformed++)
		snprintf(in.first_bad, sizeof(in.first_bad), "%s:%llu", file, lineno);
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

/* One line: "frame;frame;... count". Blank lines carry nothing. */
static void parse_line(char *s, size_t len, const char *file, unsigned long long lineno)
{
	double count, *total;
	char num[32];
	size_t p, i, start, slen;
	bool dot = false;
	bool kern = false, guessed = false, waker = false;
	struct node *n;

	while (len && is_space(s[len - 1]))
		len--;
	while (len && is_space(*s)) {
		s++;
		len--;
	}
	if (!len)
		return;
	if (memchr(s, '\0', len))
		goto bad;
	/* The count is the last word: frame names may hold spaces. */
	for (p = len; p && !is_space(s[p - 1]); p--)
		;
	/* digits, then maybe a fraction: flamegraph.pl's \d+(?:\.\d*)? */
	if (!p || len - p >= sizeof(num) || s[p] < '0' || s[p] > '9')
		goto bad;
	for (i = p; i < len; i++) {
		if (s[i] == '.' && !dot)
			dot = true;
		else if (s[i] < '0' || s[i] > '9')
			goto bad;
	}
	memcpy(num, s + p, len - p);
	num[len - p] = '\0';
	count = strtod(num, NULL);
	slen = p;
	while (slen && is_space(s[slen - 1]))
		slen--;
	/* Empty frames are kept: a task may have set an empty comm. */
	if (!slen)
		goto bad;
	total = in.reading_before ? &root.before : &root.total;
	/* up to 2^53 a double holds every integer: totals stay exact */
	if (!isfinite(count) || count > COUNT_MAX - *total)
		goto bad;
	in.lines++;
	in.before_lines += in.reading_before;
	if (!count)
		return;

	*total += count;
	n = &root;
	for (start = 0; start <= slen; start = i + 1) {
		const char *f = s + start;
		size_t flen;
		enum kind kind;

		for (i = start; i < slen && s[i] != ';'; i++)
			;
		flen = i - start;
		if (flen == 1 && f[0] == '-') {
			/* user frames before, kernel after; in a waker's part
			 * (after "--") kernel before, user after */
			kind = K_DELIM;
			kern = !waker;
		} else if (flen == 2 && f[0] == '-' && f[1] == '-') {
			/* offwaketime's and dstate-lite's waker delimiter: the
			 * waker's kernel stack follows, then "-" and its user side */
			kind = K_DELIM;
			kern = waker = true;
		} else if (flen > 4 && !memcmp(f + flen - 4, "_[k]", 4)) {
			flen -= 4;		/* stackcollapse-perf --kernel */
			kind = K_KERNEL;
		} else if (flen > 4 && f[flen - 4] == '_' && f[flen - 3] == '[' &&
			   strchr("jiw", f[flen - 2]) && f[flen - 1] == ']') {
			flen -= 4;		/* JIT, inlined, waker annotations */
			kind = kern ? K_KERNEL : K_USER;
		} else if (has_prefix(f, flen, "[missed") || has_prefix(f, flen, "[Missed")) {
			kind = K_MISSED;
			/* bcc: "[Missed User Stack]", then the kernel frames, no "-" */
			if (strncasecmp(f, "[missed user", 12) == 0)
				kern = true;
		} else if (kern) {
			kind = K_KERNEL;
		} else if (python_frame(f, flen)) {
			kind = K_PYTHON;
			in.python_seen = true;
		} else if (cfg.guess_kernel && (guessed || (guessed = kernel_entry(f, flen)))) {
			kind = K_KERNEL;
		} else {
			kind = K_USER;
		}
		if (kind == K_KERNEL)
			in.kernel_seen = true;
		n = child(n, kind, f, flen);
		if (in.reading_before)
			n->before += count;
		else
			n->total += count;
	}
	return;
bad:
	if (*s != '#')	/* a comment */
		malformed(file, lineno);
}

static long long parse_window_time(const char *arg, long long day_ms)
{
	long long t = window__parse_time(arg, day_ms);

	if (t < 0)
		msg__usage("invalid time: '%s'", arg);
	return t;
}

/*
 * "# window SEQ START END": a window starts; is it one --from/--to pick?
 * Returns false when the line is not a window header.
 */
static bool window_header(const char *s)
{
	char a[64], b[64];
	unsigned long long seq;
	long long start, stop;

	if (sscanf(s, "# window %llu %63s %63s", &seq, a, b) != 3)
		return false;
	start = window__parse_time(a, -1);
	stop = window__parse_time(b, -1);
	if (start < 0 || stop < start)
		return false;
	if (!in.resolved) {
		in.from_ms = cfg.from ? parse_window_time(cfg.from, start) : LLONG_MIN;
		in.to_ms = cfg.to ? parse_window_time(cfg.to, start) : LLONG_MAX;
		if (in.from_ms >= in.to_ms)
			msg__usage("--from %s is not before --to %s", cfg.from, cfg.to);
		in.resolved = true;
	}
	in.windows++;
	/* [start, stop) overlaps [from, to) */
	in.skipping = !(start < in.to_ms && stop > in.from_ms);
	if (!in.skipping) {
		in.picked++;
		if (in.first_ms < 0 || start < in.first_ms)
			in.first_ms = start;
		if (stop > in.last_ms)
			in.last_ms = stop;
	}
	return true;
}

/* "# countname UNIT" (dstate-lite -f, offcputime-lite -f): unless --countname */
static bool countname_line(const char *s, size_t len)
{
	static char name[32];
	size_t n;

	if (strncmp(s, "# countname ", 12))
		return false;
	s += 12;
	len -= 12;
	for (n = 0; n < len && !is_space(s[n]); n++)
		;
	if (!cfg.countname_set && n && n < sizeof(name)) {
		memcpy(name, s, n);
		name[n] = '\0';
		cfg.countname = name;
		cfg.countname_set = true;
	}
	return true;
}

/*
 * --folded: a line as it was read; on a terminal escaped (esc.h), since
 * input from other tools may hold raw control bytes.
 */
static void echo_line(const char *line, size_t len)
{
	static int tty = -1;

	if (tty < 0)
		tty = isatty(STDOUT_FILENO);
	if (len && line[len - 1] == '\n')
		len--;
	if (tty)
		esc__put(stdout, line, len, 0);
	else
		fwrite(line, 1, len, stdout);
	fputc('\n', stdout);
}

static int read_input(FILE *f, const char *name)
{
	unsigned long long lineno = 0;
	size_t cap = 0;
	char *line = NULL;
	ssize_t len;

	/* without windows, --from/--to pick nothing */
	in.skipping = cfg.from || cfg.to;
	in.windows = in.picked = 0;
	while ((len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if (line[0] == '#' && window_header(line)) {
			if (cfg.folded_out && !in.skipping)
				echo_line(line, len);
			continue;
		}
		if (line[0] == '#' && countname_line(line, len)) {
			/* --folded: the unit once, whatever windows follow */
			if (cfg.folded_out && !in.countname_out++)
				echo_line(line, len);
			continue;
		}
		if (in.skipping)
			continue;
		if (cfg.folded_out)
			echo_line(line, len);
		parse_line(line, len, name, lineno);
	}
	free(line);
	if ((cfg.from || cfg.to) && !ferror(f)) {
		if (!in.windows)
			msg__err("%s has no windows (\"# window\" lines, from --interval): "
				 "--from/--to pick windows", name);
		else if (!in.picked)
			msg__err("%s has no window between %s and %s", name,
				 cfg.from ? cfg.from : "its start", cfg.to ? cfg.to : "its end");
		if (!in.picked)
			return -1;
	}
	if (ferror(f)) {
		msg__fail(errno, "read %s", name);
		return -1;
	}
	return 0;
}

/* ---- layout ------------------------------------------------------------ */

static int cmp_node(const void *a, const void *b)
{
	const struct node *x = *(const struct node **)a, *y = *(const struct node **)b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->name, y->name, n);

	if (c)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return (int)x->kind - (int)y->kind;
}

/* Sort every node's children by name (flamegraph.pl's order) and place them. */
static void sort_children(void)
{
	struct node **all, **kids = NULL, *n, *c;
	size_t i, k, cap = 0, nr = 0;

	all = malloc((hcount + 1) * sizeof(*all));
	if (!all)
		oom();
	all[nr++] = &root;
	for (i = 0; i < hsize; i++)
		for (n = htab[i]; n; n = n->hnext)
			all[nr++] = n;
	for (i = 0; i < nr; i++) {
		double rel = 0;

		for (k = 0, c = all[i]->child; c; c = c->next, k++) {
			if (k == cap) {
				cap = cap ? cap * 2 : 64;
				kids = realloc(kids, cap * sizeof(*kids));
				if (!kids)
					oom();
			}
			kids[k] = c;
		}
		if (!k)
			continue;
		qsort(kids, k, sizeof(*kids), cmp_node);
		all[i]->child = kids[0];
		for (size_t j = 0; j < k; j++) {
			kids[j]->next = j + 1 < k ? kids[j + 1] : NULL;
			kids[j]->rel = rel;
			rel += kids[j]->total;
		}
	}
	free(kids);
	free(all);
}

static double scale;	/* pixels per count */

static bool drawn(const struct node *n)
{
	if (n == &root)
		return true;
	if (n->total <= 0)	/* only in BEFORE (--diff) */
		return false;
	if (cfg.minwidth_pct)
		return n->total * 100.0 / root.total >= cfg.minwidth;
	return n->total * scale >= cfg.minwidth;
}

static struct node *first_drawn(struct node *n)
{
	while (n && !drawn(n))
		n = n->next;
	return n;
}

/*
 * Visit the drawn frames depth first, without recursion (stacks can be
 * thousands of frames deep).
 */
static void walk(void (*visit)(struct node *n, int depth, void *ctx), void *ctx)
{
	struct node *n = &root, *c;
	int depth = 0;

	while (n) {
		n->off = n->parent ? n->parent->off + n->rel : 0;
		visit(n, depth, ctx);
		c = first_drawn(n->child);
		if (c) {
			n = c;
			depth++;
			continue;
		}
		while (n) {
			c = first_drawn(n->next);
			if (c) {
				n = c;
				break;
			}
			n = n->parent;
			depth--;
		}
	}
}

struct stats {
	int max_depth;
	unsigned long long frames;
};

static void count_frame(struct node *n, int depth, void *ctx)
{
	struct stats *st = ctx;

	(void)n;
	if (depth > st->max_depth)
		st->max_depth = depth;
	st->frames++;
}

/* ---- SVG ----------------------------------------------------------------- */

/*
 * Length of the UTF-8 character at s that XML allows, 0 for a byte to
 * replace (invalid UTF-8, control characters, U+FFFE/U+FFFF).
 */
static size_t xml_char(const unsigned char *s, size_t n)
{
	unsigned int cp;
	size_t len;

	if (s[0] < 0x80)
		return s[0] >= 0x20 || s[0] == '\t' ? 1 : 0;
	len = json__utf8_char(s, n, &cp);
	return cp == 0xfffe || cp == 0xffff ? 0 : len;
}

/* Characters in s as the SVG shows them (each replaced byte is one). */
static size_t xml_chars(const char *s, size_t n)
{
	size_t i = 0, chars = 0, l;

	while (i < n) {
		l = xml_char((const unsigned char *)s + i, n - i);
		i += l ? l : 1;
		chars++;
	}
	return chars;
}

/* Write at most max characters of s, escaped for XML text and attributes. */
static void xml_put(FILE *f, const char *str, size_t n, size_t max)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, l, chars = 0;

	while (i < n && chars < max) {
		chars++;
		switch (s[i]) {
		case '&': fputs("&amp;", f); i++; continue;
		case '<': fputs("&lt;", f); i++; continue;
		case '>': fputs("&gt;", f); i++; continue;
		case '"': fputs("&quot;", f); i++; continue;
		case '\'': fputs("&apos;", f); i++; continue;
		}
		l = xml_char(s + i, n - i);
		if (l) {
			fwrite(s + i, 1, l, f);
			i += l;
		} else {
			fputs("\xef\xbf\xbd", f);	/* U+FFFD */
			i++;
		}
	}
}

static void xml_str(FILE *f, const char *s)
{
	xml_put(f, s, strlen(s), SIZE_MAX);
}

/* 1234567 -> "1,234,567" */
static const char *grouped(unsigned long long v, char *buf, size_t len)
{
	char tmp[32];
	int n = snprintf(tmp, sizeof(tmp), "%llu", v), i, o = 0;

	for (i = 0; i < n && o + 2 < (int)len; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = '\0';
	return buf;
}

/* A count: "1,234,567", "2.50", with a sign when asked ("+12", "-0.50"). */
static const char *count_str(double v, bool sign, char *buf, size_t len)
{
	double a = fabs(v), whole = floor(a + 0.005);
	char g[32];

	grouped((unsigned long long)whole, g, sizeof(g));
	if (fabs(a - llround(a)) < 1e-9)
		snprintf(buf, len, "%s%s", v < 0 ? "-" : sign && v > 0 ? "+" : "", g);
	else
		snprintf(buf, len, "%s%s.%02d", v < 0 ? "-" : sign ? "+" : "", g,
			 (int)llround((a - floor(a)) * 100) % 100);
	return buf;
}

/*
 * --diff: how much a frame's time changed, AFTER less BEFORE: red for
 * growth, blue for shrinking, deeper with the change (against the largest
 * change of any frame, as flamegraph.pl does); a change under 0.5 % of
 * the larger total is no change (near white); a frame BEFORE never had is
 * purple, whatever its size.
 */
static double max_delta, noise;

static void diff_colour(const struct node *n, char *buf, size_t len)
{
	double d = n->total - n->before, r;
	int c;

	if (n != &root && n->before <= 0) {
		snprintf(buf, len, "rgb(170,70,220)");
		return;
	}
	if (fabs(d) <= noise || max_delta <= 0) {
		snprintf(buf, len, "rgb(235,235,235)");
		return;
	}
	r = fabs(d) / max_delta;
	c = 210 - (int)(170 * (r > 1 ? 1 : r));
	if (d > 0)
		snprintf(buf, len, "rgb(255,%d,%d)", c, c);
	else
		snprintf(buf, len, "rgb(%d,%d,255)", c, c);
}

static double before_raw;	/* BEFORE's total as read */

static void diff_scale(void)
{
	double f = 1;
	size_t i;
	struct node *n;

	before_raw = root.before;
	if (cfg.normalize && root.before > 0)
		f = root.total / root.before;
	root.before *= f;
	for (i = 0; i < hsize; i++)
		for (n = htab[i]; n; n = n->hnext) {
			n->before *= f;
			if (n->total > 0 && fabs(n->total - n->before) > max_delta)
				max_delta = fabs(n->total - n->before);
		}
	noise = 0.005 * (root.total > root.before ? root.total : root.before);
}

/* A stable colour per name, so a function keeps its colour across graphs. */
static void colour(const struct node *n, char *buf, size_t len)
{
	uint32_t h = 2166136261u;
	double v1, v2, v3;
	size_t i;

	for (i = 0; i < n->len; i++) {
		h ^= (unsigned char)n->name[i];
		h *= 16777619u;
	}
	v1 = (h & 0xff) / 255.0;
	v2 = ((h >> 8) & 0xff) / 255.0;
	v3 = ((h >> 16) & 0xff) / 255.0;
	switch (n->kind) {
	case K_KERNEL:	/* cool: blues and aquas */
		snprintf(buf, len, "rgb(%d,%d,%d)", 50 + (int)(70 * v1), 150 + (int)(70 * v2),
			 200 + (int)(50 * v3));
		break;
	case K_PYTHON:	/* greens */
		snprintf(buf, len, "rgb(%d,%d,%d)", 60 + (int)(60 * v1), 170 + (int)(60 * v2),
			 60 + (int)(60 * v3));
		break;
	case K_DELIM:
		snprintf(buf, len, "rgb(200,200,200)");
		break;
	case K_MISSED:
		snprintf(buf, len, "rgb(150,150,150)");
		break;
	case K_ROOT:
		snprintf(buf, len, "rgb(225,205,160)");
		break;
	default:	/* warm: reds, oranges, yellows (flamegraph.pl's "hot") */
		snprintf(buf, len, "rgb(%d,%d,%d)", 205 + (int)(50 * v3), (int)(230 * v1),
			 (int)(55 * v2));
		break;
	}
}

struct svg {
	FILE *f;
	int height;
	double y0;	/* top of the row of the root frame */
};

static double frame_y(const struct svg *g, int depth)
{
	return cfg.inverted ? g->y0 + depth * FRAME_H : g->y0 - depth * FRAME_H;
}

/*
 * The label: the whole name, or a prefix and "..", in the same way as the
 * script's fit(). A frame too narrow for three characters gets no <text>
 * at all (most frames of a big graph): the script adds one on zoom.
 */
static void put_label(FILE *f, const struct node *n, double x, double y, double w)
{
	double max = floor((w - 6) / (FONT_SIZE * FONT_WIDTH));
	size_t chars;

	if (max < 3)
		return;
	fprintf(f, "<text x=\"%.2f\" y=\"%.0f\">", x + 3, y + FRAME_H - 4.5);
	chars = xml_chars(n->name, n->len);
	if (chars <= max) {
		xml_put(f, n->name, n->len, SIZE_MAX);
	} else {
		xml_put(f, n->name, n->len, (size_t)max - 2);
		fputs("..", f);
	}
	fputs("</text>", f);
}

static void put_frame(struct node *n, int depth, void *ctx)
{
	struct svg *g = ctx;
	double x = XPAD + n->off * scale, w = n->total * scale, y = frame_y(g, depth);
	char buf[48], fill[48];

	if (cfg.diff)
		diff_colour(n, fill, sizeof(fill));
	else
		colour(n, fill, sizeof(fill));
	fprintf(g->f, "<g class=\"f%s\"><title>", cfg.diff && n != &root && n->before <= 0 ?
		" new" : "");
	xml_put(g->f, n->name, n->len, SIZE_MAX);
	fprintf(g->f, " (%s ", count_str(n->total, false, buf, sizeof(buf)));
	xml_str(g->f, cfg.countname);
	if (cfg.diff) {
		fprintf(g->f, ", before %s", count_str(n->before, false, buf, sizeof(buf)));
		fprintf(g->f, ", delta %s", count_str(n->total - n->before, true, buf, sizeof(buf)));
		if (n->before > 0)
			fprintf(g->f, " %+.1f%%", (n->total - n->before) * 100.0 / n->before);
		else
			fputs(" only in after", g->f);
	}
	fprintf(g->f, ", %.2f%%)</title><rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%d\" "
		"fill=\"%s\" rx=\"2\" ry=\"2\"/>",
		n->total * 100.0 / root.total, x, y, w, FRAME_H - 1, fill);
	put_label(g->f, n, x, y, w);
	fputs("</g>\n", g->f);
}

/*
 * The script and the style live in tools/flamegraph/flamegraph.{js,css};
 * the build embeds them (xxd -i) as flamegraph_js and flamegraph_css.
 */
#include "flamegraph_assets.h"

static double legend_width(const char *label)
{
	return 16 + (strlen(label) + 2) * FONT_SIZE * FONT_WIDTH;
}

/* f NULL: only advance x (the legend's width) */
static void legend_item(FILE *f, double *x, int y, const char *fill, const char *label)
{
	if (f)
		fprintf(f, "<rect x=\"%.0f\" y=\"%d\" width=\"12\" height=\"12\" rx=\"2\" "
			"fill=\"%s\" stroke=\"rgb(150,150,150)\" stroke-width=\"0.5\"/>"
			"<text x=\"%.0f\" y=\"%d\">%s</text>\n", *x, y - 10, fill, *x + 16, y, label);
	*x += legend_width(label);
}

/* The legend: what the colours mean. */
static void put_legend(FILE *f, double *x, int y)
{
	if (cfg.diff) {
		legend_item(f, x, y, "rgb(255,40,40)", "grew");
		legend_item(f, x, y, "rgb(40,40,255)", "shrank");
		legend_item(f, x, y, "rgb(235,235,235)", "no change");
		legend_item(f, x, y, "rgb(170,70,220)", "only in after");
	} else {
		legend_item(f, x, y, "rgb(235,115,20)", "user");
		if (in.python_seen)
			legend_item(f, x, y, "rgb(90,200,90)", "Python");
		if (in.kernel_seen)
			legend_item(f, x, y, "rgb(85,185,225)", "kernel");
	}
}

/* The subtitle's text: totals, and the windows picked. */
static size_t subtitle(char *sub, size_t len)
{
	char buf[48], buf2[48];
	size_t n = 0;

#define SUB(...) (n += snprintf(sub + n, n < len ? len - n : 0, __VA_ARGS__))
	SUB("%s%s %s", cfg.diff ? "after: " : "", count_str(root.total, false, buf, sizeof(buf)),
	    cfg.countname);
	SUB(" in %s stacks", grouped(in.lines - in.before_lines, buf, sizeof(buf)));
	if (cfg.diff) {
		SUB("; before: %s", count_str(before_raw, false, buf, sizeof(buf)));
		if (cfg.normalize)
			SUB(" scaled to %s", count_str(root.before, false, buf, sizeof(buf)));
	}
	if (in.picked && (cfg.from || cfg.to))
		SUB("; windows %s to %s", window__iso(buf, sizeof(buf), in.first_ms),
		    window__iso(buf2, sizeof(buf2), in.last_ms));
#undef SUB
	return n < len ? n : len - 1;
}

/* --diff: frames only in BEFORE, the largest first (they have no width in AFTER) */
#define GONE_MAX	10

static int cmp_before(const void *a, const void *b)
{
	const struct node *x = *(const struct node **)a, *y = *(const struct node **)b;

	return x->before < y->before ? 1 : x->before > y->before ? -1 : 0;
}

static size_t gone_frames(struct node **out, size_t max, size_t *all)
{
	struct node **v = NULL, *n;
	size_t i, nr = 0, cap = 0;

	for (i = 0; i < hsize; i++)
		for (n = htab[i]; n; n = n->hnext) {
			if (n->total > 0 || n->before <= 0 || n->parent->total <= 0)
				continue;
			if (nr == cap) {
				cap = cap ? cap * 2 : 64;
				v = realloc(v, cap * sizeof(*v));
				if (!v)
					oom();
			}
			v[nr++] = n;
		}
	if (nr)
		qsort(v, nr, sizeof(*v), cmp_before);
	*all = nr;
	if (nr > max)
		nr = max;
	for (i = 0; i < nr; i++)
		out[i] = v[i];
	free(v);
	return nr;
}

/* "a;b;name", root first, the whole path of a frame (escaped) */
static void put_path(FILE *f, const struct node *n)
{
	const struct node *p[64];
	int d = 0;

	for (; n && n != &root && d < 64; n = n->parent)
		p[d++] = n;
	if (n && n != &root)
		fputs("..;", f);
	while (d--) {
		xml_put(f, p[d]->name, p[d]->len, SIZE_MAX);
		if (d)
			fputc(';', f);
	}
}

static void write_svg(FILE *f, const struct stats *st)
{
	struct svg g = { .f = f };
	struct node *gone[GONE_MAX];
	size_t nr_gone = 0, all_gone = 0, i;
	int w = cfg.width, top = YPAD_TOP, legend_y = 42;
	char sub[768];
	size_t sub_len = subtitle(sub, sizeof(sub));
	double legend_end = XPAD;
	double x = XPAD;
	char buf[48];

	/* the legend, left of the centred subtitle; on a row of its own below it
	 * when they would overlap */
	put_legend(NULL, &legend_end, 0);
	if (w / 2.0 - xml_chars(sub, sub_len) * FONT_SIZE * FONT_WIDTH / 2 < legend_end + 10) {
		legend_y += FRAME_H;
		top += FRAME_H;
	}
	if (cfg.diff) {
		nr_gone = gone_frames(gone, GONE_MAX, &all_gone);
		if (nr_gone)
			top += (nr_gone + 1) * FRAME_H;
	}
	g.height = top + (st->max_depth + 1) * FRAME_H + YPAD_BOTTOM;
	g.y0 = cfg.inverted ? top : g.height - YPAD_BOTTOM - FRAME_H;

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"xmlns=\"http://www.w3.org/2000/svg\" onload=\"init(evt)\">\n"
		"<!-- Generated by " TOOL ": a flame graph of folded stacks. Frames are in"
		" depth-first order; a frame's width is its count. -->\n",
		w, g.height, w, g.height);
	fprintf(f, "<defs><linearGradient id=\"bg\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">"
		"<stop stop-color=\"#eeeeee\" offset=\"5%%\"/><stop stop-color=\"#eeeeb0\" "
		"offset=\"95%%\"/></linearGradient></defs>\n");
	fputs("<style type=\"text/css\"><![CDATA[\n", f);
	fwrite(flamegraph_css, 1, flamegraph_css_len, f);
	fputs("]]></style>\n", f);
	fprintf(f, "<script type=\"text/ecmascript\"><![CDATA[\n"
		"var fg = { W: %d, xpad: %d, fh: %d, fs: %d, fw: %.2f, y0: %.0f };\n",
		w, XPAD, FRAME_H, FONT_SIZE, FONT_WIDTH, g.y0);
	fwrite(flamegraph_js, 1, flamegraph_js_len, f);
	fputs("]]></script>\n", f);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"url(#bg)\"/>\n",
		w, g.height);
	fprintf(f, "<text id=\"title\" x=\"%.1f\" y=\"22\">", w / 2.0);
	xml_str(f, cfg.title ? cfg.title : cfg.diff ? "Differential Flame Graph" :
		cfg.inverted ? "Icicle Graph" : "Flame Graph");
	fputs("</text>\n", f);
	fprintf(f, "<text id=\"subtitle\" x=\"%.1f\" y=\"42\">", w / 2.0);
	xml_put(f, sub, sub_len, SIZE_MAX);
	fputs("</text>\n", f);
	put_legend(f, &x, legend_y);
	if (nr_gone) {
		fprintf(f, "<g id=\"gone\"><text x=\"%d\" y=\"%d\">Only in before (not drawn), "
			"%zu of %zu:</text>\n", XPAD, legend_y + 18 + FRAME_H - 4, nr_gone, all_gone);
		for (i = 0; i < nr_gone; i++) {
			fprintf(f, "<text class=\"gone\" x=\"%d\" y=\"%zu\">", XPAD + 16,
				legend_y + 18 + (i + 2) * FRAME_H - 4);
			put_path(f, gone[i]);
			fprintf(f, " (%s ", count_str(gone[i]->before, false, buf, sizeof(buf)));
			xml_str(f, cfg.countname);
			fputs(")</text>\n", f);
		}
		fputs("</g>\n", f);
	}
	fprintf(f, "<text id=\"unzoom\" class=\"hide\" x=\"%d\" y=\"22\">Reset Zoom</text>\n"
		"<text id=\"search\" x=\"%d\" y=\"22\">Search</text>\n"
		"<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n"
		"<text id=\"matched\" x=\"%d\" y=\"%d\"> </text>\n",
		XPAD, w - XPAD, XPAD, g.height - 12, w - XPAD, g.height - 12);
	fputs("<g id=\"frames\">\n", f);
	walk(put_frame, &g);
	fputs("</g>\n</svg>\n", f);
}

int main(int argc, char **argv)
{
	static const struct argp argp = {
		.options = options,
		.parser = parse_arg,
		.args_doc = "[FILE...]",
		.doc = doc,
	};
	struct stats st = { 0 };
	int i;

	msg__init(TOOL);
	files = calloc(argc + 1, sizeof(*files));
	if (!files)
		oom();
	opts__parse(&argp, argc, argv, NULL);
	if (!nr_files) {
		if (isatty(STDIN_FILENO))
			msg__usage("no input: pipe folded stacks in, or name FILEs");
		files[nr_files++] = "-";
	}
	rehash();
	for (i = 0; i < nr_files; i++) {
		bool std = !strcmp(files[i], "-");
		FILE *f = std ? stdin : fopen(files[i], "r");
		int err;

		if (!f) {
			msg__fail(errno, "open %s", files[i]);
			return EXIT_FAIL;
		}
		/* --diff BEFORE AFTER */
		in.reading_before = cfg.diff && i == 0;
		err = read_input(f, std ? "<stdin>" : files[i]);
		if (!std)
			fclose(f);
		if (err)
			return EXIT_FAIL;
		if (in.reading_before && root.before <= 0) {
			msg__err("%s (BEFORE) has no stacks with a count above 0", files[i]);
			return EXIT_FAIL;
		}
	}
	in.reading_before = false;
	if (in.malformed)
		msg__warn("%llu malformed line%s skipped (first at %s; expected \"frame;frame;... count\")",
			  in.malformed, in.malformed == 1 ? "" : "s", in.first_bad);
	if (cfg.folded_out) {
		if (fflush(stdout) || ferror(stdout)) {
			msg__fail(errno ? errno : EIO, "write the stacks");
			return EXIT_FAIL;
		}
		return EXIT_OK;
	}
	if (in.lines == in.before_lines) {
		msg__err("no stacks in the input: expected folded lines such as \"comm;main;foo 12\" "
			 "(offcputime-lite -f)");
		return EXIT_FAIL;
	}
	if (!root.total) {
		msg__err("every count in the input is 0: nothing to draw");
		return EXIT_FAIL;
	}

	scale = (double)(cfg.width - 2 * XPAD) / root.total;
	if (cfg.diff)
		diff_scale();
	sort_children();
	walk(count_frame, &st);
	write_svg(stdout, &st);
	if (fflush(stdout) || ferror(stdout)) {
		msg__fail(errno ? errno : EIO, "write the SVG");
		return EXIT_FAIL;
	}
	/* Browsers take seconds per 100,000 frames; most are sub-pixel slivers. */
	if (st.frames > 50000) {
		char buf[32];

		msg__hint("%s frames drawn: --minwidth 1 makes an SVG that opens much faster",
			  grouped(st.frames, buf, sizeof(buf)));
	}
	return EXIT_OK;
}
