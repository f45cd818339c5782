// SPDX-License-Identifier: GPL-2.0
/*
 * blockread: a thread blocked in read(2) while another makes calls, for
 * strace-lite's pending call. With -t a thread reads fd 0 (a pipe of the
 * process's own) once; the main thread waits until that thread is asleep
 * in the read (its /proc/self/task/TID/syscall says read, through pread64
 * and openat, which the test does not trace), makes N getppid calls and
 * writes "hello\n" to the pipe, which ends the read. Without -t, the main
 * thread itself reads fd 0 (whatever the test feeds it) once and exits.
 * With -o PATH it opens PATH (a fifo: it blocks until the test opens it
 * for writing) for reading instead, with PATH in a page of a memfd that it
 * maps and never touches: no tracer can read the string at the call's
 * entry, and the kernel has read it when the open blocks.
 *   blockread [-t] [-n N] [-o PATH]
 */
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include "wl.h"

static char buf[64];

static void *reader(void *arg)
{
	(void)arg;
	return (void *)(long)syscall(SYS_read, 0, buf, sizeof(buf));
}

/* Is thread tid asleep in read(0, ...)? Only pread64 and openat/close to know. */
static int in_read(pid_t tid)
{
	char path[64], s[128];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = pread(fd, s, sizeof(s) - 1, 0);
	close(fd);
	if (n <= 0)
		return 0;
	s[n] = 0;
	return !strncmp(s, "0 0x0 ", 6);
}

static pid_t reader_tid;

/* open(PATH) with PATH where no page is faulted in; its fd, or -1 */
static int open_untouched(const char *path)
{
	size_t len = strlen(path) + 1;
	int fd = memfd_create("blockread", MFD_CLOEXEC);
	char *p;

	if (fd < 0 || write(fd, path, len) != (ssize_t)len)
		return -1;
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -1;
	return syscall(SYS_openat, AT_FDCWD, p, O_RDONLY);
}

static void *reader_named(void *arg)
{
	reader_tid = syscall(SYS_gettid);
	return reader(arg);
}

int main(int argc, char **argv)
{
	int opt, threaded = 0, p[2];
	const char *path = NULL;
	long n = 3;
	pthread_t th;
	void *ret;

	while ((opt = getopt(argc, argv, "tn:o:")) != -1) {
		switch (opt) {
		case 't': threaded = 1; break;
		case 'n': n = atol(optarg); break;
		case 'o': path = optarg; break;
		default:
			fprintf(stderr, "usage: blockread [-t] [-n N] [-o PATH]\n");
			return 2;
		}
	}
	if (path)
		return open_untouched(path) < 0;
	if (!threaded)
		return syscall(SYS_read, 0, buf, sizeof(buf)) < 0;
	if (pipe(p) || dup2(p[0], 0) < 0)
		return 1;
	if (pthread_create(&th, NULL, reader_named, NULL))
		return 1;
	alarm(60);
	while (!__atomic_load_n(&reader_tid, __ATOMIC_ACQUIRE) || !in_read(reader_tid))
		usleep(1000);
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	if (write(p[1], "hello\n", 6) != 6)
		return 1;
	pthread_join(th, &ret);
	return (long)ret == 6 ? 0 : 1;
}
