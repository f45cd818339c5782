/* SPDX-License-Identifier: GPL-2.0 */
/* runqlat-lite: kernel <-> user ABI. */
#ifndef BPFLITE_RUNQLAT_H
#define BPFLITE_RUNQLAT_H

#include "abi/hist_abi.h"

/*
 * Tasks between wake-up and running at one time, and histograms (one per
 * process, thread or pid namespace) per interval. Both are bounded; what
 * does not fit is counted in loss.map_full.
 */
#define RUNQLAT_MAX_ENTRIES	10240

/*
 * Histogram key: tgid (-P), tid (-L), pid namespace inode (--pidnss), the
 * inode of the task's cgroup v2 directory (--cgroups: the low 32 bits of
 * its id) or 0.
 */
enum runqlat_by {
	BY_ALL = 0,
	BY_PROCESS,
	BY_THREAD,
	BY_PIDNS,
	BY_CGROUP,
};

#endif
