// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include "load/maps.h"
#include "run/msg.h"
#include "syms/procsnap.h"
#include "syms/syms.h"

int procsnap__event(void *ctx, void *data, size_t len)
{
	struct usyms *u = ctx;
	__u32 tgid;
	int err;

	if (len < sizeof(tgid))
		return 0;
	memcpy(&tgid, data, sizeof(tgid));
	err = usyms__refresh(u, tgid);
	/* gone already: its frames will read module+offset or [unknown] */
	msg__verbose("snapshot of process %u: %s", tgid, err ? strerror(-err) : "ok");
	return 0;
}

/* Processes known to the symbolizer before exited ones are pruned. */
#define PRUNE_AT	4096

struct tgids {
	__u32 *v;
	size_t n;
};

static int cmp_u32(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

static bool in_map(pid_t tgid, void *ctx)
{
	const struct tgids *t = ctx;
	__u32 k = tgid;

	return bsearch(&k, t->v, t->n, sizeof(k), cmp_u32);
}

/*
 * Every 50 calls (5 s of 100 ms ticks): when many processes have come and
 * gone, forget the exited ones with no key left in the maps, so a long
 * run does not grow.
 */
void procsnap__prune(struct usyms *u, const int *fds, const size_t *key_sizes, int nr)
{
	static size_t prune_at;
	static int ticks;
	struct tgids t = { 0 };
	size_t before;
	void *keys, *q;
	__u32 n, i;

	if (!prune_at)	/* tests lower it */
		prune_at = getenv("BPFLITE_PRUNE_AT") ? strtoul(getenv("BPFLITE_PRUNE_AT"), NULL, 0) : 0;
	if (!prune_at)
		prune_at = PRUNE_AT;
	if (++ticks % 50 || usyms__count(u) < prune_at)
		return;
	for (int m = 0; m < nr; m++) {
		/* a map not read whole would forget processes still in it */
		if (map__keys(fds[m], key_sizes[m], 0, &keys, &n))
			goto out;
		q = realloc(t.v, (t.n + n + 1) * sizeof(*t.v));
		if (!q) {
			free(keys);
			goto out;
		}
		t.v = q;
		for (i = 0; i < n; i++)
			memcpy(&t.v[t.n++], (char *)keys + i * key_sizes[m], sizeof(*t.v));
		free(keys);
	}
	qsort(t.v, t.n, sizeof(*t.v), cmp_u32);
	before = usyms__count(u);
	usyms__prune(u, in_map, &t);
	msg__verbose("symbolizer: pruned %zu exited processes, %zu left",
		     before - usyms__count(u), usyms__count(u));
out:
	free(t.v);
}
