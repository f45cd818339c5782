// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/statfs.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "attach.h"
#include "msg.h"

#define VMLINUX_BTF "/sys/kernel/btf/vmlinux"
#ifndef TRACEFS_MAGIC
#define TRACEFS_MAGIC 0x74726163
#endif

static const char *mode = "none";

const char *attach__mode(void)
{
	return mode;
}

/* 0 when a tp_btf program can be loaded for tracepoint tp, else -errno. */
static int probe_tp_btf(const struct btf *vmlinux, const char *tp)
{
	/* r0 = 0; exit */
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	char name[128];
	int id, fd;

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf__find_by_name_kind(vmlinux, name, BTF_KIND_TYPEDEF);
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

int attach__choose(struct bpf_object *obj, bool force_raw)
{
	struct bpf_program *prog;
	struct btf *vmlinux = NULL;
	const char *e = getenv("BPFLITE_FORCE_RAW_TP");
	int nbtf = 0, nraw = 0;

	if (e && *e && strcmp(e, "0"))
		force_raw = true;
	if (!force_raw && !access(VMLINUX_BTF, R_OK)) {
		vmlinux = btf__load_vmlinux_btf();
	}

	bpf_object__for_each_program(prog, obj) {
		const char *name = bpf_program__name(prog);
		bool use_btf;
		int err = -ENOENT;

		if (!has_suffix(name, "_btf"))
			continue;
		if (vmlinux)
			err = probe_tp_btf(vmlinux, tp_of(prog));
		use_btf = !err;
		bpf_program__set_autoload(prog, use_btf);

		/* the sibling: same name with _raw */
		char raw[128];
		struct bpf_program *sib;

		snprintf(raw, sizeof(raw), "%.*s_raw", (int)(strlen(name) - 4), name);
		sib = bpf_object__find_program_by_name(obj, raw);
		if (sib)
			bpf_program__set_autoload(sib, !use_btf);
		if (!use_btf && !sib) {
			msg__err("tracepoint %s is not available as tp_btf and has no raw_tp variant", tp_of(prog));
			btf__free(vmlinux);
			return -ENOENT;
		}
		msg__verbose("attach %s: %s%s", tp_of(prog), use_btf ? "tp_btf" : "raw_tp",
			     use_btf ? "" : force_raw ? " (forced)" :
			     err == -ENOENT ? " (no BTF for tp_btf)" : " (tp_btf failed to load)");
		use_btf ? nbtf++ : nraw++;
	}
	btf__free(vmlinux);
	mode = nbtf && nraw ? "mixed" : nbtf ? "tp_btf" : nraw ? "raw_tp" : "none";
	return 0;
}

int attach__tracefs(void)
{
	struct statfs s;

	if (!statfs("/sys/kernel/tracing/events", &s))
		return 0;
	if (!statfs("/sys/kernel/debug/tracing/events", &s))
		return 0;
	if (mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL)) {
		int err = -errno;

		msg__fail(err, "mount tracefs at /sys/kernel/tracing");
		msg__hint("mount it: mount -t tracefs tracefs /sys/kernel/tracing");
		return err;
	}
	msg__verbose("mounted tracefs at /sys/kernel/tracing");
	return 0;
}

int attach__open_opts(struct bpf_object_open_opts *o, const char *btf_path)
{
	if (btf_path) {
		o->btf_custom_path = btf_path;
		return 0;
	}
	if (access(VMLINUX_BTF, R_OK)) {
		msg__err("kernel BTF not found at %s", VMLINUX_BTF);
		msg__hint("this kernel lacks CONFIG_DEBUG_INFO_BTF; give a BTF file with --btf FILE");
		return -ENOENT;
	}
	return 0;
}

void attach__load_failed(int err)
{
	msg__fail(err, "load BPF programs");
	msg__hint_for(err);
	if (!msg_verbose && err != -EPERM && err != -EACCES)
		msg__hint("run with -v to see the verifier's log");
}
