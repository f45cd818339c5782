/* SPDX-License-Identifier: GPL-2.0 */
/*
 * execsnoop-lite: kernel <-> user ABI. One exec is three records on the
 * ring buffer, all from the exec'ing task and so in order: ENTER (argv,
 * from sys_enter_execve/execveat), EXEC (the resolved file and new comm,
 * from sched_process_exec, successful execs only) and EXIT (the return
 * value). User space joins them by thread ID, so no kernel map holds an
 * argv while the exec runs: the kernel side stays well under 1 MiB. A
 * record that could not be reserved is counted in the loss counters; an
 * exec whose EXEC record was lost is still joined (EXIT carries the ENTER
 * tid), one whose EXIT record was lost is dropped by user space once the
 * thread has left the exec.
 */
#ifndef BPFLITE_EXECSNOOP_H
#define BPFLITE_EXECSNOOP_H

#define EXECSNOOP_COMM_LEN	16
#define EXECSNOOP_FILE_LEN	256
#define EXECSNOOP_MAX_ARGS	128	/* --max-args limit */
#define EXECSNOOP_DEF_ARGS	20	/* bcc's default */
#define EXECSNOOP_ARG_LEN_MAX	1024	/* --max-arg-len limit */
#define EXECSNOOP_DEF_ARG_LEN	256
#define EXECSNOOP_ARGS_BUF	16384	/* packed argv bytes per exec (power of 2) */
#define EXECSNOOP_INFLIGHT	4096	/* execs between enter and exit at once */
#define EXECSNOOP_RINGBUF	(512 * 1024)

enum exec_rec {
	REC_ENTER = 1,
	REC_EXEC,
	REC_EXIT,
};

/* exec_enter.flags */
#define ARGS_MORE	(1U << 0)	/* more arguments than --max-args (or the buffer) */
#define ARGS_FAULT	(1U << 1)	/* reading argv faulted at argument argc */

struct exec_enter {
	__u32 type;
	__u32 tid;
	__u32 tgid;
	__u32 ppid;
	__u32 uid;
	__u32 flags;
	__u64 ts;			/* CLOCK_MONOTONIC ns */
	__u32 argc;			/* arguments in args */
	__u32 args_len;			/* bytes used in args */
	char comm[EXECSNOOP_COMM_LEN];	/* before the exec */
	/*
	 * NUL-separated, each read up to --max-arg-len + 1 bytes: a longer
	 * one is cut (user space shows --max-arg-len of it). The record is
	 * sent up to args_len only.
	 */
	char args[EXECSNOOP_ARGS_BUF + EXECSNOOP_ARG_LEN_MAX + 2];
};

struct exec_exec {
	__u32 type;
	__u32 tid;			/* after the exec (the thread group leader) */
	__u32 old_tid;			/* the thread that called exec */
	__u32 pad;
	char comm[EXECSNOOP_COMM_LEN];	/* the new one */
	char filename[EXECSNOOP_FILE_LEN];	/* bprm->filename */
};

struct exec_exit {
	__u32 type;
	__u32 tid;
	__s32 ret;
	__u32 enter_tid;		/* the tid of its ENTER record */
};

#endif
