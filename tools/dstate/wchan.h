/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Why a task sleeps, the way the kernel's wchan says it: the first kernel
 * frame below the scheduler and the sleeping primitives (schedule,
 * mutex_lock, wait_for_completion, down_read, io_schedule, ...). Those are
 * marked __sched and sit in .sched.text, whose bounds kallsyms gives;
 * a list of names catches primitives outside that section and kernels
 * without the markers. The tracer's own frames (stacks__is_bpf_frame())
 * are skipped too.
 */
#ifndef BPFLITE_WCHAN_H
#define BPFLITE_WCHAN_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "syms/stacks.h"
#include "syms/syms.h"

struct wchan {
	unsigned long sched_start;	/* [__sched_text_start, __sched_text_end) */
	unsigned long sched_end;	/* both 0 when unknown */
};

/*
 * The .sched.text bounds from k's markers. 0, or -ENOENT: k is NULL or
 * restricted (kptr_restrict), or has no markers; both bounds are then 0
 * and names alone tell the primitives.
 */
int wchan__load(struct wchan *w, const struct ksyms *k);
/* Is this kernel frame the scheduler or a sleeping primitive? */
bool wchan__is_primitive(const struct wchan *w, __u64 addr, const char *name);
/*
 * The reason of a kernel stack (leaf first), in buf: a function name; when
 * every frame is a primitive, the outermost one; "[missed kernel stack]";
 * "[unknown]" for an empty stack. Frames k cannot name are "0x...".
 */
const char *wchan__reason(const struct wchan *w, const struct ksyms *k, const struct stack *s,
			  char *buf, size_t len);

#endif
