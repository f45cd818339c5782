// SPDX-License-Identifier: GPL-2.0
/*
 * churn: task churn for the long-run tests. Creates and joins -t short
 * threads (-w at a time), then forks -p child processes that exit at
 * once and reaps each. Every thread and child yields the CPU once before
 * it exits, so it leaves the CPU at least once before it dies, as real
 * short-lived tasks do.
 *
 * With -v, each child process vforks once: it waits for its own child in
 * a killable (D) sleep, so every process leaves one D episode behind.
 * With -e, each child process execs this program again (churn -x, which
 * exits at once): one exec per process.
 *
 *   churn [-t THREADS] [-p PROCS] [-w WIDTH] [-v] [-e] [-g GO_FIFO]
 * prints one JSON line at the end: {"pid", "threads", "procs", "ms"}.
 */
#include <sched.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "wl.h"

/* Inline: no glibc frame (built without frame pointers) between us and the kernel. */
#define SYSCALL1(nr, a) ({						\
	long __ret;							\
	register long __a asm("rdi") = (long)(a);			\
	asm volatile("syscall" : "=a"(__ret) : "0"((long)(nr)), "r"(__a)	\
		     : "rcx", "r11", "memory");				\
	__ret;								\
})

#define STACK_SIZE	(64 * 1024)

/*
 * A thread made by clone(2) directly, not pthread_create(): glibc's
 * clone() clears the frame pointer before calling it, so its user stack
 * ends cleanly (churn_thread_fn, __clone) and every thread has the same
 * one. It shares the creator's TLS, so it makes raw system calls only.
 */
__attribute__((noinline)) static int churn_thread_fn(void *arg)
{
	(void)arg;
	SYSCALL1(SYS_sched_yield, 0);
	SYSCALL1(SYS_exit, 0);
	return 0;
}

/* CLONE_CHILD_CLEARTID zeroes *ctid and wakes it when the thread is gone. */
static void join(volatile pid_t *ctid)
{
	pid_t t;

	while ((t = *ctid) != 0)
		syscall(SYS_futex, ctid, FUTEX_WAIT, t, NULL, NULL, 0);
}

int main(int argc, char **argv)
{
	int threads = 50000, procs = 5000, width = 4, opt, i, j, done_t = 0, done_p = 0;
	int vfork_once = 0, exec_once = 0;
	const char *go = NULL;
	unsigned long long t0;
	static volatile pid_t ctids[64];
	static char stacks[64][STACK_SIZE] __attribute__((aligned(16)));

	while ((opt = getopt(argc, argv, "t:p:w:g:vex")) != -1) {
		switch (opt) {
		case 'x': return 0;
		case 'v': vfork_once = 1; break;
		case 'e': exec_once = 1; break;
		case 't': threads = atoi(optarg); break;
		case 'p': procs = atoi(optarg); break;
		case 'w': width = atoi(optarg); break;
		case 'g': go = optarg; break;
		default:
			fprintf(stderr, "usage: churn [-t THREADS] [-p PROCS] [-w WIDTH] [-v] [-e] [-g GO_FIFO]\n");
			return 2;
		}
	}
	if (width < 1 || width > 64)
		width = 4;
	wl_wait_go(go);
	t0 = wl_now_ns();
	for (i = 0; i < threads; i += width) {
		int n = threads - i < width ? threads - i : width;

		for (j = 0; j < n; j++) {
			ctids[j] = -1;
			if (clone(churn_thread_fn, stacks[j] + STACK_SIZE,
				  CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
				  CLONE_SYSVSEM | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID,
				  NULL, &ctids[j], NULL, &ctids[j]) < 0) {
				perror("clone");
				return 1;
			}
		}
		for (j = 0; j < n; j++)
			join(&ctids[j]);
		done_t += n;
	}
	for (i = 0; i < procs; i++) {
		pid_t c = fork();

		if (c < 0) {
			perror("fork");
			return 1;
		}
		if (c == 0) {
			/* on the stack: a fresh child may not have our rodata mapped yet */
			char x[] = "-x";
			char *xargv[] = { argv[0], x, NULL };

			SYSCALL1(SYS_sched_yield, 0);
			if (vfork_once && SYSCALL1(SYS_vfork, 0) == 0)
				SYSCALL1(SYS_exit, 0);
			if (exec_once)
				execv("/proc/self/exe", xargv);
			SYSCALL1(SYS_exit_group, 0);
		}
		if (waitpid(c, NULL, 0) == c)
			done_p++;
	}
	printf("{\"pid\":%d,\"threads\":%d,\"procs\":%d,\"ms\":%llu}\n", getpid(), done_t, done_p,
	       (wl_now_ns() - t0) / 1000000);
	return 0;
}
