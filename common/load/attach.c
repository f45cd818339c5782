// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/statfs.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <linux/btf.h>
#include "load/attach.h"
#include "run/msg.h"

#define VMLINUX_BTF "/sys/kernel/btf/vmlinux"
#ifndef TRACEFS_MAGIC
#define TRACEFS_MAGIC 0x74726163
#endif

static const char *mode = "none";

const char *attach__mode(void)
{
	return mode;
}

/*
 * A vmlinux BTF scan just good enough to find typedef ids by name.
 * libbpf's btf__parse() costs ~20 ms here (validation, indexes); this
 * walk costs a few: one read and one pass over the type section.
 */
struct btf_scan {
	char *data;
	size_t len;
	const struct btf_header *hdr;
};

static int btf_scan__open(struct btf_scan *b, const char *path)
{
	size_t cap = 8 << 20, n = 0;
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	memset(b, 0, sizeof(*b));
	if (fd < 0)
		return -errno;
	b->data = malloc(cap);
	while (b->data) {
		if (n == cap) {
			char *p = realloc(b->data, cap *= 2);

			if (!p)
				break;
			b->data = p;
		}
		r = read(fd, b->data + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += r;
	}
	close(fd);
	b->len = n;
	b->hdr = (const struct btf_header *)b->data;
	if (!b->data || n < sizeof(*b->hdr) || b->hdr->magic != BTF_MAGIC ||
	    (size_t)b->hdr->hdr_len + b->hdr->type_off + b->hdr->type_len > n ||
	    (size_t)b->hdr->hdr_len + b->hdr->str_off + b->hdr->str_len > n) {
		free(b->data);
		b->data = NULL;
		return -EINVAL;
	}
	return 0;
}

/* Id of the typedef called name, -ENOENT if none, -EINVAL on unknown kinds. */
static int btf_scan__typedef(const struct btf_scan *b, const char *name)
{
	const char *types = b->data + b->hdr->hdr_len + b->hdr->type_off;
	const char *strs = b->data + b->hdr->hdr_len + b->hdr->str_off;
	size_t off = 0, extra;
	int id = 1;

	while (off + sizeof(struct btf_type) <= b->hdr->type_len) {
		const struct btf_type *t = (const void *)(types + off);
		__u32 vlen = BTF_INFO_VLEN(t->info);

		switch (BTF_INFO_KIND(t->info)) {
		case BTF_KIND_INT: case BTF_KIND_VAR: case BTF_KIND_DECL_TAG:
			extra = 4; break;
		case BTF_KIND_ARRAY:
			extra = sizeof(struct btf_array); break;
		case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_DATASEC:
			extra = vlen * 12; break;
		case BTF_KIND_ENUM: case BTF_KIND_FUNC_PROTO:
			extra = vlen * 8; break;
		case 19:	/* BTF_KIND_ENUM64 */
			extra = vlen * 12; break;
		case BTF_KIND_PTR: case BTF_KIND_FWD: case BTF_KIND_TYPEDEF:
		case BTF_KIND_VOLATILE: case BTF_KIND_CONST: case BTF_KIND_RESTRICT:
		case BTF_KIND_FUNC: case BTF_KIND_FLOAT: case BTF_KIND_TYPE_TAG:
			extra = 0; break;
		default:
			return -EINVAL;
		}
		if (BTF_INFO_KIND(t->info) == BTF_KIND_TYPEDEF && t->name_off < b->hdr->str_len &&
		    !strncmp(strs + t->name_off, name, b->hdr->str_len - t->name_off))
			return id;
		off += sizeof(struct btf_type) + extra;
		id++;
	}
	return -ENOENT;
}

/* 0 when a tp_btf program can be loaded for tracepoint tp, else -errno. */
static int probe_tp_btf(const struct btf_scan *b, const char *tp)
{
	/* r0 = 0; exit */
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	char name[128];
	int id, fd;

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf_scan__typedef(b, name);
	if (id == -EINVAL)	/* a BTF kind newer than us: ask libbpf */
		id = libbpf_find_vmlinux_btf_id(tp, BPF_TRACE_RAW_TP);
	if (id < 0)
		return -ENOENT;
	LIBBPF_OPTS(bpf_prog_load_opts, o,
		    .expected_attach_type = BPF_TRACE_RAW_TP,
		    .attach_btf_id = id);
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "bpflite_probe", "GPL", insns, 2, &o);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static const char *tp_of(const struct bpf_program *prog)
{
	const char *sec = bpf_program__section_name(prog);
	const char *slash = strchr(sec, '/');

	return slash ? slash + 1 : sec;
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

bool attach__env(const char *name)
{
	const char *e = getenv(name);

	return e && *e && strcmp(e, "0");
}

/* The _raw sibling of a _btf program, or NULL. */
static struct bpf_program *sibling(const struct bpf_object *obj, const char *name)
{
	char raw[128];

	snprintf(raw, sizeof(raw), "%.*s_raw", (int)(strlen(name) - 4), name);
	return bpf_object__find_program_by_name(obj, raw);
}

/* A pair the tool turned off (both programs) stays off. */
static bool pair_off(const struct bpf_program *btf, const struct bpf_program *raw)
{
	return !bpf_program__autoload(btf) && (!raw || !bpf_program__autoload(raw));
}

int attach__pick(struct bpf_object *obj, bool raw)
{
	struct bpf_program *prog, *sib;
	int n = 0;

	bpf_object__for_each_program(prog, obj) {
		const char *name = bpf_program__name(prog);

		if (!has_suffix(name, "_btf"))
			continue;
		sib = sibling(obj, name);
		if (pair_off(prog, sib))
			continue;
		bpf_program__set_autoload(prog, !raw || !sib);
		if (sib)
			bpf_program__set_autoload(sib, raw);
		n++;
	}
	return n;
}

void attach__report(const struct bpf_object *obj, const char *why_raw)
{
	struct bpf_program *prog, *sib;
	int nbtf = 0, nraw = 0;

	bpf_object__for_each_program(prog, obj) {
		const char *name = bpf_program__name(prog);
		bool btf;

		if (!has_suffix(name, "_btf"))
			continue;
		sib = sibling(obj, name);
		btf = bpf_program__autoload(prog);
		if (!btf && (!sib || !bpf_program__autoload(sib)))
			continue;
		msg__verbose("attach %s: %s%s", tp_of(prog), btf ? "tp_btf" : "raw_tp",
			     btf || !why_raw ? "" : why_raw);
		btf ? nbtf++ : nraw++;
	}
	mode = nbtf && nraw ? "mixed" : nbtf ? "tp_btf" : nraw ? "raw_tp" : "none";
}

int attach__choose(struct bpf_object *obj, bool force_raw)
{
	struct bpf_program *prog;
	struct btf_scan scan = { 0 };
	bool have_btf = false;
	int nbtf = 0, nraw = 0;

	if (attach__env("BPFLITE_FORCE_RAW_TP"))
		force_raw = true;
	bool scanned = false;

	bpf_object__for_each_program(prog, obj) {
		const char *name = bpf_program__name(prog);
		bool use_btf;
		int err = -ENOENT;

		if (!has_suffix(name, "_btf") || pair_off(prog, sibling(obj, name)))
			continue;
		/* read the kernel's BTF only when a pair needs a choice */
		if (!force_raw && !scanned) {
			have_btf = !btf_scan__open(&scan, VMLINUX_BTF);
			scanned = true;
		}
		if (have_btf)
			err = probe_tp_btf(&scan, tp_of(prog));
		use_btf = !err;
		bpf_program__set_autoload(prog, use_btf);

		struct bpf_program *sib = sibling(obj, name);

		if (sib)
			bpf_program__set_autoload(sib, !use_btf);
		if (!use_btf && !sib) {
			msg__err("tracepoint %s is not available as tp_btf and has no raw_tp variant", tp_of(prog));
			free(scan.data);
			return -ENOENT;
		}
		msg__verbose("attach %s: %s%s", tp_of(prog), use_btf ? "tp_btf" : "raw_tp",
			     use_btf ? "" : force_raw ? " (forced)" :
			     err == -ENOENT ? " (no BTF for tp_btf)" : " (tp_btf failed to load)");
		use_btf ? nbtf++ : nraw++;
	}
	free(scan.data);
	mode = nbtf && nraw ? "mixed" : nbtf ? "tp_btf" : nraw ? "raw_tp" : "none";
	return 0;
}

/* Is tracefs mounted somewhere we may not look (for the hint)? */
static bool tracefs_in_mounts(const char *dir)
{
	char line[512], mnt[256], type[64];
	bool found = false;
	FILE *f = fopen("/proc/self/mounts", "re");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%*s %255s %63s", mnt, type) == 2 &&
			!strcmp(type, "tracefs") && !strcmp(mnt, dir);
	fclose(f);
	return found;
}

int attach__tracefs(void)
{
	static const char *const dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char events[64];
	struct statfs s;
	int i, err;

	for (i = 0; i < 2; i++) {
		snprintf(events, sizeof(events), "%s/events", dirs[i]);
		if (!statfs(events, &s))
			return 0;
	}
	/* there but not ours: mounting it again would not help */
	for (i = 0; i < 2; i++) {
		snprintf(events, sizeof(events), "%s/events", dirs[i]);
		if (statfs(events, &s) && errno == EACCES && tracefs_in_mounts(dirs[i])) {
			msg__err("tracefs at %s is mounted but this user cannot read it: the "
				 "syscalls tracepoints are found there", dirs[i]);
			msg__hint("CAP_BPF and CAP_PERFMON do not grant file access: run as root, "
				  "or remount it with the gid= option for a group of this user "
				  "(mount -o remount,gid=GID %s)", dirs[i]);
			return -EACCES;
		}
	}
	if (mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL)) {
		err = -errno;
		msg__fail(err, "mount tracefs at /sys/kernel/tracing");
		if (err == -EPERM && geteuid() != 0)
			msg__hint("mounting needs CAP_SYS_ADMIN: ask root to mount it "
				  "(mount -t tracefs tracefs /sys/kernel/tracing), or run as root");
		else
			msg__hint("mount it: mount -t tracefs tracefs /sys/kernel/tracing");
		return err;
	}
	msg__verbose("mounted tracefs at /sys/kernel/tracing");
	return 0;
}

bool attach__kernel_btf(void)
{
	static int have = -1;
	__u16 magic = 0;
	int fd;

	if (have >= 0)
		return have;
	/* present, readable and BTF: an empty file (or none) is no BTF */
	fd = open(VMLINUX_BTF, O_RDONLY | O_CLOEXEC);
	have = fd >= 0 && read(fd, &magic, sizeof(magic)) == sizeof(magic) &&
	       magic == BTF_MAGIC;
	if (fd >= 0)
		close(fd);
	return have;
}

int attach__open_opts(struct bpf_object_open_opts *o, const char *btf_path)
{
	if (btf_path) {
		o->btf_custom_path = btf_path;
		return 0;
	}
	if (!attach__kernel_btf()) {
		msg__err("kernel BTF not found at %s", VMLINUX_BTF);
		msg__hint("this kernel lacks CONFIG_DEBUG_INFO_BTF; give its BTF with --btf FILE "
			  "(the .BTF section of its vmlinux, or a file from a BTF archive)");
		return -ENOENT;
	}
	return 0;
}

/* The last n lines of text, each indented, on stderr. */
static void print_tail(const char *text, int n)
{
	const char *p = text + strlen(text);

	while (p > text && p[-1] == '\n')
		p--;
	const char *end = p;

	while (p > text && n > 0) {
		p--;
		if (*p == '\n' && --n == 0) {
			p++;
			break;
		}
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);

		fprintf(stderr, "    %.*s\n", (int)len, p);
		p += len + (nl ? 1 : 0);
	}
}

void attach__load_failed(int err)
{
	const char *prog, *log = msg__verifier_log(&prog);

	msg__fail(err, "load BPF programs");
	/*
	 * A verifier log means the kernel runs BPF and read our program: it
	 * rejected it (EACCES or EINVAL alike). That is our bug (or a --btf
	 * that does not describe this kernel), not a restriction of the host.
	 */
	if (log) {
		msg__err("the kernel's verifier rejected program '%s': this is a bug in %s "
			 "(or a --btf file that does not match this kernel)", prog, msg_tool);
		if (!msg_verbose) {
			fprintf(stderr, "%s: the verifier's log ends with:\n", msg_tool);
			print_tail(log, 8);
		}
		msg__hint("please report it with the output of -v");
		return;
	}
	msg__hint_for(err);
	if (!msg_verbose && err != -EPERM && err != -EACCES)
		msg__hint("run with -v to see libbpf's messages");
}
