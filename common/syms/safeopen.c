// SPDX-License-Identifier: GPL-2.0
/* Opening untrusted files without blocking or following links (safeopen.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>
#include "out/esc.h"
#include "run/msg.h"
#include "syms/safeopen.h"

static int open_path(int root_fd, const char *path, bool follow)
{
	int flags = O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW);
	struct open_how how = {
		.flags = flags,
		/* symlinks inside the container stay inside it (5.6) */
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	int fd;

	if (root_fd < 0)
		return open(path, flags);
	while (*path == '/')
		path++;
	fd = syscall(SYS_openat2, root_fd, path, &how, sizeof(how));
	/*
	 * No openat2 (a seccomp profile's ENOSYS, or E2BIG): refused. Plain
	 * openat would resolve an absolute symlink in the middle of the path
	 * against the host's root, out of the other mount namespace. Every
	 * kernel with BTF that the tools support has openat2 (5.6).
	 */
	if (fd < 0 && (errno == ENOSYS || errno == E2BIG)) {
		static bool said;

		if (!said)
			msg__warn("openat2 is refused here (%s): files of other mount namespaces "
				  "are not opened, their symbols stay unnamed", strerror(errno));
		said = true;
		errno = EPERM;
	}
	return fd;
}

static const char *type_name(mode_t m)
{
	return S_ISLNK(m) ? "a symbolic link" : S_ISFIFO(m) ? "not a regular file (FIFO)" :
	       S_ISSOCK(m) ? "not a regular file (socket)" :
	       S_ISCHR(m) || S_ISBLK(m) ? "not a regular file (device)" :
	       S_ISDIR(m) ? "not a regular file (directory)" : "not a regular file";
}

static void skipped(const char *path, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void skipped(const char *path, const char *fmt, ...)
{
	char p[1024], why[128];
	va_list ap;

	if (!msg_verbose)
		return;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	msg__verbose("skipped %s: %s", esc__cstr(p, sizeof(p), path, 0), why);
}

int safeopen(int root_fd, const char *path, const struct safeopen *o)
{
	char self[64];
	struct stat st;
	int fd, rfd;

	fd = open_path(root_fd, path, o->follow);
	if (fd < 0) {
		int err = errno;

		if (err != ENOENT && err != ENOTDIR)
			skipped(path, "%s", err == ELOOP ? "a symbolic link" : strerror(err));
		errno = err;
		return -1;
	}
	if (fstat(fd, &st)) {
		skipped(path, "%s", strerror(errno));
		goto refuse;
	}
	if (!S_ISREG(st.st_mode)) {
		skipped(path, "%s", type_name(st.st_mode));
		goto refuse;
	}
	if (st.st_size < o->min_size) {
		skipped(path, "%lld bytes: too small", (long long)st.st_size);
		goto refuse;
	}
	if (o->max_size && st.st_size > o->max_size) {
		skipped(path, "%lld bytes: over the %lld MiB bound", (long long)st.st_size,
			(long long)(o->max_size >> 20));
		goto refuse;
	}
	if (o->check_owner && st.st_uid != 0 && st.st_uid != o->owner) {
		skipped(path, "owned by uid %u, not by the process's user (%u) or root",
			(unsigned int)st.st_uid, (unsigned int)o->owner);
		goto refuse;
	}
	/* the very inode checked, now for reading; a lease must not block us */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	rfd = open(self, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (rfd < 0)
		skipped(path, "%s", strerror(errno));
	close(fd);
	return rfd;
refuse:
	close(fd);
	errno = EINVAL;
	return -1;
}

int safeopen_write(const char *path)
{
	struct stat st;
	int fd, fl;

	/*
	 * A new file first (O_EXCL): then nothing of anyone else's is
	 * touched. An existing one is not followed if it is a symlink, not
	 * blocked on if a FIFO, and nothing is truncated until it is known to
	 * be a regular file of ours with no other name (a hard link someone
	 * made to a file of ours, in a shared folder, would be truncated
	 * through it).
	 */
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
	if (fd < 0 && errno == EEXIST)
		fd = open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st)) {
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || st.st_nlink != 1) {
		close(fd);
		errno = !S_ISREG(st.st_mode) ? EINVAL : st.st_uid != geteuid() ? EPERM : EMLINK;
		return -1;
	}
	fl = fcntl(fd, F_GETFL);
	if (ftruncate(fd, 0) || fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK)) {
		close(fd);
		return -1;
	}
	return fd;
}
