// SPDX-License-Identifier: GPL-2.0
/*
 * biolatency-lite: block I/O latency, from the moment a request is issued
 * to the device (or inserted into the queue, -Q) until it completes.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "bpf/tp.bpf.h"
#include "biolatency.h"
#include "bpf/hist.bpf.h"
#include "bpf/filter.bpf.h"
#include "bpf/loss.bpf.h"
#include "bpf/errno.bpf.h"

const volatile bool cfg_queued = false;
const volatile bool cfg_ms = false;
const volatile __u32 cfg_by = BY_ALL;
const volatile __u32 cfg_dev = 0;	/* -d: the disk's dev_t, kernel form; 0: any */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, BIOLAT_MAX_RQS);
	__type(key, struct request *);
	__type(value, __u64);	/* issue (or insert) time, ns */
} start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, BIOLAT_MAX_HISTS);
	__type(key, __u32);
	__type(value, struct hist);
} hists SEC(".maps");

static __always_inline __u32 rq_dev(struct request *rq)
{
	struct gendisk *disk = get_rq_disk(rq);

	if (!disk)
		return 0;
	return BPF_CORE_READ(disk, major) << BIO_MINORBITS | BPF_CORE_READ(disk, first_minor);
}

/* The kernel's REQ_OP_* to ours. Those below 10 have not moved since 4.10. */
static __always_inline __u32 rq_op(__u32 op)
{
	switch (op) {
	case 0: return BIO_OP_READ;
	case 1: return BIO_OP_WRITE;
	case 2: return BIO_OP_FLUSH;
	case 3: return BIO_OP_DISCARD;
	case 5: return BIO_OP_SECURE_ERASE;
	case 9: return BIO_OP_WRITE_ZEROES;
	}
#define OP(name, ours)							\
	if (bpf_core_enum_value_exists(enum req_op, name) &&		\
	    op == bpf_core_enum_value(enum req_op, name))		\
		return ours;
	OP(REQ_OP_ZONE_APPEND, BIO_OP_ZONE_APPEND)
	OP(REQ_OP_ZONE_OPEN, BIO_OP_ZONE_OPEN)
	OP(REQ_OP_ZONE_CLOSE, BIO_OP_ZONE_CLOSE)
	OP(REQ_OP_ZONE_FINISH, BIO_OP_ZONE_FINISH)
	OP(REQ_OP_ZONE_RESET, BIO_OP_ZONE_RESET)
	OP(REQ_OP_ZONE_RESET_ALL, BIO_OP_ZONE_RESET_ALL)
	OP(REQ_OP_DRV_IN, BIO_OP_DRV_IN)
	OP(REQ_OP_DRV_OUT, BIO_OP_DRV_OUT)
#undef OP
	return BIO_OP_UNKNOWN;
}

/* -F key: the operation and the flags bcc names, by their names in this kernel. */
static __always_inline __u32 rq_flags_key(struct request *rq)
{
	__u32 f = BPF_CORE_READ(rq, cmd_flags);
	__u32 key = rq_op(f & 0xff);	/* REQ_OP_BITS: 8 since 4.10 */

#define FLAG(bit, ours)							\
	if (bpf_core_enum_value_exists(enum req_flag_bits, bit) &&	\
	    (f >> bpf_core_enum_value(enum req_flag_bits, bit)) & 1)	\
		key |= ours;
	FLAG(__REQ_SYNC, BIO_F_SYNC)
	FLAG(__REQ_META, BIO_F_META)
	FLAG(__REQ_PRIO, BIO_F_PRIO)
	FLAG(__REQ_NOMERGE, BIO_F_NOMERGE)
	FLAG(__REQ_IDLE, BIO_F_IDLE)
	FLAG(__REQ_FUA, BIO_F_FUA)
	FLAG(__REQ_RAHEAD, BIO_F_RAHEAD)
	FLAG(__REQ_BACKGROUND, BIO_F_BACKGROUND)
	FLAG(__REQ_NOWAIT, BIO_F_NOWAIT)
#undef FLAG
	return key;
}

static __always_inline int trace_start(struct request *rq, bool insert)
{
	__u64 ts, flags;
	long err;

	if (cfg_dev && rq_dev(rq) != cfg_dev)
		return 0;
	/* -c: the task that queues or issues the request */
	if (cfg_cgroup_id && !filter_current())
		return 0;
	ts = bpf_ktime_get_ns();
	/*
	 * With -Q, a request inserted into the queue keeps its insert time
	 * at issue; one issued directly (no insert event) starts at issue.
	 */
	flags = cfg_queued && !insert ? BPF_NOEXIST : BPF_ANY;
	err = bpf_map_update_elem(&start, &rq, &ts, flags);
	if (err && !(flags == BPF_NOEXIST && err == -EEXIST))
		loss_inc(map_full);
	return 0;
}

static __always_inline int handle_complete(struct request *rq)
{
	__u64 *tsp, delta;
	struct hist *h;
	bool created;
	__u32 key = 0;

	/* Requests issued before the tool started have no start: ignored. */
	tsp = bpf_map_lookup_elem(&start, &rq);
	if (!tsp)
		return 0;
	delta = bpf_ktime_get_ns() - *tsp;
	bpf_map_delete_elem(&start, &rq);
	if ((__s64)delta < 0)
		return 0;

	if (cfg_by == BY_DISK)
		key = rq_dev(rq);
	else if (cfg_by == BY_FLAGS)
		key = rq_flags_key(rq);
	else if (cfg_by == BY_DISK_OP) {
		__u32 op = rq_op(BPF_CORE_READ(rq, cmd_flags) & 0xff);

		key = (rq_dev(rq) & ((1u << BIO_OPC_SHIFT) - 1)) |
		      (op < BIO_OPC_OTHER ? op : BIO_OPC_OTHER) << BIO_OPC_SHIFT;
	}
	h = hist_lookup_or_init(&hists, &key, &created);
	if (!h)
		return 0;
	hist_add(h, hist_slot_log2(delta / (cfg_ms ? 1000000 : 1000)), delta);
	return 0;
}

/*
 * No typed arguments (the body reads ctx[]): the position of the
 * request argument depends on the kernel (common/bpf/core_fixes.bpf.h).
 */
TP_PROG(block_rq_insert, block_rq_insert)
{
	return trace_start(block_rq_insert_rq(ctx), true);
}

TP_PROG(block_rq_issue, block_rq_issue)
{
	return trace_start(block_rq_issue_rq(ctx), false);
}

/* (rq, error, nr_bytes) since 4.1 */
TP_PROG(block_rq_complete, block_rq_complete)
{
	return handle_complete((struct request *)ctx[0]);
}

char LICENSE[] SEC("license") = "GPL";
