// SPDX-License-Identifier: GPL-2.0
/*
 * offcpu: two named functions that block in two different ways, for
 * offcputime-lite's tests:
 *   offcpu_sleep_fn  nanosleep(2) of SLEEP_MS, -n times;
 *   offcpu_pipe_fn   read(2) of a pipe that a child process answers after
 *                    PIPE_MS, -n times.
 * Each measures its own blocked time around the system call. The calls
 * are made by inline "syscall" instructions inside the named functions
 * (glibc is built without frame pointers: through its wrappers the user
 * stack would lose the caller), so the function is the leaf of the user
 * stack and its caller, main, the next frame.
 *
 * With -v MS, it also vforks once a child that sleeps MS: the parent
 * waits for it in a killable wait (TASK_UNINTERRUPTIBLE | TASK_WAKEKILL).
 *
 *   offcpu [-n N] [-s SLEEP_MS] [-p PIPE_MS] [-v VFORK_MS] [-g GO_FIFO]
 * prints one JSON line at the end: {"pid", "sleep_us", "pipe_us", "n"}.
 */
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "wl.h"

static long raw_syscall3(long nr, long a, long b, long c);

static long raw_syscall3(long nr, long a, long b, long c)
{
	return SYSCALL3(nr, a, b, c);
}

__attribute__((noinline)) unsigned long long offcpu_sleep_fn(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	unsigned long long t0 = wl_now_ns();

	while (SYSCALL3(SYS_nanosleep, &ts, &ts, 0) == -EINTR)
		;
	return wl_now_ns() - t0;
}

__attribute__((noinline)) unsigned long long offcpu_pipe_fn(int req_fd, int resp_fd)
{
	unsigned long long t0 = wl_now_ns();
	char c = 'q';

	/* the request: a write that never blocks (an empty pipe) */
	raw_syscall3(SYS_write, req_fd, (long)&c, 1);
	while (SYSCALL3(SYS_read, resp_fd, &c, 1) == -EINTR)
		;
	return wl_now_ns() - t0;
}

__attribute__((noinline)) void offcpu_vfork_fn(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	/*
	 * vfork by an inline syscall too: the parent's wait is then under
	 * this function on the user stack. The child makes only system calls
	 * (it shares our memory and stack) and exits.
	 */
	if (SYSCALL3(SYS_vfork, 0, 0, 0) == 0) {
		SYSCALL3(SYS_nanosleep, &ts, NULL, 0);
		SYSCALL3(SYS_exit, 0, 0, 0);
	}
	wait(NULL);
}

/* The other process: answers each request after ms. */
static void answerer(int req_fd, int resp_fd, int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	char c;

	while (read(req_fd, &c, 1) == 1) {
		nanosleep(&ts, NULL);
		if (write(resp_fd, &c, 1) != 1)
			break;
	}
	_exit(0);
}

int main(int argc, char **argv)
{
	int n = 8, sleep_ms = 75, pipe_ms = 25, vfork_ms = 0, opt, req[2], resp[2], i;
	unsigned long long sleep_ns = 0, pipe_ns = 0;
	const char *go = NULL;
	pid_t child;

	while ((opt = getopt(argc, argv, "n:s:p:v:g:")) != -1) {
		switch (opt) {
		case 'n': n = atoi(optarg); break;
		case 's': sleep_ms = atoi(optarg); break;
		case 'p': pipe_ms = atoi(optarg); break;
		case 'v': vfork_ms = atoi(optarg); break;
		case 'g': go = optarg; break;
		default:
			fprintf(stderr, "usage: offcpu [-n N] [-s SLEEP_MS] [-p PIPE_MS] [-v VFORK_MS] [-g GO_FIFO]\n");
			return 2;
		}
	}
	if (pipe(req) || pipe(resp)) {
		perror("pipe");
		return 1;
	}
	child = fork();
	if (child < 0) {
		perror("fork");
		return 1;
	}
	if (child == 0) {
		close(req[1]);
		close(resp[0]);
		answerer(req[0], resp[1], pipe_ms);
	}
	close(req[0]);
	close(resp[1]);
	wl_wait_go(go);
	for (i = 0; i < n; i++) {
		sleep_ns += offcpu_sleep_fn(sleep_ms);
		pipe_ns += offcpu_pipe_fn(req[1], resp[0]);
	}
	if (vfork_ms)
		offcpu_vfork_fn(vfork_ms);
	close(req[1]);
	waitpid(child, NULL, 0);
	printf("{\"pid\":%d,\"n\":%d,\"sleep_us\":%llu,\"pipe_us\":%llu}\n", getpid(), n,
	       sleep_ns / 1000, pipe_ns / 1000);
	return 0;
}
