// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "run/loop.h"
#include "run/loss.h"
#include "run/msg.h"
#include "run/opts.h"
#include "load/tool.h"
#include "serve/prom.h"
#include "serve/serve.h"
#include "run/version.h"

int prom_max_values = PROM_DEFAULT_MAX_VALUES;
__u64 prom_series_dropped;
/* Folded values remembered (so each counts once), per label, beyond which each fold counts. */
#define MAX_REMEMBERED	4096

/* The length of the valid UTF-8 sequence at s (n bytes left), or 0; 0 for
 * C1 controls too (U+0080-U+009F: U+009B starts a terminal's escape). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	unsigned int cp;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	len = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	if (n < len)
		return 0;
	cp = s[0] & (0x7f >> len);
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* no C1 controls, overlong forms or surrogates */
	if (cp < 0xa0 || (len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/*
 * A label value as the text format wants it (valid UTF-8, with \, " and
 * newline escaped), one to one: valid UTF-8 passes, a backslash becomes
 * \\ and any other byte (control, invalid UTF-8) \xNN in the value, so two
 * names that differ in any byte (cgroup or task names other users choose)
 * never share a series.
 */
static void esc_value(struct sbuf *b, const char *v)
{
	const unsigned char *p = (const unsigned char *)v;
	size_t n = strlen(v), u;

	while (n) {
		if (*p == '\\' || *p == '"') {
			/* the value's \ is \\, written \\\\; its " is written \" */
			sbuf__putn(b, *p == '\\' ? "\\\\\\\\" : "\\\"", *p == '\\' ? 4 : 2);
			p++, n--;
		} else if (*p >= 0x20 && *p < 0x7f) {
			sbuf__putn(b, (const char *)p, 1);
			p++, n--;
		} else if ((u = utf8_len(p, n))) {
			sbuf__putn(b, (const char *)p, u);
			p += u, n -= u;
		} else {
			/* the value's \xNN, its backslash written \\ */
			sbuf__printf(b, "\\\\x%02x", *p);
			p++, n--;
		}
	}
}

/* The value kept for label i: itself when known or room is left, else "other". */
static const char *cap_value(struct prom_family *f, int i, const char *v)
{
	struct prom_values *pv = &f->vals[i];
	char **nv;
	int j;

	for (j = 0; j < pv->n; j++)
		if (!strcmp(pv->v[j], v))
			return j < pv->kept ? v : "other";
	if (pv->kept >= prom_max_values && pv->n - pv->kept >= MAX_REMEMBERED) {
		prom_series_dropped++;
		return "other";
	}
	nv = realloc(pv->v, (pv->n + 1) * sizeof(*nv));
	if (!nv)
		return "other";
	pv->v = nv;
	pv->v[pv->n] = strdup(v);
	if (!pv->v[pv->n])
		return "other";
	/* kept values come first: a value once kept stays kept */
	if (pv->kept < prom_max_values) {
		char *t = pv->v[pv->kept];

		pv->v[pv->kept] = pv->v[pv->n];
		pv->v[pv->n] = t;
		pv->kept++;
		pv->n++;
		return v;
	}
	pv->n++;
	prom_series_dropped++;
	return "other";
}

struct prom_series *prom__series(struct prom_family *f, const char *const *values)
{
	struct sbuf labels = { 0 };
	int i;

	for (i = 0; i < PROM_MAX_LABELS && f->label[i]; i++) {
		const char *v = f->capped[i] ? cap_value(f, i, values[i]) : values[i];

		sbuf__printf(&labels, "%s%s=\"", i ? "," : "", f->label[i]);
		esc_value(&labels, v);
		sbuf__putn(&labels, "\"", 1);
	}
	sbuf__putn(&labels, "", 0);	/* a family without labels has "" */
	if (labels.err)
		goto dropped;
	for (i = 0; i < f->n; i++)
		if (!strcmp(f->s[i].labels, labels.p)) {
			sbuf__free(&labels);
			return &f->s[i];
		}
	if (f->n == f->alloc) {
		int alloc = f->alloc ? f->alloc * 2 : 8;
		struct prom_series *s = realloc(f->s, alloc * sizeof(*s));

		if (!s)
			goto dropped;
		f->s = s;
		f->alloc = alloc;
	}
	memset(&f->s[f->n], 0, sizeof(f->s[0]));
	f->s[f->n].labels = labels.p;	/* the series owns it */
	return &f->s[f->n++];
dropped:
	/* no memory: the sample is left out, and counted */
	sbuf__free(&labels);
	prom_series_dropped++;
	return NULL;
}

void prom__hist_add(struct prom_series *s, const struct hist *h)
{
	for (int k = 0; k < HIST_SLOTS; k++)
		s->slots[k] += h->slots[k];
	s->sum_ns += h->sum_ns;
}

void prom__free(struct prom_family *f)
{
	for (int i = 0; i < f->n; i++)
		free(f->s[i].labels);
	for (int i = 0; i < PROM_MAX_LABELS; i++) {
		for (int j = 0; j < f->vals[i].n; j++)
			free(f->vals[i].v[j]);
		free(f->vals[i].v);
	}
	free(f->s);
	memset(f->vals, 0, sizeof(f->vals));
	f->s = NULL;
	f->n = f->alloc = 0;
}

void prom__zero(struct prom_family *f)
{
	for (int i = 0; i < f->n; i++)
		f->s[i].value = 0;
}

const char *prom__le(int k, char *buf, size_t len)
{
	unsigned long long us = 1ULL << (k + 1);
	size_t n;

	snprintf(buf, len, "%llu.%06llu", us / 1000000, us % 1000000);
	n = strlen(buf);
	while (n > 1 && buf[n - 1] == '0')
		buf[--n] = 0;
	if (buf[n - 1] == '.')
		buf[n - 1] = 0;
	return buf;
}

void prom__render(struct sbuf *b, const struct prom_family *f)
{
	char le[32];

	if (!f->n)
		return;
	sbuf__printf(b, "# HELP %s %s\n# TYPE %s %s\n", f->name, f->help, f->name,
		     f->type == PROM_HISTOGRAM ? "histogram" : "counter");
	for (int i = 0; i < f->n; i++) {
		const struct prom_series *s = &f->s[i];
		const char *sep = s->labels[0] ? "," : "";
		unsigned long long cum = 0;

		if (f->type == PROM_COUNTER) {
			if (s->labels[0])
				sbuf__printf(b, "%s{%s} %.15g\n", f->name, s->labels, s->value);
			else
				sbuf__printf(b, "%s %.15g\n", f->name, s->value);
			continue;
		}
		for (int k = 0; k < HIST_SLOTS; k++) {
			cum += s->slots[k];
			sbuf__printf(b, "%s_bucket{%s%sle=\"%s\"} %llu\n", f->name, s->labels, sep,
				     prom__le(k, le, sizeof(le)), cum);
		}
		/* +Inf and _count from the same slots: always equal */
		sbuf__printf(b, "%s_bucket{%s%sle=\"+Inf\"} %llu\n", f->name, s->labels, sep, cum);
		if (s->labels[0]) {
			sbuf__printf(b, "%s_sum{%s} %llu.%09llu\n", f->name, s->labels,
				     (unsigned long long)(s->sum_ns / 1000000000),
				     (unsigned long long)(s->sum_ns % 1000000000));
			sbuf__printf(b, "%s_count{%s} %llu\n", f->name, s->labels, cum);
		} else {
			sbuf__printf(b, "%s_sum %llu.%09llu\n", f->name,
				     (unsigned long long)(s->sum_ns / 1000000000),
				     (unsigned long long)(s->sum_ns % 1000000000));
			sbuf__printf(b, "%s_count %llu\n", f->name, cum);
		}
	}
}

/* ---- serving /metrics ------------------------------------------------------ */

static struct {
	void (*render)(struct sbuf *b, void *ctx);
	void *ctx;
	const struct bpflite_loss *loss;
} exp;

static void self_metrics(struct sbuf *b)
{
	static const char *const reasons[] = { "ringbuf", "stack", "map_full", "unended", "missed" };
	__u64 lost[sizeof(reasons) / sizeof(reasons[0])] = { 0 };

	if (exp.loss) {
		lost[0] = exp.loss->events;
		lost[1] = exp.loss->stacks;
		lost[2] = exp.loss->map_full;
		lost[3] = exp.loss->unended;
		lost[4] = loss__missed();
	}
	sbuf__printf(b, "# HELP bpflite_build_info The tool and its version.\n"
		     "# TYPE bpflite_build_info gauge\n"
		     "bpflite_build_info{tool=\"%s\",version=\"%s\"} 1\n", msg_tool, BPFLITE_VERSION);
	sbuf__printf(b, "# HELP bpflite_events_lost_total Events the BPF side could not record, by reason.\n"
		     "# TYPE bpflite_events_lost_total counter\n");
	for (size_t i = 0; i < sizeof(lost) / sizeof(lost[0]); i++)
		sbuf__printf(b, "bpflite_events_lost_total{reason=\"%s\"} %llu\n", reasons[i],
			     (unsigned long long)lost[i]);
	sbuf__printf(b, "# HELP bpflite_series_dropped_total Label values folded into \"other\" by the cardinality cap.\n"
		     "# TYPE bpflite_series_dropped_total counter\n"
		     "bpflite_series_dropped_total %llu\n", (unsigned long long)prom_series_dropped);
}

static void metrics(struct serve_req *r, void *ctx)
{
	struct sbuf *b = serve__body(r);

	(void)ctx;
	exp.render(b, exp.ctx);
	self_metrics(b);
	serve__reply(r, 200, "text/plain; version=0.0.4; charset=utf-8");
}

static void ping_later(struct serve_req *r, void *data)
{
	sbuf__printf(serve__body(r), "pong after %lld ms\n", loop__now_ms() - *(long long *)data);
	serve__reply(r, 200, "text/plain; charset=utf-8");
}

/* GET /debug/ping?seconds=N: answers after N seconds, served from the loop like the rest. */
static void ping(struct serve_req *r, void *ctx)
{
	long long *start, n;

	(void)ctx;
	if (!serve__query_num(r, "seconds", 0, 0, 3600, &n))
		return;
	start = malloc(sizeof(*start));
	if (!start) {
		serve__reply(r, 500, "text/plain; charset=utf-8");
		return;
	}
	*start = loop__now_ms();
	serve__defer(r, n * 1000, ping_later, start, free);
}

enum { OPT_SERVE = 0x4000, OPT_MAX_SERIES };

static error_t parse_prom(int key, char *arg, struct argp_state *state)
{
	(void)state;
	switch (key) {
	case OPT_SERVE:
		serve__parse(arg);
		break;
	case OPT_MAX_SERIES:
		prom_max_values = opts__num(arg, "--max-series", 1, 100000);
		break;
	case ARGP_KEY_END:
		if (serve__spec() && (env.json || env.interval || env.duration))
			msg__usage("--serve runs until a signal and prints nothing: "
				   "it takes no -j, interval or duration");
		return ARGP_ERR_UNKNOWN;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_option prom_options[] = {
	{ "serve", OPT_SERVE, "[HOST:]PORT", 0, "Serve Prometheus metrics over HTTP on HOST (default 127.0.0.1) and PORT; print nothing", 0 },
	{ "max-series", OPT_MAX_SERIES, "N", 0, "With --serve: values kept per growing label (default 64), the rest folded into \"other\"", 0 },
	{ 0 },
};

const struct argp prom__argp = { prom_options, parse_prom, NULL, NULL, NULL, NULL, NULL };

int prom__serve_start(void (*render)(struct sbuf *b, void *ctx), void *ctx,
		      const struct bpflite_loss *loss)
{
	int err;

	exp.render = render;
	exp.ctx = ctx;
	exp.loss = loss;
	err = serve__open();
	if (err)
		return err;
	serve__route("/metrics", "Prometheus metrics (text format 0.0.4)", metrics, NULL);
	serve__route("/debug/ping", "?seconds=N: answers \"pong\" after N seconds", ping, NULL);
	loop__set_wait(serve__wait);
	tool__serving(serve__url());
	return 0;
}

void prom__serve_stop(void)
{
	loop__set_wait(NULL);
	tool__serving(NULL);
	serve__close();
}
