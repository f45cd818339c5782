// SPDX-License-Identifier: GPL-2.0
/*
 * statcalls: one of each stat and statfs call of x86_64 by its number
 * (glibc's stat() is newfstatat), then getpid and getppid, for strace's
 * -e trace= classes (%stat, %lstat, %fstat, %%stat, %statfs, %fstatfs,
 * %%statfs) and /REGEX, beside strace:
 *   statcalls
 */
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include "wl.h"

int main(void)
{
	struct statfs sfs;
	struct stat st;
	char buf[256];

	/* each may fail (ustat is gone from new kernels): the call is what counts */
	syscall(SYS_stat, "/", &st);
	syscall(SYS_lstat, "/", &st);
	syscall(SYS_fstat, 0, &st);
	syscall(SYS_newfstatat, AT_FDCWD, "/", &st, 0);
	syscall(SYS_statx, AT_FDCWD, "/", 0, 0x7ff, buf);
	syscall(SYS_statfs, "/", &sfs);
	syscall(SYS_fstatfs, 0, &sfs);
	syscall(SYS_ustat, 0, buf);
	syscall(SYS_getpid);
	syscall(SYS_getppid);
	return 0;
}
