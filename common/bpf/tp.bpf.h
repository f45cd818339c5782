/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One handler, two attach forms. TP_PROG(tp, name, args...) { body }
 * defines SEC("tp_btf/<tp>") <name>_btf and SEC("raw_tp/<tp>") <name>_raw,
 * both running body with the tracepoint's arguments cast as BPF_PROG()
 * casts them (no args: the body reads ctx[] itself). In body, the
 * constant tp_btf says which of the two runs: true where the arguments
 * are BTF pointers the verifier trusts (task storage, plain loads), false
 * for raw_tp's plain numbers; the compiler keeps only that branch in each.
 * The loader keeps one of the pair per tracepoint (common/load/attach.h).
 */
#ifndef BPFLITE_TP_BPF_H
#define BPFLITE_TP_BPF_H

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#define ___TP_WRAPPER(sec, name, btf, inner, args...)				\
SEC(sec)									\
int name(unsigned long long *ctx)						\
{										\
	_Pragma("GCC diagnostic push")						\
	_Pragma("GCC diagnostic ignored \"-Wint-conversion\"")			\
	return inner(btf, ___bpf_ctx_cast(args));				\
	_Pragma("GCC diagnostic pop")						\
}

#define TP_PROG(tp, name, args...)						\
static __always_inline int ____##name(const bool tp_btf, unsigned long long *ctx, ##args); \
___TP_WRAPPER("tp_btf/" #tp, name##_btf, true, ____##name, ##args)		\
___TP_WRAPPER("raw_tp/" #tp, name##_raw, false, ____##name, ##args)		\
static __always_inline int ____##name(const bool tp_btf, unsigned long long *ctx, ##args)

#endif
