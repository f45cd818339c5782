// SPDX-License-Identifier: GPL-2.0
/* strace-lite -y: the path of each file descriptor of each traced process. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <linux/magic.h>
#include "strace_lite.h"

/*
 * -y: each traced process's fd table as its calls made it: opens (the
 * path the call named), dups, fcntl(F_DUPFD), pipes and sockets (named by
 * the inode BPF read from the fd table as the call returned: EV_FDS),
 * closes, close_range, the close-on-exec fds an execve closed
 * (EV_EXEC_FDS), and a forked child's copy of its parent's table. /proc
 * is read only for the fds a process had when tracing began: at -p, for
 * the command before its exec, or at its first line when it joined by
 * itself (-u). A number whose file is not known prints bare: a path read
 * from /proc later would be the file the number names by then.
 * Memory: entries of open fds only; forgotten at close, exec and exit.
 */
struct fdent {
	struct fdent *next;
	pid_t tgid;
	int fd;
	bool made;	/* EV_FDS came for it: the call's exit is still to come */
	__u32 dev;	/* the file's, from EV_FDS (kernel dev_t); ino 0: not known */
	__u32 mnt;	/* its mount's id */
	__u64 ino;
	char *path;	/* NULL: not known */
};
#define FD_BUCKETS 1024
/* the entry that says a process's table is followed (its /proc snapshot taken) */
#define FD_TABLE INT_MIN
static struct fdent *fds[FD_BUCKETS];

static unsigned int fd_bucket(pid_t tgid, int fd)
{
	return ((unsigned int)tgid * 31 + (unsigned int)fd) % FD_BUCKETS;
}

static struct fdent **fd_find(pid_t tgid, int fd)
{
	struct fdent **p = &fds[fd_bucket(tgid, fd)];

	while (*p && ((*p)->tgid != tgid || (*p)->fd != fd))
		p = &(*p)->next;
	return p;
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

/* A new entry for fd (what was there is forgotten); NULL when out of memory. */
static struct fdent *fd_new(pid_t tgid, int fd)
{
	struct fdent *e;

	fds__forget(tgid, fd);
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->tgid = tgid;
	e->fd = fd;
	e->next = fds[fd_bucket(tgid, fd)];
	fds[fd_bucket(tgid, fd)] = e;
	return e;
}

static void fd_remember(pid_t tgid, int fd, const char *path, size_t len)
{
	struct fdent *e = fd_new(tgid, fd);

	if (e)
		e->path = strndup(path, len);
}

/* Forget the fds of tgid that drop(fd, ctx) says are gone. */
static void fd_drop_if(pid_t tgid, bool (*drop)(int fd, const void *ctx), const void *ctx)
{
	for (int b = 0; b < FD_BUCKETS; b++) {
		for (struct fdent **p = &fds[b]; *p;) {
			struct fdent *e = *p;

			if (e->tgid == tgid && drop(e->fd, ctx)) {
				*p = e->next;
				free(e->path);
				free(e);
			} else {
				p = &e->next;
			}
		}
	}
}

static bool any_fd(int fd, const void *ctx)
{
	(void)fd;
	(void)ctx;
	return true;
}

void fds__forget_process(pid_t tgid)
{
	fd_drop_if(tgid, any_fd, NULL);
}

/*
 * A process that joined by itself (-u, a lost fork event): the fds it had
 * then. Taken before any entry of it is made or held: the snapshot
 * replaces the entries of the fds it lists.
 */
static void table(pid_t tgid)
{
	if (!*fd_find(tgid, FD_TABLE))
		fds__snapshot(tgid);
}

const char *fds__known(pid_t tgid, int fd)
{
	struct fdent *e;

	table(tgid);
	e = *fd_find(tgid, fd);
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

/* st_dev as the kernel's dev_t (major << 20 | minor), as BPF reads s_dev */
static __u32 kdev(dev_t d)
{
	return major(d) << 20 | minor(d);
}

/*
 * Is path (a magic link of /proc or a path of ours) the file of dev:ino
 * (or mnt:ino: overlayfs and btrfs report another st_dev than their super
 * block's) now? O_PATH opens nothing (a FIFO or device cannot block us)
 * and the attributes are the cached ones (a FUSE server is not asked).
 */
static bool same_file(const char *path, __u32 dev, __u32 mnt, __u64 ino)
{
	struct statx stx;
	int fd = open(path, O_PATH | O_CLOEXEC);
	bool same;

	if (fd < 0)
		return false;
	same = !statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_INO | STATX_MNT_ID, &stx) &&
	       stx.stx_ino == ino &&
	       (kdev(makedev(stx.stx_dev_major, stx.stx_dev_minor)) == dev ||
		((stx.stx_mask & STATX_MNT_ID) && mnt && stx.stx_mnt_id == mnt));
	close(fd);
	return same;
}

/* /proc/PID/fd/N's name while it is still dev:ino (the kernel's name of it) */
static bool proc_name(struct fdent *e)
{
	char link[64], target[PATH_MAX], again[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/fd/%d", e->tgid, e->fd);
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0 || !same_file(link, e->dev, e->mnt, e->ino))
		return false;
	target[n] = 0;
	/* the number may have been closed and reopened between the two looks */
	if (readlink(link, again, sizeof(again)) != n || memcmp(target, again, n))
		return false;
	free(e->path);
	e->path = strdup(target);
	return true;
}

/*
 * An fd an open call made: its path as the kernel names it (what strace
 * -y prints): the name relative to the directory it was opened in and
 * with its symlinks resolved (/lib/x.so is /usr/lib/x.so). The resolved
 * name is taken when it is the file the call opened (EV_FDS's inode), or
 * the fd's /proc link while the fd is that file; else the name as the
 * call gave it, joined to its directory (a file since renamed or removed).
 */
static void remember_opened(struct fdent *e, int dirfd, const char *path, size_t len)
{
	char full[2 * PATH_MAX], *real;
	const char *base = path[0] == '/' ? NULL : fds__known(e->tgid, dirfd);

	free(e->path);
	e->path = NULL;
	if (path[0] != '/' && !base) {
		e->path = strndup(path, len);
		return;
	}
	snprintf(full, sizeof(full), "%s%s%.*s", base ? base : "",
		 base && strcmp(base, "/") ? "/" : "", (int)len, path);
	real = realpath(full, NULL);
	if (real && (!e->ino || same_file(real, e->dev, e->mnt, e->ino))) {
		e->path = real;
		return;
	}
	free(real);
	if (e->ino && proc_name(e))
		return;
	e->path = strdup(full);
}

/* Pipes, sockets and anonymous inodes: the kernel's name of them, from EV_FDS */
static char *pseudo_name(__u32 magic, __u64 ino, const char *name)
{
	char buf[64];

	switch (magic) {
	case PIPEFS_MAGIC:
		snprintf(buf, sizeof(buf), "pipe:[%llu]", (unsigned long long)ino);
		break;
	case SOCKFS_MAGIC:
		snprintf(buf, sizeof(buf), "socket:[%llu]", (unsigned long long)ino);
		break;
	case ANON_INODE_FS_MAGIC:
		snprintf(buf, sizeof(buf), "anon_inode:%.*s", STRACE_FDNAME_MAX, name);
		break;
	default:
		return NULL;
	}
	return strdup(buf);
}

static void on_fds(const struct strace_fds *x)
{
	table(x->h.tgid);
	for (int k = 0; k < 2; k++) {
		struct fdent *e;

		if (x->fd[k] < 0)
			continue;
		e = fd_new(x->h.tgid, x->fd[k]);
		if (!e)
			continue;
		e->made = true;
		e->dev = x->dev[k];
		e->mnt = x->mnt[k];
		e->ino = x->ino[k];
		e->path = pseudo_name(x->magic[k], x->ino[k], x->name[k]);
	}
}

static bool closed_at_exec(int fd, const void *ctx)
{
	const __u64 *open = ctx;

	return fd >= 0 && fd < STRACE_EXEC_FDS && !(open[fd / 64] & (1ULL << (fd % 64)));
}

void fds__event(const void *data, size_t size)
{
	const struct strace_hdr *h = data;

	if (!TRACK_FDS)
		return;
	if (h->type == EV_FDS && size >= sizeof(struct strace_fds))
		on_fds(data);
	else if (h->type == EV_EXEC_FDS && size >= sizeof(struct strace_exec_fds))
		fd_drop_if(h->tgid, closed_at_exec, ((const struct strace_exec_fds *)data)->open);
}

void fds__fork(const struct strace_fork *x)
{
	struct fdent *copy = NULL;

	if (!TRACK_FDS || x->h.tgid == x->parent_tgid)
		return;	/* a thread: one table */
	table(x->parent_tgid);
	/* a new process: a copy of its parent's table (one table with CLONE_FILES) */
	fds__forget_process(x->h.tgid);
	for (int b = 0; b < FD_BUCKETS; b++) {
		for (struct fdent *e = fds[b]; e; e = e->next) {
			struct fdent *c;

			if (e->tgid != (pid_t)x->parent_tgid || !(c = malloc(sizeof(*c))))
				continue;
			*c = *e;
			c->tgid = x->h.tgid;
			c->path = e->path ? strdup(e->path) : NULL;
			c->next = copy;
			copy = c;
		}
	}
	while (copy) {
		struct fdent *c = copy;

		copy = c->next;
		c->next = fds[fd_bucket(c->tgid, c->fd)];
		fds[fd_bucket(c->tgid, c->fd)] = c;
	}
}

static bool in_range(int fd, const void *ctx)
{
	const unsigned long long *r = ctx;

	return fd >= 0 && (unsigned long long)fd >= r[0] && (unsigned long long)fd <= r[1];
}

/* The fd a call made from another (dup, dup2, dup3, fcntl's F_DUPFD): its copy. */
static void remember_dup(pid_t tgid, int from, int to)
{
	struct fdent *src, *e;
	char *path;

	if (from == to)
		return;
	/* a copy of what we do not know: not what was there */
	fds__known(tgid, from);
	src = *fd_find(tgid, from);
	if (!src) {
		fds__forget(tgid, to);
		return;
	}
	path = src->path ? strdup(src->path) : NULL;
	e = fd_new(tgid, to);
	src = *fd_find(tgid, from);
	if (!e || !src) {
		free(path);
		return;
	}
	e->dev = src->dev;
	e->mnt = src->mnt;
	e->ino = src->ino;
	e->path = path;
}

/*
 * The path argument a call copied, or NULL: at its entry, or (its page
 * not in memory then) as it blocked or at its exit, put in the entry's
 * place by print.c's blocked_str().
 */
static const char *call_path(const struct sysdecode_info *in, const struct strace_enter *e,
			     int *arg, size_t *len)
{
	for (int k = 0; k < STRACE_CAPS; k++) {
		int a = e->cap_arg[k];

		if (a < 6 && in->args[a] == 'p' && e->cap_len[k] > 0) {
			*arg = a;
			*len = strnlen(e->cap[k], e->cap_len[k]);
			return e->cap[k];
		}
	}
	return NULL;
}

/*
 * What a call did to the fd table: opens before the line is printed (so
 * "= 3</path>"), closes after it (so "close(3</path>)").
 */
void fds__track(const struct strace_enter *e, const struct strace_exit *x, bool before)
{
	const struct sysdecode_info *in = print__slot_info(e->h.slot);
	pid_t tgid = e->h.tgid;
	const char *name;
	bool dupfd;

	if (!TRACK_FDS || !in || !x || e->h.slot >= STRACE_IA32)
		return;
	table(tgid);
	name = in->name;
	if (!before) {
		if (!strcmp(name, "close") && x->ret != -EBADF) {
			fds__forget(tgid, e->args[0]);	/* closed even when it fails otherwise */
		} else if (!strcmp(name, "close_range") && !x->ret && !(e->args[2] & 4)) {
			/* CLOSE_RANGE_CLOEXEC (4) closes them at the next execve: EV_EXEC_FDS */
			unsigned long long r[2] = { (unsigned int)e->args[0],
						    (unsigned int)e->args[1] };

			fd_drop_if(tgid, in_range, r);
		} else if ((!strcmp(name, "chdir") || !strcmp(name, "fchdir")) && !x->ret) {
			fds__forget(tgid, AT_FDCWD);
		}
		return;
	}
	dupfd = !strcmp(name, "fcntl") &&
		((int)e->args[1] == F_DUPFD || (int)e->args[1] == F_DUPFD_CLOEXEC);
	if ((in->ret != 'f' && !dupfd) || x->ret < 0 || x->ret > INT_MAX) {
		return;
	} else if (dupfd || !strncmp(name, "dup", 3)) {
		remember_dup(tgid, e->args[0], x->ret);
	} else {
		struct fdent *n = *fd_find(tgid, x->ret);
		size_t len;
		int a;
		const char *path = call_path(in, e, &a, &len);

		/* EV_FDS's entry is this call's; another is from before */
		if (!n || !n->made)
			n = fd_new(tgid, x->ret);
		if (!n)
			return;
		n->made = false;
		if (path) {
			remember_opened(n, a > 0 && in->args[a - 1] == 'D' ? (int)e->args[a - 1] :
					AT_FDCWD, path, len);
		} else if (!n->path && n->ino) {
			/* memfd_create, open_by_handle_at...: the kernel's name */
			proc_name(n);
		}
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

/*
 * -y: the fds a process has when tracing starts (inherited ones, stdio),
 * close-on-exec ones left out when exec is to come (the command).
 */
static void snapshot(pid_t tgid, bool exec_next)
{
	char dir[64], path[96], target[PATH_MAX];
	struct dirent *d;
	DIR *dp;
	int fd;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", tgid);
	dp = opendir(dir);
	if (!dp)	/* gone: nothing to keep */
		return;
	fd_new(tgid, FD_TABLE);
	fds__known(tgid, AT_FDCWD);	/* its cwd, while it is there to read */
	while ((d = readdir(dp))) {
		ssize_t n;

		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		fd = atoi(d->d_name);
		if (exec_next && fd_cloexec(tgid, fd))	/* gone at exec */
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", tgid, fd);
		n = readlink(path, target, sizeof(target) - 1);
		if (n > 0)
			fd_remember(tgid, fd, target, n);
	}
	closedir(dp);
}

void fds__snapshot(pid_t tgid)
{
	if (TRACK_FDS)
		snapshot(tgid, false);
}

void fds__snapshot_exec(pid_t tgid)
{
	if (TRACK_FDS)
		snapshot(tgid, true);
}
