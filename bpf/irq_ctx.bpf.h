/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Is the current program running in a hard interrupt, a softirq, or a
 * task? The preempt count that says so is a per-CPU variable on x86
 * (__preempt_count, or pcpu_hot.preempt_count in 6.2-6.14): typed ksyms
 * could read it from 5.10 on, but the kernel resolves them through
 * kallsyms, which holds no data symbols without CONFIG_KALLSYMS_ALL (the
 * case on our test machines). So the handlers count their way in and out
 * instead, per CPU, from tracepoints every kernel since 5.8 has:
 *   irq:irq_handler_entry/exit       device interrupts (disk, network)
 *   timer:hrtimer_expire_entry/exit  hrtimer callbacks (the timer
 *                                    interrupt's wake-ups; soft ones run
 *                                    inside a softirq)
 *   irq:softirq_entry/exit           softirqs (timers, block completion)
 * Not seen: system-vector work without a handler tracepoint (irq_work,
 * IPIs), which rarely wakes a sleeper. An object that includes this
 * gets the six raw_tp programs; they must attach exits first (they come
 * first in the object), so an entry never misses its exit.
 */
#ifndef BPFLITE_IRQ_CTX_BPF_H
#define BPFLITE_IRQ_CTX_BPF_H

enum irq_ctx {
	IRQ_CTX_TASK = 0,
	IRQ_CTX_HARDIRQ,
	IRQ_CTX_SOFTIRQ,
};

struct irq_depth {
	__u32 hardirq;		/* irq handlers and hrtimer callbacks running */
	__u32 softirq;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct irq_depth);
} irq_depth SEC(".maps");

static __always_inline struct irq_depth *irq_depth_here(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&irq_depth, &zero);
}

/* The innermost context: a hard interrupt may land inside a softirq. */
static __always_inline enum irq_ctx irq_context(void)
{
	struct irq_depth *d = irq_depth_here();

	if (!d)
		return IRQ_CTX_TASK;
	if (d->hardirq)
		return IRQ_CTX_HARDIRQ;
	if (d->softirq)
		return IRQ_CTX_SOFTIRQ;
	return IRQ_CTX_TASK;
}

/* Exits first: attached before their entries (see above). */
#define IRQ_CTX_EXIT(tp, field)						\
SEC("raw_tp/" #tp)							\
int tp##_raw(void *ctx)							\
{									\
	struct irq_depth *d = irq_depth_here();				\
									\
	/* one that began before we attached: never below zero */	\
	if (d && d->field)						\
		d->field--;						\
	return 0;							\
}

#define IRQ_CTX_ENTRY(tp, field)					\
SEC("raw_tp/" #tp)							\
int tp##_raw(void *ctx)							\
{									\
	struct irq_depth *d = irq_depth_here();				\
									\
	if (d)								\
		d->field++;						\
	return 0;							\
}

#define IRQ_CTX_PROGRAMS						\
	IRQ_CTX_EXIT(irq_handler_exit, hardirq)				\
	IRQ_CTX_EXIT(hrtimer_expire_exit, hardirq)			\
	IRQ_CTX_EXIT(softirq_exit, softirq)				\
	IRQ_CTX_ENTRY(irq_handler_entry, hardirq)			\
	IRQ_CTX_ENTRY(hrtimer_expire_entry, hardirq)			\
	IRQ_CTX_ENTRY(softirq_entry, softirq)

#endif
