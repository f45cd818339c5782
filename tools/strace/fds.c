// SPDX-License-Identifier: GPL-2.0
/* strace-lite -y: the path of each file descriptor of each traced process. */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "strace_lite.h"

/*
 * -y: the path of each fd a traced process opened, from its open calls,
 * so that a line printed after the process closed it (or exited) still
 * names it. Forgotten at close and at exit.
 */
struct fdent {
	struct fdent *next;
	pid_t tgid;
	int fd;
	char *path;
};
#define FD_BUCKETS 1024
static struct fdent *fds[FD_BUCKETS];

static struct fdent **fd_find(pid_t tgid, int fd)
{
	struct fdent **p = &fds[((unsigned int)tgid * 31 + fd) % FD_BUCKETS];

	while (*p && ((*p)->tgid != tgid || (*p)->fd != fd))
		p = &(*p)->next;
	return p;
}

static void fd_remember(pid_t tgid, int fd, const char *path, size_t len);

const char *fds__known(pid_t tgid, int fd)
{
	struct fdent *e = *fd_find(tgid, fd);

	if (!e && fd == AT_FDCWD) {
		/* the cwd, kept from its first use until a chdir */
		char path[64], target[PATH_MAX];
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/%d/cwd", tgid);
		n = readlink(path, target, sizeof(target));
		if (n <= 0)
			return NULL;
		fd_remember(tgid, fd, target, n);
		e = *fd_find(tgid, fd);
	}
	return e ? e->path : NULL;
}

void fds__forget(pid_t tgid, int fd)
{
	struct fdent **p = fd_find(tgid, fd), *e = *p;

	if (e) {
		*p = e->next;
		free(e->path);
		free(e);
	}
}

static void fd_remember(pid_t tgid, int fd, const char *path, size_t len)
{
	struct fdent *e;

	fds__forget(tgid, fd);
	e = calloc(1, sizeof(*e));
	if (!e || !(e->path = strndup(path, len))) {
		free(e);
		return;
	}
	e->tgid = tgid;
	e->fd = fd;
	e->next = fds[((unsigned int)tgid * 31 + fd) % FD_BUCKETS];
	fds[((unsigned int)tgid * 31 + fd) % FD_BUCKETS] = e;
}

void fds__forget_process(pid_t tgid)
{
	for (int b = 0; b < FD_BUCKETS; b++) {
		for (struct fdent **p = &fds[b]; *p;) {
			struct fdent *e = *p;

			if (e->tgid == tgid) {
				*p = e->next;
				free(e->path);
				free(e);
			} else {
				p = &e->next;
			}
		}
	}
}

/*
 * What a call did to the fd table: opens before the line is printed (so
 * "= 3</path>"), closes after it (so "close(3</path>)").
 */
/*
 * An fd just opened: its path as /proc/PID/fd names it (what strace -y
 * prints), so relative to the directory it was opened in and with its
 * symlinks resolved (/lib/x.so is /usr/lib/x.so), while the file is there;
 * else as the call named it.
 */
static void remember_opened(pid_t tgid, int fd, int dirfd, const char *path, size_t len)
{
	char full[2 * PATH_MAX], *real;
	const char *base = path[0] == '/' ? NULL : fds__known(tgid, dirfd);

	if (path[0] != '/' && !base) {
		fd_remember(tgid, fd, path, len);
		return;
	}
	snprintf(full, sizeof(full), "%s%s%.*s", base ? base : "", base ? "/" : "", (int)len, path);
	real = realpath(full, NULL);
	if (real) {
		fd_remember(tgid, fd, real, strlen(real));
		free(real);
	} else {
		fd_remember(tgid, fd, path, len);
	}
}

void fds__track(const struct strace_enter *e, const struct strace_exit *x, bool before)
{
	const struct sysdecode_info *in = print__slot_info(e->h.slot);
	const char *name;

	if (!TRACK_FDS || !in || !x || e->h.slot >= STRACE_IA32 || x->ret < 0)
		return;
	name = in->name;
	if (in->ret == 'f' && before) {
		/* the first path argument copied names the new fd */
		for (int k = 0; k < STRACE_CAPS; k++) {
			int a = e->cap_arg[k];

			if (a < 6 && in->args[a] == 'p' && e->cap_len[k] > 0) {
				int dirfd = a > 0 && in->args[a - 1] == 'D' ? (int)e->args[a - 1] :
					    AT_FDCWD;

				remember_opened(e->h.tgid, x->ret, dirfd, e->cap[k], e->cap_len[k] - 1);
				return;
			}
		}
		if (!strncmp(name, "dup", 3)) {
			const char *p = fds__known(e->h.tgid, e->args[0]);

			if (p)
				fd_remember(e->h.tgid, x->ret, p, strlen(p));
			else	/* a copy of what we do not know: not what it was */
				fds__forget(e->h.tgid, x->ret);
		} else {
			fds__forget(e->h.tgid, x->ret);
		}
	} else if (!strcmp(name, "close") && !before) {
		fds__forget(e->h.tgid, e->args[0]);
	} else if (!strncmp(name, "chdir", 5) || !strcmp(name, "fchdir")) {
		if (!before)
			fds__forget(e->h.tgid, AT_FDCWD);
	}
}

/* Is fd of tgid close-on-exec? ("flags:" of /proc/<tgid>/fdinfo/<fd>, octal) */
static bool fd_cloexec(pid_t tgid, int fd)
{
	char path[96], line[128];
	unsigned long flags = 0;
	bool cloexec = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", tgid, fd);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "flags: %lo", &flags) == 1) {
			cloexec = flags & O_CLOEXEC;
			break;
		}
	}
	if (f)
		fclose(f);
	return cloexec;
}

/* -y: the fds a process has when tracing starts (inherited ones, stdio). */
void fds__snapshot(pid_t tgid)
{
	char dir[64], path[96], target[PATH_MAX];
	struct dirent *d;
	DIR *dp;
	int fd;

	if (!TRACK_FDS)
		return;
	fds__known(tgid, AT_FDCWD);	/* its cwd, while it is there to read */
	snprintf(dir, sizeof(dir), "/proc/%d/fd", tgid);
	dp = opendir(dir);
	while (dp && (d = readdir(dp))) {
		ssize_t n;

		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		fd = atoi(d->d_name);
		if (fd_cloexec(tgid, fd))	/* gone at exec */
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", tgid, fd);
		n = readlink(path, target, sizeof(target) - 1);
		if (n > 0)
			fd_remember(tgid, fd, target, n);
	}
	if (dp)
		closedir(dp);
}
