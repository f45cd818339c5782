/* SPDX-License-Identifier: GPL-2.0 */
/*
 * offcputime-lite's off-CPU time as a pprof profile (pprof.h): the one
 * writer behind `offcputime-lite --pprof FILE` and the HTTP endpoint
 * /debug/pprof/offcpu?seconds=N.
 *
 * Profile: sample types samples/count and off_cpu/nanoseconds (the
 * default); each sample is one process, comm and stack pair, its
 * locations leaf first: kernel frames (mapping "[kernel.kallsyms]", with
 * the running kernel's build-id from /sys/kernel/notes), then user frames
 * (one mapping per executable mapping of a module, with the file's
 * build-id when it has one), every frame a named function (a Python
 * frame of --python with its file, first line and line in pprof's
 * Function and Line, and no mapping); a missing
 * stack is a frame "[missed kernel stack]" / "[missed user stack]" as the
 * text report prints it. The thread's comm is the string label "comm";
 * no pid or tid label (a profiler would store a series per process).
 *
 * Deltas. BPF only ever adds to offcputime's info map (time and count per
 * thread, comm and stack pair); nothing here clears it, so any number of
 * readers can share it. A profile of an interval is the difference of
 * two snapshots: offcpu_snap__take() when the interval starts (a request
 * arrives), offcpu_pprof__render() when it ends, which takes the second
 * snapshot and subtracts the first. Concurrent requests each hold their
 * own starting snapshot. Snapshots sum the threads of a process with the
 * same comm and stacks (no tid), so the user side folding the keys of
 * exited threads into one key per process (tid 0) keeps the sums they
 * see; the fold and these calls must run on the same thread (the tool's
 * loop), never at the same time.
 *
 *	struct offcpu_snap *s = offcpu_snap__take(&src);	// request in
 *	...N seconds, the loop keeps running...
 *	offcpu_pprof__render(&src, s, &buf, &len);		// gzip'd profile
 *	offcpu_snap__free(s);
 *	... send buf (Content-Type application/octet-stream), free(buf)
 */
#ifndef BPFLITE_OFFCPU_PPROF_H
#define BPFLITE_OFFCPU_PPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "syms/syms.h"

struct unwinder;
struct pyframes;

/* What the profile is read from: the tool's maps and symbolizer. */
struct offcpu_src {
	int info_fd;			/* info: struct offcpu_key -> struct offcpu_val */
	int stacks_fd;			/* stacks: BPF_MAP_TYPE_STACK_TRACE */
	struct unwinder *unw;		/* set: the stacks are its (syms/unwind.h), not stacks_fd's */
	__u32 max_entries;		/* info's */
	int depth;			/* frames per stack (the stack map's value size / 8) */
	bool kernel_stacks, user_stacks;	/* collected (-U, -K turn one off) */
	struct usyms *usyms;
	struct pyframes *py;		/* --python: Python frames named, with file and line */
};

struct offcpu_snap;

/* The counters now (and the time): NULL with errno on failure. */
struct offcpu_snap *offcpu_snap__take(const struct offcpu_src *src);
void offcpu_snap__free(struct offcpu_snap *s);
/*
 * The gzip-compressed profile of what was added since `since` (NULL: since
 * the maps were created) into a malloc'd *buf of *len bytes. time_nanos
 * and duration_nanos are since's. 0 or -errno.
 */
int offcpu_pprof__render(const struct offcpu_src *src, const struct offcpu_snap *since,
			 void **buf, size_t *len);
/* The same profile written to fd (a whole file: --pprof FILE); 0 or -errno. */
int offcpu_pprof__write(const struct offcpu_src *src, const struct offcpu_snap *since, int fd);

#endif
