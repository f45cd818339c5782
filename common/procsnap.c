// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include <linux/types.h>
#include "msg.h"
#include "procsnap.h"
#include "syms.h"

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
