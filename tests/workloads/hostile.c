// SPDX-License-Identifier: GPL-2.0
/*
 * hostile: a process whose every user-chosen string carries what a
 * terminal or a line-based parser must never see raw: a newline, the
 * "clear screen" sequence ESC [ 2 J, a ';' (the folded-stack separator),
 * an invalid UTF-8 byte (0xff) and a C1 control (U+009B, CSI).
 *
 *   hostile -d DIR [-g GO_FIFO]
 * After go, it names itself COMM and does, in order:
 *   3 opens (O_CREAT) of DIR/FILE;
 *   3 nanosleeps of 30 ms in hostile_sleep_fn (for offcputime-lite);
 *   a vfork whose child (same comm) sleeps 150 ms: the parent waits in a
 *   killable D sleep and the child wakes it (for dstate-lite);
 *   a child that execs DIR/EXE (a symlink to /bin/true: the new comm is
 *   EXE) with argv { EXE, ARG }.
 * It prints one JSON line at the end: {"pid", "exec_pid"}.
 */
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "wl.h"

#define EVIL	"\n\x1b[2J;\xff"
#define COMM	"h" EVIL			/* 8 bytes: fits TASK_COMM_LEN */
#define FILE_	"f" EVIL "\xc2\x9b.txt"
#define EXE	"e" EVIL
#define ARG	"a" EVIL "\xc2\x9b"

/*
 * The syscall instruction inline (as in offcpu.c): glibc has no frame
 * pointers, so through its wrapper the user stack would lose this frame.
 */
static __attribute__((noinline)) void hostile_sleep_fn(void)
{
	struct timespec ts = { 0, 30 * 1000000L };
	register long a asm("rdi") = (long)&ts;
	register long b asm("rsi") = 0;
	long ret;

	asm volatile("syscall" : "=a"(ret) : "0"((long)SYS_nanosleep), "r"(a), "r"(b)
		     : "rcx", "r11", "memory");
	(void)ret;
}

int main(int argc, char **argv)
{
	const char *fifo = NULL, *dir = NULL;
	char path[4096], exe[4096];
	pid_t child;
	int opt, i, st;

	while ((opt = getopt(argc, argv, "d:g:")) != -1) {
		switch (opt) {
		case 'd': dir = optarg; break;
		case 'g': fifo = optarg; break;
		default: return 2;
		}
	}
	if (!dir)
		return 2;
	snprintf(path, sizeof(path), "%s/%s", dir, FILE_);
	snprintf(exe, sizeof(exe), "%s/%s", dir, EXE);
	unlink(exe);
	if (symlink("/bin/true", exe)) {
		perror("symlink");
		return 1;
	}
	wl_wait_go(fifo);
	prctl(PR_SET_NAME, COMM);
	for (i = 0; i < 3; i++) {
		int fd = open(path, O_CREAT | O_WRONLY, 0600);

		if (fd >= 0)
			close(fd);
	}
	for (i = 0; i < 3; i++)
		hostile_sleep_fn();
	child = vfork();
	if (child == 0) {
		struct timespec ts = { 0, 150 * 1000000L };

		nanosleep(&ts, NULL);
		_exit(0);
	}
	waitpid(child, &st, 0);
	child = fork();
	if (child == 0) {
		/* on the stack: pages the kernel can read at exec (rodata may be untouched) */
		char a0[] = EXE, a1[] = ARG;
		char *args[] = { a0, a1, NULL };

		execv(exe, args);
		_exit(127);
	}
	waitpid(child, &st, 0);
	printf("{\"pid\":%d,\"exec_pid\":%d}\n", getpid(), child);
	return 0;
}
