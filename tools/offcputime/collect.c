// SPDX-License-Identifier: GPL-2.0
/* Off-CPU collection while tracing (offcpu.h), from offcputime's maps. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include "load/maps.h"
#include "run/msg.h"
#include "offcputime/collect.h"
#include "offcputime.h"

/*
 * Exited threads: one key per thread and stack pair would fill info after
 * some 16k short-lived threads (a thread pool, a build) and the tool would
 * then drop everything. Every fold_step() new keys, the keys of threads
 * that are gone are folded into one key per process, comm and stacks with
 * tid 0 ("exited threads"): BPF never writes a tid-0 key (the idle task is
 * not traced), so user space owns those.
 */
static bool thread_gone(__u32 tgid, __u32 tid)
{
	return syscall(SYS_tgkill, tgid, tid, 0) && errno == ESRCH;
}

/*
 * Fold after this many new keys: a sixteenth of the map (1024 keys by
 * default), so the map holds about the live threads' keys plus that,
 * and a fold (a walk of the map, a tgkill(2) per key) stays rare.
 */
static __u64 fold_step(const struct offcpu_collect *r)
{
	return r->max_keys / 16 ? r->max_keys / 16 : 1;
}

static void fold_exited(struct offcpu_collect *r)
{
	int fd = r->info_fd;
	struct offcpu_key *keys, k0;
	struct offcpu_val v, v0;
	__u32 n, i;
	size_t folded = 0;
	__u64 live;

	/* keys first: deleting while walking restarts the walk (no keys: no fold) */
	map__keys(fd, sizeof(*keys), r->max_keys, (void **)&keys, &n);
	for (i = 0; i < n; i++) {
		if (!keys[i].tid || !thread_gone(keys[i].tgid, keys[i].tid))
			continue;
		/* the thread is gone: BPF no longer writes this key */
		if (bpf_map_lookup_and_delete_elem(fd, &keys[i], &v)) {
			/* hash maps support it since 5.14 */
			if (bpf_map_lookup_elem(fd, &keys[i], &v) || bpf_map_delete_elem(fd, &keys[i]))
				continue;
		}
		r->removed++;
		k0 = keys[i];
		k0.tid = 0;
		if (!bpf_map_lookup_elem(fd, &k0, &v0)) {
			v.total_ns += v0.total_ns;
			v.count += v0.count;
			v.unended += v0.unended;
		} else {
			r->added++;
		}
		if (bpf_map_update_elem(fd, &k0, &v, BPF_ANY)) {
			r->fold_lost++;
			r->added--;
		}
		folded++;
	}
	free(keys);
	live = *r->info_added + r->added - r->removed;
	r->fold_at = live + fold_step(r);
	msg__verbose("folded %zu keys of exited threads: %llu keys in use", folded,
		     (unsigned long long)live);
}

/* Every tick: fold exited threads' keys when info fills. */
int offcpu__tick(void *ctx)
{
	struct offcpu_collect *r = ctx;

	if (*r->info_added + r->added - r->removed >= r->fold_at)
		fold_exited(r);
	return 0;
}

void offcpu__init(struct offcpu_collect *c, int info_fd, volatile __u64 *info_added,
		  __u64 max_keys, struct usyms *usyms)
{
	*c = (struct offcpu_collect){
		.info_fd = info_fd,
		.info_added = info_added,
		.usyms = usyms,
		.max_keys = max_keys,
	};
	c->fold_at = fold_step(c);
}
