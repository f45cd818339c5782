// SPDX-License-Identifier: GPL-2.0
/*
 * The benchmarks' floor: empty programs on the tracepoints the tools use.
 * What a tool costs beyond these is what its handler bodies cost.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

SEC("tp_btf/sys_enter") int sys_enter_btf(void *ctx) { return 0; }
SEC("tp_btf/sys_exit") int sys_exit_btf(void *ctx) { return 0; }
SEC("tp_btf/sched_switch") int sched_switch_btf(void *ctx) { return 0; }
SEC("tp_btf/sched_wakeup") int sched_wakeup_btf(void *ctx) { return 0; }
SEC("tp_btf/sched_wakeup_new") int sched_wakeup_new_btf(void *ctx) { return 0; }

SEC("raw_tp/sys_enter") int sys_enter_raw(void *ctx) { return 0; }
SEC("raw_tp/sys_exit") int sys_exit_raw(void *ctx) { return 0; }
SEC("raw_tp/sched_switch") int sched_switch_raw(void *ctx) { return 0; }
SEC("raw_tp/sched_wakeup") int sched_wakeup_raw(void *ctx) { return 0; }
SEC("raw_tp/sched_wakeup_new") int sched_wakeup_new_raw(void *ctx) { return 0; }

char LICENSE[] SEC("license") = "GPL";
