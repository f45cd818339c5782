// SPDX-License-Identifier: GPL-2.0
/*
 * leadexit: a process whose main thread ends before its other thread, for
 * the order of strace-lite -f's exit lines. The main thread starts a
 * thread and ends itself alone (exit(2), not exit_group); the thread waits
 * until the main thread is a zombie (its /proc/self/task/PID/stat, through
 * openat, read and close, which the test does not trace), makes N getppid
 * calls and ends the process with exit_group(CODE).
 *   leadexit [-n N] [-c CODE]
 */
#include <pthread.h>
#include <sys/syscall.h>
#include "wl.h"

static long n = 3;
static int code = 3;

/* Is the main thread a zombie? Its stat's third field says. */
static int leader_gone(void)
{
	char path[64], s[256], *p;
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)getpid());
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	len = read(fd, s, sizeof(s) - 1);
	close(fd);
	if (len <= 0)
		return 0;
	s[len] = 0;
	p = strrchr(s, ')');
	return p && p[1] == ' ' && p[2] == 'Z';
}

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 60000 && !leader_gone(); i++)
		usleep(1000);
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	syscall(SYS_exit_group, code);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;
	int opt;

	while ((opt = getopt(argc, argv, "n:c:")) != -1) {
		switch (opt) {
		case 'n': n = atol(optarg); break;
		case 'c': code = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: leadexit [-n N] [-c CODE]\n");
			return 2;
		}
	}
	if (pthread_create(&th, NULL, worker, NULL))
		return 1;
	syscall(SYS_exit, 0);	/* this thread only */
	return 1;
}
