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
#include "json.h"
#include "msg.h"
#include "opts.h"

#define TOOL "flamegraph-lite"

/* Geometry in pixels; the script gets the same numbers. */
#define FRAME_H		16
#define FONT_SIZE	12
#define FONT_WIDTH	0.6	/* advance of a monospace glyph, in ems */
#define XPAD		10
#define YPAD_TOP	60	/* title, subtitle, legend, buttons */
#define YPAD_BOTTOM	34	/* details line */

enum kind { K_USER, K_KERNEL, K_DELIM, K_MISSED, K_ROOT };

static struct {
	const char *title;
	const char *countname;
	int width;
	double minwidth;	/* pixels, or percent of the total */
	bool minwidth_pct;
	bool inverted;
	bool guess_kernel;
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
};

static const char doc[] =
"Turn folded stacks into a self-contained interactive SVG flame graph.\n"
"\n"
"Reads FILEs (or standard input) with one stack per line, root first:\n"
"\"comm;frame;frame count\". Kernel frames are told from user frames by a\n"
"\"_[k]\" suffix or by following a \"-\" frame (offcputime-lite -d); with\n"
"--guess-kernel also from a kernel entry point (entry_SYSCALL_64, ...) on.\n"
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
"                          # omit frames under 0.5% of the total\n";

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
	unsigned long long total;		/* this frame and everything above it */
	unsigned long long rel;			/* offset in its parent, in counts */
	unsigned long long off;			/* offset from the left, in counts */
	enum kind kind;
};

static struct node root = { .name = "all", .len = 3, .kind = K_ROOT };
static struct node **htab;
static size_t hsize, hcount;

static struct {
	unsigned long long lines;	/* stacks read */
	unsigned long long malformed;
	char first_bad[64];		/* where the first malformed line was */
	bool kernel_seen;
} in;

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
	unsigned long long count = 0;
	size_t p, i, start, slen;
	bool kern = false, guessed = false;
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
	if (!p || len - p > 20)
		goto bad;
	for (i = p; i < len; i++) {
		unsigned int d = s[i] - '0';

		if (d > 9 || count > (ULLONG_MAX - d) / 10)
			goto bad;
		count = count * 10 + d;
	}
	slen = p;
	while (slen && is_space(s[slen - 1]))
		slen--;
	/* Empty frames are kept: a task may have set an empty comm. */
	if (!slen)
		goto bad;
	if (count > ULLONG_MAX - root.total)
		goto bad;
	in.lines++;
	if (!count)
		return;

	root.total += count;
	n = &root;
	for (start = 0; start <= slen; start = i + 1) {
		const char *f = s + start;
		size_t flen;
		enum kind kind;

		for (i = start; i < slen && s[i] != ';'; i++)
			;
		flen = i - start;
		if (flen == 1 && f[0] == '-') {
			kind = K_DELIM;		/* user frames before, kernel after */
			kern = true;
		} else if (flen == 2 && f[0] == '-' && f[1] == '-') {
			kind = K_DELIM;		/* offwaketime's waker delimiter */
			kern = false;
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
		} else if (cfg.guess_kernel && (guessed || (guessed = kernel_entry(f, flen)))) {
			kind = K_KERNEL;
		} else {
			kind = K_USER;
		}
		if (kind == K_KERNEL)
			in.kernel_seen = true;
		n = child(n, kind, f, flen);
		n->total += count;
	}
	return;
bad:
	malformed(file, lineno);
}

static int read_input(FILE *f, const char *name)
{
	unsigned long long lineno = 0;
	size_t cap = 0;
	char *line = NULL;
	ssize_t len;

	while ((len = getline(&line, &cap, f)) >= 0)
		parse_line(line, len, name, ++lineno);
	free(line);
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
		unsigned long long rel = 0;

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
	char buf[32], fill[48];

	colour(n, fill, sizeof(fill));
	fputs("<g class=\"f\"><title>", g->f);
	xml_put(g->f, n->name, n->len, SIZE_MAX);
	fprintf(g->f, " (%s ", grouped(n->total, buf, sizeof(buf)));
	xml_str(g->f, cfg.countname);
	fprintf(g->f, ", %.2f%%)</title><rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%d\" "
		"fill=\"%s\" rx=\"2\" ry=\"2\"/>",
		n->total * 100.0 / root.total, x, y, w, FRAME_H - 1, fill);
	put_label(g->f, n, x, y, w);
	fputs("</g>\n", g->f);
}

/*
 * The script: hover details, click to zoom (the clicked frame fills the
 * width, its ancestors stay full width and faded, the rest is hidden),
 * search by regular expression with highlighting and the matched share,
 * Ctrl-F or "/" to search, Escape to reset. It never fetches anything.
 */
static const char script[] =
"\"use strict\";\n"
"var nodes = [], details, matched, unzoombtn, searchbtn, searching = null, zoomed = null;\n"
"function init(evt) {\n"
"	var gs = document.getElementById(\"frames\").children, stack = [], i, f, g;\n"
"	details = document.getElementById(\"details\").firstChild;\n"
"	matched = document.getElementById(\"matched\").firstChild;\n"
"	unzoombtn = document.getElementById(\"unzoom\");\n"
"	searchbtn = document.getElementById(\"search\");\n"
"	for (i = 0; i < gs.length; i++) {\n"
"		g = gs[i];\n"
"		f = { i: i, g: g, r: g.children[1], t: g.children[2] || null, last: i };\n"
"		var title = g.children[0].textContent;\n"
"		f.title = title;\n"
"		f.name = title.substring(0, title.lastIndexOf(\" (\"));\n"
"		f.x0 = parseFloat(f.r.getAttribute(\"x\"));\n"
"		f.w0 = parseFloat(f.r.getAttribute(\"width\"));\n"
"		f.fill = f.r.getAttribute(\"fill\");\n"
"		f.d = Math.round(Math.abs(parseFloat(f.r.getAttribute(\"y\")) - fg.y0) / fg.fh);\n"
"		f.parent = f.d > 0 ? stack[f.d - 1] : null;\n"
"		stack[f.d] = f;\n"
"		g.fgIndex = i;\n"
"		nodes.push(f);\n"
"	}\n"
"	for (i = nodes.length - 1; i > 0; i--) {\n"
"		f = nodes[i];\n"
"		if (f.parent && f.last > f.parent.last)\n"
"			f.parent.last = f.last;\n"
"	}\n"
"	var fr = document.getElementById(\"frames\");\n"
"	fr.addEventListener(\"click\", function (e) {\n"
"		var f = frameOf(e);\n"
"		if (f)\n"
"			zoom(f);\n"
"	});\n"
"	fr.addEventListener(\"mouseover\", function (e) {\n"
"		var f = frameOf(e);\n"
"		if (f)\n"
"			details.nodeValue = \"Function: \" + f.title;\n"
"	});\n"
"	fr.addEventListener(\"mouseout\", function () { details.nodeValue = \" \"; });\n"
"	unzoombtn.addEventListener(\"click\", unzoom);\n"
"	searchbtn.addEventListener(\"click\", function () {\n"
"		if (searching)\n"
"			resetSearch();\n"
"		else\n"
"			searchPrompt();\n"
"	});\n"
"	document.addEventListener(\"keydown\", function (e) {\n"
"		if ((e.ctrlKey && e.key === \"f\") || e.key === \"/\" || e.key === \"F3\") {\n"
"			e.preventDefault();\n"
"			searchPrompt();\n"
"		} else if (e.key === \"Escape\") {\n"
"			resetSearch();\n"
"			unzoom();\n"
"		}\n"
"	});\n"
"}\n"
"function frameOf(e) {\n"
"	for (var n = e.target; n && n.fgIndex === undefined; n = n.parentNode)\n"
"		;\n"
"	return n ? nodes[n.fgIndex] : null;\n"
"}\n"
"function fit(name, w) {\n"
"	var max = Math.floor((w - 6) / (fg.fs * fg.fw));\n"
"	if (max < 3)\n"
"		return \"\";\n"
"	var chars = Array.from(name);\n"
"	return chars.length <= max ? name : chars.slice(0, max - 2).join(\"\") + \"..\";\n"
"}\n"
"function place(f, x, w) {\n"
"	var label = fit(f.name, w);\n"
"	f.g.style.display = \"\";\n"
"	f.r.setAttribute(\"x\", x.toFixed(2));\n"
"	f.r.setAttribute(\"width\", w.toFixed(2));\n"
"	if (!f.t && label) {	/* narrow frames come without a label */\n"
"		f.t = document.createElementNS(\"http://www.w3.org/2000/svg\", \"text\");\n"
"		f.t.setAttribute(\"y\", (parseFloat(f.r.getAttribute(\"y\")) + fg.fh - 4.5).toFixed(0));\n"
"		f.g.appendChild(f.t);\n"
"	}\n"
"	if (f.t) {\n"
"		f.t.setAttribute(\"x\", (x + 3).toFixed(2));\n"
"		f.t.textContent = label;\n"
"	}\n"
"}\n"
"function zoom(z) {\n"
"	var full = fg.W - 2 * fg.xpad, scale = full / z.w0;\n"
"	for (var i = 0; i < nodes.length; i++) {\n"
"		var f = nodes[i];\n"
"		if (i >= z.i && i <= z.last) {\n"
"			place(f, fg.xpad + (f.x0 - z.x0) * scale, f.w0 * scale);\n"
"			f.g.classList.remove(\"parent\");\n"
"		} else if (i < z.i && f.last >= z.i) {\n"
"			place(f, fg.xpad, full);\n"
"			f.g.classList.add(\"parent\");\n"
"		} else {\n"
"			f.g.style.display = \"none\";\n"
"		}\n"
"	}\n"
"	zoomed = z;\n"
"	unzoombtn.classList.toggle(\"hide\", z.i === 0);\n"
"}\n"
"function unzoom() {\n"
"	if (!zoomed)\n"
"		return;\n"
"	for (var i = 0; i < nodes.length; i++) {\n"
"		place(nodes[i], nodes[i].x0, nodes[i].w0);\n"
"		nodes[i].g.classList.remove(\"parent\");\n"
"	}\n"
"	zoomed = null;\n"
"	unzoombtn.classList.add(\"hide\");\n"
"}\n"
"function searchPrompt() {\n"
"	var term = prompt(\"Search for (a regular expression):\", searching || \"\");\n"
"	if (term)\n"
"		search(term);\n"
"}\n"
"function search(term) {\n"
"	var re, i, f, sum = 0, after = -1;\n"
"	try {\n"
"		re = new RegExp(term);\n"
"	} catch (err) {\n"
"		matched.nodeValue = \"Bad expression: \" + err.message;\n"
"		return 0;\n"
"	}\n"
"	for (i = 0; i < nodes.length; i++) {\n"
"		f = nodes[i];\n"
"		if (re.test(f.name)) {\n"
"			f.r.setAttribute(\"fill\", \"rgb(230,0,230)\");\n"
"			if (i > after) {	/* count a match inside a match once */\n"
"				sum += f.w0;\n"
"				after = f.last;\n"
"			}\n"
"		} else {\n"
"			f.r.setAttribute(\"fill\", f.fill);\n"
"		}\n"
"	}\n"
"	searching = term;\n"
"	searchbtn.firstChild.nodeValue = \"Reset Search\";\n"
"	var pct = nodes.length ? 100 * sum / nodes[0].w0 : 0;\n"
"	matched.nodeValue = \"Matched: \" + pct.toFixed(2) + \"%\";\n"
"	return pct;\n"
"}\n"
"function resetSearch() {\n"
"	for (var i = 0; i < nodes.length; i++)\n"
"		nodes[i].r.setAttribute(\"fill\", nodes[i].fill);\n"
"	searching = null;\n"
"	searchbtn.firstChild.nodeValue = \"Search\";\n"
"	matched.nodeValue = \" \";\n"
"}\n";

static const char style[] =
"text { font-family: monospace; font-size: 12px; fill: rgb(0,0,0); }\n"
"#title { text-anchor: middle; font-size: 17px; }\n"
"#subtitle { text-anchor: middle; fill: rgb(100,100,100); }\n"
"#search, #unzoom { cursor: pointer; fill: rgb(40,40,160); }\n"
"#search:hover, #unzoom:hover { text-decoration: underline; }\n"
"#search, #matched { text-anchor: end; }\n"
"#frames text { pointer-events: none; }\n"
"#frames g:hover rect { stroke: rgb(0,0,0); stroke-width: 0.5; cursor: pointer; }\n"
".hide { display: none; }\n"
".parent rect { fill-opacity: 0.5; }\n"
".parent text { fill: rgb(90,90,90); }\n";

static void legend_item(FILE *f, double *x, const char *fill, const char *label)
{
	fprintf(f, "<rect x=\"%.0f\" y=\"32\" width=\"12\" height=\"12\" rx=\"2\" fill=\"%s\"/>"
		"<text x=\"%.0f\" y=\"42\">%s</text>\n", *x, fill, *x + 16, label);
	*x += 16 + (strlen(label) + 2) * FONT_SIZE * FONT_WIDTH;
}

static void write_svg(FILE *f, const struct stats *st)
{
	struct svg g = { .f = f };
	int w = cfg.width;
	double x = XPAD;
	char buf[32];

	g.height = YPAD_TOP + (st->max_depth + 1) * FRAME_H + YPAD_BOTTOM;
	g.y0 = cfg.inverted ? YPAD_TOP : g.height - YPAD_BOTTOM - FRAME_H;

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"xmlns=\"http://www.w3.org/2000/svg\" onload=\"init(evt)\">\n"
		"<!-- Generated by " TOOL ": a flame graph of folded stacks. Frames are in"
		" depth-first order; a frame's width is its count. -->\n",
		w, g.height, w, g.height);
	fprintf(f, "<defs><linearGradient id=\"bg\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">"
		"<stop stop-color=\"#eeeeee\" offset=\"5%%\"/><stop stop-color=\"#eeeeb0\" "
		"offset=\"95%%\"/></linearGradient></defs>\n");
	fprintf(f, "<style type=\"text/css\"><![CDATA[\n%s]]></style>\n", style);
	fprintf(f, "<script type=\"text/ecmascript\"><![CDATA[\n"
		"var fg = { W: %d, xpad: %d, fh: %d, fs: %d, fw: %.2f, y0: %.0f };\n%s]]></script>\n",
		w, XPAD, FRAME_H, FONT_SIZE, FONT_WIDTH, g.y0, script);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"url(#bg)\"/>\n",
		w, g.height);
	fprintf(f, "<text id=\"title\" x=\"%.1f\" y=\"22\">", w / 2.0);
	xml_str(f, cfg.title ? cfg.title : cfg.inverted ? "Icicle Graph" : "Flame Graph");
	fprintf(f, "</text>\n<text id=\"subtitle\" x=\"%.1f\" y=\"42\">%s ", w / 2.0,
		grouped(root.total, buf, sizeof(buf)));
	xml_str(f, cfg.countname);
	fprintf(f, " in %s stacks; click a frame to zoom</text>\n",
		grouped(in.lines, buf, sizeof(buf)));
	legend_item(f, &x, "rgb(235,115,20)", "user");
	if (in.kernel_seen)
		legend_item(f, &x, "rgb(85,185,225)", "kernel");
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
		err = read_input(f, std ? "<stdin>" : files[i]);
		if (!std)
			fclose(f);
		if (err)
			return EXIT_FAIL;
	}
	if (in.malformed)
		msg__warn("%llu malformed line%s skipped (first at %s; expected \"frame;frame;... count\")",
			  in.malformed, in.malformed == 1 ? "" : "s", in.first_bad);
	if (!in.lines) {
		msg__err("no stacks in the input: expected folded lines such as \"comm;main;foo 12\" "
			 "(offcputime-lite -f)");
		return EXIT_FAIL;
	}
	if (!root.total) {
		msg__err("every count in the input is 0: nothing to draw");
		return EXIT_FAIL;
	}

	scale = (double)(cfg.width - 2 * XPAD) / root.total;
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
