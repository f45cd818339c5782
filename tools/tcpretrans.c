// SPDX-License-Identifier: GPL-2.0
/*
 * tcpretrans-lite: trace TCP retransmits, one line per retransmit, or a
 * count per flow (-c). The user side of bpf/tcpretrans.bpf.c.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include "load/maps.h"
#include "load/tool.h"
#include "out/json.h"
#include "run/loop.h"
#include "serve/prom.h"
#include "serve/serve.h"
#include "run/timefmt.h"
#include "tcpretrans.h"
#include "tcpretrans.skel.h"

#define TOOL "tcpretrans-lite"

static struct {
	bool count, sequence;
	__u16 family;
	__u64 start_ns;
	bool header_done;
} cfg;

static const char doc[] =
"Trace TCP retransmits: one line per retransmitted segment (R>) or SYN-ACK (S>).\n"
"\n"
"PID is whatever task was running when the kernel retransmitted: mostly a\n"
"timer, so often 0 or an unrelated process. Tail loss probes (bcc's -l) are\n"
"not offered: the kernel has no tracepoint for them (bcc uses a kprobe on\n"
"tcp_send_loss_probe). A probe that resends the last segment is reported\n"
"as a retransmit (R>), as the kernel accounts it.\n"
"\v"
"EXAMPLES:\n"
"    tcpretrans-lite        # trace TCP retransmits\n"
"    tcpretrans-lite -c     # count retransmits per flow, print at Ctrl-C\n"
"    tcpretrans-lite -4     # IPv4 only\n"
"    tcpretrans-lite -6     # IPv6 only\n"
"    tcpretrans-lite -s     # show the sequence number of each segment\n"
"    tcpretrans-lite -T     # add seconds since the start\n"
"    tcpretrans-lite -j     # NDJSON, one retransmit per line\n"
"    tcpretrans-lite --serve 9304  # Prometheus counters on 127.0.0.1:9304\n";

static const struct argp_option options[] = {
	{ "count", 'c', NULL, 0, "Count retransmits per flow; print the counts at the end", 0 },
	{ "ipv4", '4', NULL, 0, "Trace IPv4 only", 0 },
	{ "ipv6", '6', NULL, 0, "Trace IPv6 only", 0 },
	{ "sequence", 's', NULL, 0, "Show the sequence number of each segment (SEQ)", 0 },
	{ 0 },
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	(void)arg;
	(void)state;
	switch (key) {
	case 'c':
		cfg.count = true;
		break;
	case '4':
	case '6':
		if (cfg.family)
			msg__usage("-4 and -6 are mutually exclusive");
		cfg.family = key == '4' ? TCPRETRANS_AF_INET : TCPRETRANS_AF_INET6;
		break;
	case 's':
		cfg.sequence = true;
		break;
	case ARGP_KEY_END:
		if (serve__spec() && (cfg.count || cfg.sequence || env.timestamp))
			msg__usage("--serve counts retransmits as metrics: no -c, -s or -T with it");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const char *state_name(unsigned int s)
{
	static const char *const names[] = {
		[1] = "ESTABLISHED", [2] = "SYN_SENT", [3] = "SYN_RECV", [4] = "FIN_WAIT1",
		[5] = "FIN_WAIT2", [6] = "TIME_WAIT", [7] = "CLOSE", [8] = "CLOSE_WAIT",
		[9] = "LAST_ACK", [10] = "LISTEN", [11] = "CLOSING", [12] = "NEW_SYN_RECV",
		[13] = "BOUND_INACTIVE",
	};

	return s < sizeof(names) / sizeof(names[0]) && names[s] ? names[s] : "UNKNOWN";
}

static void addr_str(__u16 family, const __u8 *a, char *buf, size_t len)
{
	if (!inet_ntop(family == TCPRETRANS_AF_INET ? AF_INET : AF_INET6, a, buf, len))
		snprintf(buf, len, "?");
}

static int ip_version(__u16 family)
{
	return family == TCPRETRANS_AF_INET ? 4 : 6;
}

static void print_header(void)
{
	if (env.json || cfg.header_done)
		return;
	cfg.header_done = true;
	if (env.timestamp)
		printf("%-11s ", "TIME(s)");
	printf("%-8s %-7s %-2s %-20s %1s> %-20s %s%s\n", "TIME", "PID", "IP", "LADDR:LPORT", "T",
	       "RADDR:RPORT", cfg.sequence ? "STATE        " : "STATE", cfg.sequence ? "SEQ" : "");
	fflush(stdout);
}

/* --serve: retransmits by IP version and kind, since the start. */
static __u64 served[2][2];

static struct prom_family retrans_family = {
	.name = "bpflite_tcp_retransmits_total",
	.help = "TCP segments (retransmit) and SYN-ACKs (synack) retransmitted.",
	.type = PROM_COUNTER,
	.label = { "family", "type" },
};

static void render(struct sbuf *b, void *ctx)
{
	static const char *const fam[] = { "ipv4", "ipv6" }, *const type[] = { "retransmit", "synack" };

	(void)ctx;
	for (int f = 0; f < 2; f++) {
		for (int t = 0; t < 2; t++) {
			const char *v[2] = { fam[f], type[t] };
			struct prom_series *ps = prom__series(&retrans_family, v);

			if (ps)
				ps->value = served[f][t];
		}
	}
	prom__render(b, &retrans_family);
}

static int on_event(void *ctx, void *data, size_t size)
{
	const struct tcpretrans_event *e = data;
	char la[INET6_ADDRSTRLEN], ra[INET6_ADDRSTRLEN], l[INET6_ADDRSTRLEN + 8],
	     r[INET6_ADDRSTRLEN + 8], hms[16], kind[2] = { (char)e->kind, 0 };
	double rel = e->ts_ns > cfg.start_ns ? (e->ts_ns - cfg.start_ns) / 1e9 : 0;
	struct json j;

	(void)ctx;
	if (size < sizeof(*e))
		return 0;
	if (serve__spec()) {
		served[e->family == TCPRETRANS_AF_INET6][e->kind == TCPRETRANS_KIND_SYNACK]++;
		return 0;
	}
	addr_str(e->family, e->laddr, la, sizeof(la));
	addr_str(e->family, e->raddr, ra, sizeof(ra));
	timefmt__hms(hms, sizeof(hms));
	if (env.json) {
		json__begin(&j, stdout);
		json__str(&j, "type", "retransmit");
		json__fixed(&j, "timestamp", timefmt__epoch(), 6);
		json__str(&j, "time", hms);
		if (env.timestamp)
			json__fixed(&j, "time_s", rel, 6);
		json__uint(&j, "pid", e->tgid);
		json__uint(&j, "ip", ip_version(e->family));
		json__str(&j, "laddr", la);
		json__uint(&j, "lport", e->lport);
		json__str(&j, "t", kind);
		json__str(&j, "raddr", ra);
		json__uint(&j, "rport", e->rport);
		json__str(&j, "state", state_name(e->state));
		json__uint(&j, "seq", e->seq);
		json__end(&j);
		return 0;
	}
	snprintf(l, sizeof(l), "%s:%u", la, e->lport);
	snprintf(r, sizeof(r), "%s:%u", ra, e->rport);
	if (env.timestamp)
		printf("%-11.6f ", rel);
	if (cfg.sequence)
		printf("%-8s %-7u %-2d %-20s %1s> %-20s %-12s %u\n", hms, e->tgid,
		       ip_version(e->family), l, kind, r, state_name(e->state), e->seq);
	else
		printf("%-8s %-7u %-2d %-20s %1s> %-20s %s\n", hms, e->tgid,
		       ip_version(e->family), l, kind, r, state_name(e->state));
	fflush(stdout);
	return 0;
}

struct flow_count {
	struct tcpretrans_flow f;
	__u64 n;
	char l[INET6_ADDRSTRLEN + 8], r[INET6_ADDRSTRLEN + 8];
};

static int cmp_count(const void *a, const void *b)
{
	const struct flow_count *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;	/* bcc: ascending, the busiest last */
	return strcmp(x->l, y->l);
}

/* -c: the counts per flow, in columns as wide as their widest address. */
static int print_counts(struct tcpretrans_bpf *skel)
{
	int fd = bpf_map__fd(skel->maps.counts), wl = 11, wr = 11, i, n = 0, err;
	struct tcpretrans_flow *keys;
	struct flow_count *c;
	char a[INET6_ADDRSTRLEN];
	struct json j;
	__u32 nk, k;

	err = map__keys(fd, sizeof(*keys), TCPRETRANS_MAX_FLOWS, (void **)&keys, &nk);
	if (err)
		return err;
	c = calloc(nk ? nk : 1, sizeof(*c));
	if (!c) {
		free(keys);
		return -ENOMEM;
	}
	for (k = 0; k < nk; k++) {
		struct tcpretrans_flow key = keys[k];

		if (bpf_map_lookup_elem(fd, &key, &c[n].n))
			continue;
		c[n].f = key;
		addr_str(key.family, key.laddr, a, sizeof(a));
		snprintf(c[n].l, sizeof(c[n].l), "%s:%u", a, key.lport);
		addr_str(key.family, key.raddr, a, sizeof(a));
		snprintf(c[n].r, sizeof(c[n].r), "%s:%u", a, key.rport);
		if ((int)strlen(c[n].l) > wl)
			wl = strlen(c[n].l);
		if ((int)strlen(c[n].r) > wr)
			wr = strlen(c[n].r);
		n++;
	}
	free(keys);
	qsort(c, n, sizeof(*c), cmp_count);
	if (!env.json)
		printf("\n%-*s  %-*s  %s\n", wl, "LADDR:LPORT", wr, "RADDR:RPORT", "RETRANSMITS");
	for (i = 0; i < n; i++) {
		if (!env.json) {
			printf("%-*s  %-*s  %llu\n", wl, c[i].l, wr, c[i].r, (unsigned long long)c[i].n);
			continue;
		}
		json__begin(&j, stdout);
		json__str(&j, "type", "count");
		json__uint(&j, "ip", ip_version(c[i].f.family));
		addr_str(c[i].f.family, c[i].f.laddr, a, sizeof(a));
		json__str(&j, "laddr", a);
		json__uint(&j, "lport", c[i].f.lport);
		addr_str(c[i].f.family, c[i].f.raddr, a, sizeof(a));
		json__str(&j, "raddr", a);
		json__uint(&j, "rport", c[i].f.rport);
		json__uint(&j, "retransmits", c[i].n);
		json__end(&j);
	}
	fflush(stdout);
	free(c);
	return 0;
}

int main(int argc, char **argv)
{
	struct ring_buffer *rb = NULL;
	struct tcpretrans_bpf *skel;
	int err;

	msg__init(TOOL);
	opts__module(&prom__argp);
	opts__parse_tool(options, parse_arg, NULL, doc, OPTS_TIMESTAMP, argc, argv);
	skel = TOOL_OPEN(tcpretrans_bpf);
	if (!skel)
		return EXIT_FAIL;
	skel->rodata->cfg_family = cfg.family;
	skel->rodata->cfg_count = cfg.count;
	if (cfg.count)		/* no events: the smallest ring buffer */
		bpf_map__set_max_entries(skel->maps.events, 4096);
	else			/* no counts: one entry */
		bpf_map__set_max_entries(skel->maps.counts, 1);

	err = tool__load_attach(skel->skeleton);
	if (err)
		goto out;
	rb = tool__ringbuf(skel->maps.events, on_event, NULL);
	if (!rb) {
		err = -errno;
		goto out;
	}

	if (serve__spec()) {
		err = prom__serve_start(render, NULL, &skel->bss->loss);
		if (err)
			goto out;
	}

	loop__signals();
	cfg.start_ns = timefmt__mono_ns();
	tool__tracing("TCP retransmits");
	if (!cfg.count && !serve__spec())
		print_header();
	err = loop__ringbuf(rb, 0, 100, NULL, NULL, NULL);
	if (!err && cfg.count)
		err = print_counts(skel);
	loss__report(&skel->bss->loss, env.json);
	if (skel->bss->failed_attempts)
		msg__verbose("%llu retransmit attempts failed locally (nothing sent; not shown)",
			     (unsigned long long)skel->bss->failed_attempts);
out:
	prom__serve_stop();
	ring_buffer__free(rb);
	tcpretrans_bpf__destroy(skel);
	return err ? EXIT_FAIL : EXIT_OK;
}
