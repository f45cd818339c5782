/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Choosing how to hook a tracepoint, by trying. Every handler is wrapped
 * twice in BPF by TP_PROG() (common/bpf/tp.bpf.h): SEC("tp_btf/<tp>") named
 * <x>_btf and SEC("raw_tp/<tp>") named <x>_raw. The light loader
 * (common/load/light.h) tries all pairs on tp_btf, then all on raw_tp
 * (attach__pick()); the libbpf skeleton's load, before it, calls
 * attach__choose(), which test-loads a two-instruction tp_btf program
 * against each tracepoint and keeps one wrapper of each pair. Classic SEC("tracepoint/...") programs are left as
 * they are; attach__tracefs() makes sure tracefs is mounted for them.
 */
#ifndef BPFLITE_ATTACH_H
#define BPFLITE_ATTACH_H

#include <stdbool.h>
#include <bpf/libbpf.h>

/*
 * Keep exactly one of each _btf/_raw pair. force_raw (or the environment
 * variable BPFLITE_FORCE_RAW_TP=1) keeps the raw_tp ones. Returns 0, or a
 * negative errno when a tracepoint exists in neither form.
 */
int attach__choose(struct bpf_object *obj, bool force_raw);
/*
 * Without probing: keep the _raw program of every pair when raw, else the
 * _btf one (pairs the tool turned off stay off). Returns the number of pairs.
 */
int attach__pick(struct bpf_object *obj, bool raw);
/* Under -v, the form of every pair as loaded ("attach <tp>: <form><why_raw>"); sets the mode. */
void attach__report(const struct bpf_object *obj, const char *why_raw);
/* Whether environment variable name is set to something other than "" or "0". */
bool attach__env(const char *name);
/* Which form attach__choose() picked for the last object ("tp_btf", "raw_tp", or "mixed"). */
const char *attach__mode(void);

/* Mount tracefs at /sys/kernel/tracing when it is not mounted (as perf does). */
int attach__tracefs(void);

/*
 * Open options every tool passes to its skeleton's __open_opts(): the
 * --btf file for kernels without /sys/kernel/btf/vmlinux. Checks that
 * some BTF exists and prints the error and hint when not.
 */
int attach__open_opts(struct bpf_object_open_opts *o, const char *btf_path);

/*
 * Whether the kernel publishes its own BTF (/sys/kernel/btf/vmlinux). A
 * --btf file serves CO-RE only: tp_btf programs and iterators attach by
 * the kernel's BTF ids and need this.
 */
bool attach__kernel_btf(void);

/* Load failure diagnosis: the error and the hint the user can act on. */
void attach__load_failed(int err);

#endif
