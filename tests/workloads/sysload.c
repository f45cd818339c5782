// SPDX-License-Identifier: GPL-2.0
/*
 * sysload: exact numbers of system calls after the go signal, for
 * strace-lite. In order: open /dev/zero and read it R times one byte at a
 * time; open /dev/null and write "x" W times; F failing opens of
 * /nonexistent/sysload; N getppid; I ia32 getpid through int $0x80; with
 * -t a thread makes T getuid calls, with -c a child makes C getgid calls
 * and exits 7. Then it sleeps S ms (fds still open), prints one JSON line
 * and exits with X. The JSON line has the nanoseconds per call of the
 * getppid and read loops (for the benchmark).
 *   sysload [-n N] [-r R] [-w W] [-F F] [-i I] [-t T] [-c C] [-S ms] [-x X] [-g fifo]
 */
#include <fcntl.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "wl.h"

static long n_getppid = 100000, n_read = 5000, n_write = 3, n_fail = 1, n_ia32;
static long n_thread, n_child, sleep_ms, exit_code;
static long thread_tid;

static void *thread_fn(void *arg)
{
	(void)arg;
	thread_tid = syscall(SYS_gettid);
	for (long i = 0; i < n_thread; i++)
		syscall(SYS_getuid);
	return NULL;
}

/* ia32 getpid (nr 20) from 64-bit code: the kernel takes it as a compat call. */
static long ia32_getpid(void)
{
	long ret = 20;

	__asm__ volatile("int $0x80" : "+a"(ret) : : "memory");
	return ret;
}

int main(int argc, char **argv)
{
	const char *fifo = NULL;
	pthread_t th;
	pid_t child = 0;
	char c;
	int opt, fd;

	while ((opt = getopt(argc, argv, "n:r:w:F:i:t:c:S:x:g:")) != -1) {
		switch (opt) {
		case 'n': n_getppid = atol(optarg); break;
		case 'r': n_read = atol(optarg); break;
		case 'w': n_write = atol(optarg); break;
		case 'F': n_fail = atol(optarg); break;
		case 'i': n_ia32 = atol(optarg); break;
		case 't': n_thread = atol(optarg); break;
		case 'c': n_child = atol(optarg); break;
		case 'S': sleep_ms = atol(optarg); break;
		case 'x': exit_code = atol(optarg); break;
		case 'g': fifo = optarg; break;
		default: return 2;
		}
	}
	unsigned long long t0, getppid_ns, read_ns;
	pid_t ppid = 0;

	wl_wait_go(fifo);

	fd = syscall(SYS_openat, AT_FDCWD, "/dev/zero", O_RDONLY);
	t0 = wl_now_ns();
	for (long i = 0; i < n_read; i++)
		syscall(SYS_read, fd, &c, 1);
	read_ns = wl_now_ns() - t0;
	int out = syscall(SYS_openat, AT_FDCWD, "/dev/null", O_WRONLY);
	for (long i = 0; i < n_write; i++)
		syscall(SYS_write, out, "x", 1);
	for (long i = 0; i < n_fail; i++)
		syscall(SYS_openat, AT_FDCWD, "/nonexistent/sysload", O_RDONLY);
	/* loop times for the benchmark (clock_gettime is a vDSO call) */
	t0 = wl_now_ns();
	for (long i = 0; i < n_getppid; i++)
		ppid = syscall(SYS_getppid);
	getppid_ns = wl_now_ns() - t0;
	for (long i = 0; i < n_ia32; i++)
		ia32_getpid();
	if (n_thread) {
		pthread_create(&th, NULL, thread_fn, NULL);
		pthread_join(th, NULL);
	}
	if (n_child) {
		child = fork();
		if (child == 0) {
			for (long i = 0; i < n_child; i++)
				syscall(SYS_getgid);
			_exit(7);
		}
		waitpid(child, NULL, 0);
	}
	if (sleep_ms) {
		struct timespec ts = { sleep_ms / 1000, sleep_ms % 1000 * 1000000 };

		nanosleep(&ts, NULL);
	}
	printf("{\"pid\":%d,\"ppid\":%d,\"thread_tid\":%ld,\"child\":%d,\"zero_fd\":%d,\"null_fd\":%d,"
	       "\"getppid_ns_per_call\":%.1f,\"read_ns_per_call\":%.1f}\n",
	       getpid(), ppid, thread_tid, child, fd, out,
	       n_getppid ? (double)getppid_ns / n_getppid : 0, n_read ? (double)read_ns / n_read : 0);
	fflush(stdout);
	return exit_code;
}
