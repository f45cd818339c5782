/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user side of offcputime's BPF object (bpf/offcputime.bpf.c) while
 * it runs, shared by offcputime-lite and profile-lite --off-cpu: fold the
 * keys of exited threads before the info map fills. It works on the
 * map's fd and the object's .bss counter, so it needs no skeleton.
 * Forgetting exited processes in the symbolizer is procsnap__prune().
 */
#ifndef BPFLITE_OFFCPU_H
#define BPFLITE_OFFCPU_H

#include <linux/types.h>
#include "syms/syms.h"

struct offcpu_collect {
	int info_fd;			/* the info map */
	volatile __u64 *info_added;	/* keys BPF added to it (its .bss) */
	struct usyms *usyms;
	__u64 max_keys;			/* info's size */
	__u64 fold_at;			/* keys in info that start a fold */
	__u64 added, removed;		/* keys user space added and removed */
	__u64 fold_lost;		/* folds that found the map full */
};

void offcpu__init(struct offcpu_collect *c, int info_fd, volatile __u64 *info_added,
		  __u64 max_keys, struct usyms *usyms);
/* Call about every 100 ms while tracing (a loop__ringbuf() tick); ctx is c. */
int offcpu__tick(void *ctx);

#endif
