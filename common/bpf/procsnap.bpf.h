/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Telling user space about processes whose user stacks BPF records, so it
 * snapshots their mappings while they live (usyms__refresh()) and their
 * frames keep names after they exit. A tool includes this once, calls
 * procsnap_note() where it takes a user stack, and wraps
 * procsnap_exec()/procsnap_exit() in its sched_process_exec/exit
 * programs. Events on the ring buffer "procsnap_events" are a __u32 tgid.
 */
#ifndef BPFLITE_PROCSNAP_BPF_H
#define BPFLITE_PROCSNAP_BPF_H

#include "bpf/loss.bpf.h"
#include "bpf/errno.bpf.h"

#define PROCSNAP_ENTRIES	16384

/*
 * Processes user space has snapshotted. A plain hash, not an LRU one
 * (whose per-CPU lists cost ~13 ms to create): entries leave at exec and
 * at exit, so it holds live processes only.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PROCSNAP_ENTRIES);
	__type(key, __u32);	/* tgid */
	__type(value, __u8);
} procsnap_seen SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 * 1024);
} procsnap_events SEC(".maps");

/* A process not snapshotted yet: tell user space, once. */
static __always_inline void procsnap_note(__u32 tgid)
{
	__u32 *e;
	__u8 one = 1;
	long err;

	if (bpf_map_lookup_elem(&procsnap_seen, &tgid))
		return;
	err = bpf_map_update_elem(&procsnap_seen, &tgid, &one, BPF_NOEXIST);
	if (err) {
		if (err != -EEXIST)	/* else another CPU got there first */
			loss_inc(map_full);
		return;
	}
	e = bpf_ringbuf_reserve(&procsnap_events, sizeof(*e), 0);
	if (!e) {
		loss_inc(events);
		bpf_map_delete_elem(&procsnap_seen, &tgid);	/* try again next time */
		return;
	}
	*e = tgid;
	bpf_ringbuf_submit(e, 0);
}

/* After an exec the mappings are new: snapshot again. */
static __always_inline int procsnap_exec(struct task_struct *p)
{
	__u32 tgid = BPF_CORE_READ(p, tgid);

	bpf_map_delete_elem(&procsnap_seen, &tgid);
	return 0;
}

/* The last thread of a process is gone: a new process may reuse its tgid. */
static __always_inline int procsnap_exit(struct task_struct *p)
{
	__u32 tgid = BPF_CORE_READ(p, tgid);

	if (BPF_CORE_READ(p, signal, live.counter) == 0)
		bpf_map_delete_elem(&procsnap_seen, &tgid);
	return 0;
}

#endif
