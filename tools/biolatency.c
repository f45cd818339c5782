// SPDX-License-Identifier: GPL-2.0
/*
 * biolatency-lite: summarize block device I/O latency as a histogram.
 * The user side of bpf/biolatency.bpf.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <bpf/bpf.h>
#include "load/maps.h"
#include "load/tool.h"
#include "out/hist.h"
#include "out/json.h"
#include "run/loop.h"
#include "serve/prom.h"
#include "serve/serve.h"
#include "run/timefmt.h"
#include "biolatency.h"
#include "biolatency.skel.h"

#define TOOL "biolatency-lite"
/* Without an interval, stale starts are still aged out this often. */
#define SWEEP_S 10

static struct {
	bool queued, per_disk, per_flags;
	const char *disk;
	__u32 dev;
	__u64 aged;
	unsigned int max_age_s;	/* BIOLAT_MAX_AGE_S; tests lower it */
} cfg;

enum { OPT_DISK = 'd' };

static const char doc[] =
"Summarize block device I/O latency as a histogram.\n"
"\v"
"EXAMPLES:\n"
"    biolatency-lite            # summarize block I/O latency as a histogram\n"
"    biolatency-lite 1 10       # print 1 second summaries, 10 times\n"
"    biolatency-lite -mT 1      # 1s summaries, milliseconds, and timestamps\n"
"    biolatency-lite -Q         # include OS queued time in I/O time\n"
"    biolatency-lite -D         # show each disk device separately\n"
"    biolatency-lite -F         # show I/O flags separately\n"
"    biolatency-lite -d sdc     # trace sdc only\n"
"    biolatency-lite -c /sys/fs/cgroup/unified/app  # issued by this cgroup\n"
"    biolatency-lite -j 1 5     # five 1s summaries as NDJSON\n"
"    biolatency-lite --serve 9301  # Prometheus metrics on 127.0.0.1:9301/metrics\n";

static const struct argp_option options[] = {
	{ "queued", 'Q', NULL, 0, "Include OS queued time in I/O time", 0 },
	{ "disks", 'D', NULL, 0, "Print a histogram per disk device", 0 },
	{ "flags", 'F', NULL, 0, "Print a histogram per set of I/O flags", 0 },
	{ "disk", OPT_DISK, "DISK", 0, "Trace this disk only (a name in /sys/block, or its /dev path)", 0 },
	{ 0 },
};

/*
 * The dev_t (kernel form) of the disk named name (as in /sys/block), or of
 * the block device node at path name (/dev/sdc, /dev/disk/by-id/...); 0 if
 * none. *partition tells whether it is a partition.
 */
static __u32 disk_dev(const char *name, bool *partition)
{
	unsigned int maj, min;
	char path[PATH_MAX];
	struct stat st;
	FILE *f;
	int n;

	if (strchr(name, '/')) {
		if (stat(name, &st) || !S_ISBLK(st.st_mode))
			return 0;
		maj = major(st.st_rdev);
		min = minor(st.st_rdev);
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/partition", maj, min);
		*partition = !access(path, F_OK);
		return maj << BIO_MINORBITS | min;
	}
	if (!*name || !strcmp(name, ".") || !strcmp(name, ".."))
		return 0;
	snprintf(path, sizeof(path), "/sys/class/block/%s/partition", name);
	*partition = !access(path, F_OK);
	snprintf(path, sizeof(path), "/sys/class/block/%s/dev", name);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fscanf(f, "%u:%u", &maj, &min);
	fclose(f);
	return n == 2 ? maj << BIO_MINORBITS | min : 0;
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	bool partition = false;

	(void)state;
	switch (key) {
	case 'Q':
		cfg.queued = true;
		break;
	case 'D':
		cfg.per_disk = true;
		break;
	case 'F':
		cfg.per_flags = true;
		break;
	case OPT_DISK:
		cfg.disk = arg;
		cfg.dev = disk_dev(arg, &partition);
		if (!cfg.dev) {
			msg__err("unknown disk '%s'", arg);
			msg__hint("give a name listed in /sys/block (lsblk -d lists them) or a block device path");
			exit(EXIT_USAGE);
		}
		if (partition)
			msg__usage("'%s' is a partition: give its disk (requests are per disk)", arg);
		break;
	case ARGP_KEY_END:
		if (cfg.per_disk && cfg.per_flags)
			msg__usage("-D and -F are mutually exclusive");
		if (serve__spec() && (cfg.per_disk || cfg.per_flags || env.milliseconds))
			msg__usage("--serve takes no -D, -F or -m (metrics are per device and operation, in seconds)");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* Disk names, cached: a disk seen once keeps its name after it is gone. */
static struct {
	__u32 dev;
	char name[32];
} names[64];
static int nr_names;

static const char *disk_name(__u32 dev)
{
	static char tmp[32];
	char path[64], line[128];
	int i, slot;
	FILE *f;

	for (i = 0; i < nr_names; i++)
		if (names[i].dev == dev)
			return names[i].name;
	slot = nr_names < 64 ? nr_names++ : (int)(dev % 64);
	names[slot].dev = dev;
	snprintf(names[slot].name, sizeof(names[slot].name), "%u:%u", dev >> BIO_MINORBITS,
		 dev & ((1u << BIO_MINORBITS) - 1));
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/uevent", dev >> BIO_MINORBITS,
		 dev & ((1u << BIO_MINORBITS) - 1));
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "DEVNAME=", 8)) {
			line[strcspn(line, "\n")] = 0;
			snprintf(names[slot].name, sizeof(names[slot].name), "%.31s", line + 8);
			break;
		}
	}
	if (f)
		fclose(f);
	snprintf(tmp, sizeof(tmp), "%s", names[slot].name);
	return tmp;
}

/* bcc's flags_print(): "Sync-Write", "ReadAhead-Read", ... */
static const char *flags_name(__u32 key, char *buf, size_t len)
{
	static const char *const ops[] = {
		[BIO_OP_READ] = "Read", [BIO_OP_WRITE] = "Write", [BIO_OP_FLUSH] = "Flush",
		[BIO_OP_DISCARD] = "Discard", [BIO_OP_SECURE_ERASE] = "SecureErase",
		[BIO_OP_ZONE_RESET] = "ZoneReset", [BIO_OP_WRITE_SAME] = "WriteSame",
		[BIO_OP_WRITE_ZEROES] = "WriteZeros", [BIO_OP_ZONE_APPEND] = "ZoneAppend",
		[BIO_OP_ZONE_OPEN] = "ZoneOpen", [BIO_OP_ZONE_CLOSE] = "ZoneClose",
		[BIO_OP_ZONE_FINISH] = "ZoneFinish", [BIO_OP_ZONE_RESET_ALL] = "ZoneResetAll",
		[BIO_OP_DRV_IN] = "DrvIn", [BIO_OP_DRV_OUT] = "DrvOut",
	};
	/* bcc prepends in this order, so the last one is printed first */
	static const struct { __u32 bit; const char *name; } flags[] = {
		{ BIO_F_SYNC, "Sync" }, { BIO_F_META, "Metadata" },
		{ BIO_F_FUA, "ForcedUnitAccess" }, { BIO_F_PRIO, "Priority" },
		{ BIO_F_NOMERGE, "NoMerge" }, { BIO_F_IDLE, "Idle" },
		{ BIO_F_RAHEAD, "ReadAhead" }, { BIO_F_BACKGROUND, "Background" },
		{ BIO_F_NOWAIT, "NoWait" },
	};
	__u32 op = key & BIO_OP_MASK;
	size_t off = 0;
	int i;

	buf[0] = 0;
	for (i = sizeof(flags) / sizeof(flags[0]) - 1; i >= 0; i--)
		if (key & flags[i].bit && off < len)
			off += snprintf(buf + off, len - off, "%s-", flags[i].name);
	if (off < len)
		snprintf(buf + off, len - off, "%s",
			 op < sizeof(ops) / sizeof(ops[0]) && ops[op] ? ops[op] : "Unknown");
	return buf;
}


static const char *section(void)
{
	return cfg.per_disk ? "disk" : cfg.per_flags ? "flags" : NULL;
}

/* Delete starts older than cfg.max_age_s (256 a sweep): requests that never completed. */
static void sweep(struct biolatency_bpf *skel)
{
	struct bpf_map *m = skel->maps.start;
	int fd = bpf_map__fd(m), old = 0;
	__u64 *keys, ts, now = loop__now_ms() * 1000000ULL;
	__u32 n, i;

	if (map__keys(fd, sizeof(*keys), bpf_map__max_entries(m), (void **)&keys, &n))
		return;
	for (i = 0; i < n && old < 256; i++) {
		if (bpf_map_lookup_elem(fd, &keys[i], &ts) ||
		    now <= ts || now - ts <= cfg.max_age_s * 1000000000ULL)
			continue;
		old++;
		if (!bpf_map_delete_elem(fd, &keys[i]))
			cfg.aged++;
	}
	free(keys);
}


static void print_json(struct hist_entry *e, __u32 n, const char *unit, const char *hms, double div)
{
	struct json j;
	char dev[24];
	__u32 i;

	tool__json_interval(&j, hms);
	json__arr(&j, "histograms");
	for (i = 0; i < n; i++) {
		json__obj(&j, NULL);
		if (cfg.per_disk) {
			json__str(&j, "disk", e[i].label);
			snprintf(dev, sizeof(dev), "%u:%u", e[i].key >> BIO_MINORBITS,
				 e[i].key & ((1u << BIO_MINORBITS) - 1));
			json__str(&j, "dev", dev);
		} else if (cfg.per_flags) {
			json__str(&j, "flags", e[i].label);
		}
		hist__json_log2(&j, &e[i].h, unit, div);
		json__obj_end(&j);
	}
	json__arr_end(&j);
	json__end(&j);
}

/* Sections in name order (disks, flag sets), as bcc prints them. */
static int cmp_label(const void *a, const void *b)
{
	const struct hist_entry *x = a, *y = b;
	int c = strcmp(x->label, y->label);

	return c ? c : (x->key > y->key) - (x->key < y->key);
}

static struct prom_family bio_family = {
	.name = "bpflite_bio_latency_seconds",
	.help = "Block I/O request latency, by disk and operation.",
	.type = PROM_HISTOGRAM,
	.label = { "device", "operation" },
	.capped = { true, false },
};

/* --serve: drain what BPF counted since the last scrape into the running totals. */
static void render(struct sbuf *b, void *ctx)
{
	static const char *const ops[] = { "read", "write", "flush", "discard", "other" };
	struct biolatency_bpf *skel = ctx;
	struct hist_entry *e;
	__u32 n, i;

	if (!hist__drain_entries(bpf_map__fd(skel->maps.hists), BIOLAT_MAX_HISTS, &e, &n)) {
		for (i = 0; i < n; i++) {
			const char *v[2] = { disk_name(e[i].key & ((1u << BIO_OPC_SHIFT) - 1)),
					     ops[e[i].key >> BIO_OPC_SHIFT] };
			struct prom_series *s = prom__series(&bio_family, v);

			if (s)
				prom__hist_add(s, &e[i].h);
		}
		free(e);
	}
	prom__render(b, &bio_family);
}

static int report(void *ctx)
{
	struct biolatency_bpf *skel = ctx;
	const char *unit = env.milliseconds ? "msecs" : "usecs";
	double div = env.milliseconds ? 1e6 : 1e3;
	struct hist_entry *e;
	char hms[16];
	__u32 n, i;
	int err;

	sweep(skel);
	/* no interval: wake every SWEEP_S to age starts out, print at the end */
	if ((!env.interval && !loop_exiting) || serve__spec())
		return 0;

	err = hist__drain_entries(bpf_map__fd(skel->maps.hists), BIOLAT_MAX_HISTS, &e, &n);
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		if (cfg.per_disk)
			snprintf(e[i].label, sizeof(e[i].label), "%s", disk_name(e[i].key));
		else if (cfg.per_flags)
			flags_name(e[i].key, e[i].label, sizeof(e[i].label));
	}
	qsort(e, n, sizeof(*e), cmp_label);

	timefmt__hms(hms, sizeof(hms));
	if (env.json)
		print_json(e, n, unit, hms, div);
	else
		hist__print_interval(stdout, e, n, section(), unit, env.timestamp ? hms : NULL);
	free(e);
	return 0;
}

int main(int argc, char **argv)
{
	struct biolatency_bpf *skel;
	int err;

	msg__init(TOOL);
	opts__module(&prom__argp);
	opts__parse_tool(options, parse_arg, "[interval [count]]", doc,
			 OPTS_CGROUP | OPTS_TIMESTAMP | OPTS_MS | OPTS_INTERVAL, argc, argv);
	/* hidden, for tests: a shorter age limit than 10 minutes */
	cfg.max_age_s = BIOLAT_MAX_AGE_S;
	if (getenv("BPFLITE_BIO_MAX_AGE_S"))
		cfg.max_age_s = strtoul(getenv("BPFLITE_BIO_MAX_AGE_S"), NULL, 10) ?: BIOLAT_MAX_AGE_S;
	skel = TOOL_OPEN(biolatency_bpf);
	if (!skel)
		return EXIT_FAIL;
	if (!cfg.queued) {	/* block_rq_insert only matters for -Q */
		bpf_program__set_autoload(skel->progs.block_rq_insert_btf, false);
		bpf_program__set_autoload(skel->progs.block_rq_insert_raw, false);
	}
	TOOL_SET_FILTERS(skel);
	skel->rodata->cfg_queued = cfg.queued;
	skel->rodata->cfg_ms = env.milliseconds;
	skel->rodata->cfg_dev = cfg.dev;
	skel->rodata->cfg_by = serve__spec() ? BY_DISK_OP : cfg.per_disk ? BY_DISK :
			       cfg.per_flags ? BY_FLAGS : BY_ALL;
	if (!section() && !serve__spec())	/* one histogram */
		bpf_map__set_max_entries(skel->maps.hists, 1);

	err = tool__load_attach(skel->skeleton);
	if (err)
		goto out;
	if (cfg.disk)
		msg__verbose("disk %s: dev %u:%u", cfg.disk, cfg.dev >> BIO_MINORBITS,
			     cfg.dev & ((1u << BIO_MINORBITS) - 1));
	if (serve__spec()) {
		err = prom__serve_start(render, skel, &skel->bss->loss);
		if (err)
			goto out;
	}

	loop__signals();
	tool__tracing("block device I/O");
	err = loop__intervals(env.interval ? env.interval : SWEEP_S, env.interval ? env.count : 0,
			      report, skel);
	loss__report(&skel->bss->loss, env.json);
	if (cfg.aged)
		msg__verbose("%llu requests never completed within %u s (aged out)",
			     (unsigned long long)cfg.aged, cfg.max_age_s);
out:
	prom__serve_stop();
	biolatency_bpf__destroy(skel);
	return err ? EXIT_FAIL : EXIT_OK;
}
