// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include "dstate/wchan.h"

int wchan__load(struct wchan *w, const struct ksyms *k)
{
	const struct ksym *start = ksyms__find_name(k, "__sched_text_start");
	const struct ksym *end = ksyms__find_name(k, "__sched_text_end");

	w->sched_start = w->sched_end = 0;
	if (!start || !end || end->addr <= start->addr)
		return -ENOENT;
	w->sched_start = start->addr;
	w->sched_end = end->addr;
	return 0;
}

/* Primitives by name: outside .sched.text, or kernels without its markers. */
static const char *const primitives[] = {
	"__schedule", "schedule", "schedule_*", "io_schedule*", "preempt_schedule*",
	"*wait_for_completion*", "__wait_for_common*", "wait_for_common*",
	"do_wait_for_common*", "__mutex_lock*", "mutex_lock*", "rwsem_down_*",
	"down", "down_*", "__down*", "rt_mutex_*", "__rt_mutex*", "rtlock_*",
	"bit_wait*", "__wait_on_bit*", "out_of_line_wait_on_bit*", "folio_wait_bit*",
	"wait_on_page_bit*", "__folio_lock*", "__lock_page*", "usleep_range*",
	"percpu_rwsem_wait*", "__percpu_down_*", "__refrigerator", "do_nanosleep",
};

bool wchan__is_primitive(const struct wchan *w, __u64 addr, const char *name)
{
	if (w && w->sched_end && addr >= w->sched_start && addr < w->sched_end)
		return true;
	for (size_t i = 0; i < sizeof(primitives) / sizeof(primitives[0]); i++)
		if (!fnmatch(primitives[i], name, 0))
			return true;
	return false;
}

const char *wchan__reason(const struct wchan *w, const struct ksyms *k, const struct stack *s,
			  char *buf, size_t len)
{
	const struct ksym *sym;
	char name[256];

	snprintf(buf, len, "%s", s->missed ? "[missed kernel stack]" : "[unknown]");
	for (int i = 0; i < s->n && !s->missed; i++) {
		sym = k ? ksyms__find(k, s->ips[i]) : NULL;
		if (sym)
			snprintf(name, sizeof(name), "%s", sym->name);
		else
			snprintf(name, sizeof(name), "0x%llx", (unsigned long long)s->ips[i]);
		if (stacks__is_bpf_frame(name))
			continue;
		/* a primitive stays in buf only until a caller is found */
		snprintf(buf, len, "%s", name);
		if (!wchan__is_primitive(w, s->ips[i], name))
			break;
	}
	return buf;
}
