/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Opening a file that someone else controls, as root, for reading: a
 * perf map in /tmp, a binary seen through /proc/PID/root or map_files, a
 * separate debug file named by a binary's .gnu_debuglink. The path is
 * opened with O_PATH first (no open of a FIFO or a device ever happens,
 * so nothing can block or have side effects), its last component not
 * followed (a symlink is refused), inside root_fd with RESOLVE_IN_ROOT
 * when the file lives in another mount namespace; then fstat() must show
 * a regular file within the size bounds and, when asked, an owner that is
 * root or the given uid (perf's rule for perf maps). Only then is it
 * reopened O_RDONLY|O_NONBLOCK (a lease cannot hold us either). Where
 * openat2 is refused (seccomp's ENOSYS), a file inside root_fd is not
 * opened at all (EPERM, said once): openat could leave the root.
 *
 * A file refused for any reason but not existing is named under -v:
 * "skipped PATH: WHY".
 */
#ifndef BPFLITE_SAFEOPEN_H
#define BPFLITE_SAFEOPEN_H

#include <stdbool.h>
#include <sys/types.h>

struct safeopen {
	off_t min_size;		/* smaller: refused (/proc files read as 0 bytes) */
	off_t max_size;		/* larger: refused; 0: no bound */
	bool follow;		/* the path is a kernel magic link (/proc/PID/map_files/...) */
	bool check_owner;	/* owned by root or by owner */
	uid_t owner;
};

/* An fd open for reading, or -1 with errno (EINVAL for a refused file). */
int safeopen(int root_fd, const char *path, const struct safeopen *o);

/*
 * An output file the user named (a profile), as root: created 0644
 * (O_EXCL), or truncated if it is a regular file owned by us with one
 * name; a symlink as the last component (ELOOP), a FIFO or device
 * (EINVAL), someone else's file (EPERM, as fs.protected_regular would
 * refuse it in /tmp) or a file with another hard link (EMLINK) is
 * refused, and nothing blocks. An fd open for writing, or -1 with errno.
 */
int safeopen_write(const char *path);

#endif
