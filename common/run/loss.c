// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include "out/json.h"
#include "run/loss.h"
#include "run/msg.h"

static __u64 (*missed_fn)(void);

void loss__missed_from(__u64 (*fn)(void))
{
	missed_fn = fn;
}

__u64 loss__missed(void)
{
	return missed_fn ? missed_fn() : 0;
}

__u64 loss__total(const struct bpflite_loss *l)
{
	return l->events + l->stacks + l->map_full + l->unended;
}

void loss__report(const struct bpflite_loss *l, bool json)
{
	loss__report_to(l, json ? stdout : NULL);
}

void loss__report_to(const struct bpflite_loss *l, FILE *json)
{
	__u64 missed = loss__missed();
	struct json j;

	if (!loss__total(l) && !missed)
		return;
	if (l->events)
		msg__warn("%llu events lost (ring buffer full)", (unsigned long long)l->events);
	if (l->stacks)
		msg__warn("%llu stacks missed (stack map full or stack unavailable)",
			  (unsigned long long)l->stacks);
	if (l->map_full)
		msg__warn("%llu updates dropped (map full)", (unsigned long long)l->map_full);
	if (l->unended)
		msg__warn("%llu waits not timed: the kernel did not trace their start or end (sched_switch)",
			  (unsigned long long)l->unended);
	if (missed)
		msg__warn("%llu events missed: the kernel skipped the tool's program, already running on that CPU",
			  (unsigned long long)missed);
	if (json) {
		json__begin(&j, json);
		json__str(&j, "type", "loss");
		json__uint(&j, "lost_events", l->events);
		json__uint(&j, "lost_stacks", l->stacks);
		json__uint(&j, "map_full", l->map_full);
		json__uint(&j, "unended", l->unended);
		json__uint(&j, "missed", missed);
		json__end(&j);
	}
}

void counters__add(__u64 *sum, const __u64 *add, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sum[i] += add[i];
}
