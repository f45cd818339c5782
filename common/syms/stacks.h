/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one stack printer for every stack tool (offcputime-lite,
 * dstate-lite, ...).
 *
 * Folded (-f): one line per stack, root first, frames joined by ';', the
 * count last: "comm;user frames;-;kernel frames count" as bcc's
 * offcputime -f prints it (the "-" delimiter only with -d), which
 * flamegraph.pl, inferno and speedscope accept. Kernel frames carry
 * "_[k]" suffix only when asked (flamegraph-lite colours by it).
 * comm and frame names are untrusted (the traced program chooses its comm
 * and its symbol names) and go through esc.h with ESC_FOLDED: ';' becomes
 * "\x3b", a newline "\n", other control bytes and invalid UTF-8 "\xNN",
 * so a line is always "frame;frame;... count". Spaces stay as they are:
 * the readers take the count after the last space.
 *
 * Every tool that prints folded lines builds them from the pieces below
 * (dstate-lite: wait stack, "--", waker stack, waker comm), so every
 * frame is escaped the same way.
 *
 * Multi-line (default): leaf first, one frame per line indented, then
 * "-                comm (pid)" and the count, as bcc prints.
 *
 * A missing stack is printed in-line as "[missed kernel stack]" or
 * "[missed user stack]"; the caller counts them (loss.stacks). A user
 * stack the unwinder (unwind.h) stopped short ends in "[unwind error]",
 * one longer than it walks in "[truncated]".
 * The tool's own BPF frames (bpf_prog_*, bpf_trace_run*, the
 * __bpf_trace_* trampolines) are dropped from kernel stacks.
 */
#ifndef BPFLITE_STACKS_H
#define BPFLITE_STACKS_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <linux/types.h>
#include "out/json.h"
#include "syms/syms.h"

struct pyframes;

struct stack_printer {
	struct ksyms *ksyms;		/* all of kallsyms, loaded lazily by the
					 * printer; or set by the caller, e.g.
					 * ksyms__load_for() the addresses it prints */
	struct usyms *usyms;
	struct pyframes *py;		/* names Python frames (python.h), or NULL */
	bool folded;
	bool delimiter;			/* -d: "-" between user and kernel stacks */
	bool kernel_suffix;		/* "_[k]" after kernel frames in folded form */
};

/*
 * p->ksyms, loaded from /proc/kallsyms on the first call when the caller
 * set none (at report time, never at start-up: kallsyms takes tens of ms).
 * A failed load, or addresses that all read 0 (kptr_restrict), is said
 * once per process, with the hint. The printer names kernel frames
 * through it; a tool that needs kernel symbols of its own asks it too.
 */
struct ksyms *stacks__ksyms(struct stack_printer *p);

/* A stack as read from a BPF stack map: addresses, leaf first. */
struct stack {
	const __u64 *ips;
	int n;				/* frames; 0 with missed = false: none asked */
	bool missed;			/* the stack id was an error */
};

/*
 * One record: comm, pid, kernel and user stack, a count. kstack or ustack
 * NULL: that stack was not collected (-U, -K), nothing is printed for it.
 * The multi-line form names tid after comm, as bcc does.
 */
void stacks__print(struct stack_printer *p, FILE *f, const char *comm, pid_t tgid,
		   pid_t tid, const struct stack *kstack, const struct stack *ustack,
		   unsigned long long count);
/*
 * "# countname UNIT": the first line of a folded report, a comment that
 * names the counts for flamegraph-lite (flamegraph.pl and speedscope skip
 * it as a line without a count).
 */
void stacks__fold_countname(FILE *f, const char *unit);
/* Folded pieces: a name (comm or frame) escaped, then suffix. */
void stacks__fold_name(FILE *f, const char *name, size_t len, const char *suffix);
/* ";frame" for each user frame, root first; missed: ";[missed user stack]". */
void stacks__fold_user(struct stack_printer *p, FILE *f, pid_t tgid, const struct stack *us);
/* ";frame" for each kernel frame, root first unless leaf_first. */
void stacks__fold_kernel(struct stack_printer *p, FILE *f, const struct stack *k, bool leaf_first);
/* Multi-line pieces: one frame a line after indent, leaf first, escaped. */
void stacks__print_kernel(struct stack_printer *p, FILE *f, const struct stack *k,
			  const char *indent);
void stacks__print_user(struct stack_printer *p, FILE *f, pid_t tgid, const struct stack *us,
			const char *indent);
/* The same record as JSON fields: "kernel_stack":[...], "user_stack":[...]. */
void stacks__json(struct stack_printer *p, struct json *j, pid_t tgid,
		  const struct stack *kstack, const struct stack *ustack);
/*
 * A read of stack id into ips begun: s empty, and false when there is
 * nothing to read (-EFAULT: no stack taken, a kernel thread's user stack;
 * another negative id: lost, s->missed).
 */
bool stacks__begin(struct stack *s, __s32 id, __u64 *ips);
/* Read stack id from a BPF stack map fd into ips (max frames); fills s. */
int stacks__read(int map_fd, __s32 id, __u64 *ips, int max, struct stack *s);
/* Addresses read from a stack map, to load only the kernel symbols a report needs. */
struct stack_addrs {
	unsigned long *v;
	size_t n, cap;
};

/*
 * Append to a the addresses of stacks ids (n of them, any order: sorted in
 * place; negative ids and repeats skipped, each stack read once) of stack
 * map stack_fd, depth frames deep: what ksyms__load_for() needs to name
 * every kernel frame of a report. 0 or -ENOMEM (a keeps what was read).
 */
int stacks__addrs(int stack_fd, __s32 *ids, size_t n, int depth, struct stack_addrs *a);
/* Append one stack's addresses to a: 0 or -ENOMEM. */
int stacks__addrs_add(struct stack_addrs *a, const struct stack *s);
/* One frame's name as the printer writes it (before escaping), in buf. */
const char *stacks__kernel_name(struct stack_printer *p, __u64 addr, char *buf, size_t len);
const char *stacks__user_name(struct stack_printer *p, pid_t tgid, __u64 addr, char *buf,
			      size_t len);
/* Is this kernel frame the tracer's own (to be dropped)? */
bool stacks__is_bpf_frame(const char *name);

#endif
