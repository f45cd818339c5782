/* SPDX-License-Identifier: GPL-2.0 */
/* strace-lite: kernel <-> user ABI. */
#ifndef BPFLITE_STRACE_H
#define BPFLITE_STRACE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Statistics and filter slots: x86_64 numbers, then ia32 ones. */
#define STRACE_NR		512
#define STRACE_SLOTS		(2 * STRACE_NR)
#define STRACE_IA32		STRACE_NR	/* slot of ia32 nr n: STRACE_IA32 + n */
#define STRACE_SLOT_NONE	0xffffffffu

/* Bytes of a string or buffer copied per argument (a power of two). */
#define STRACE_STR_MAX		256
#define STRACE_CAPS		2	/* copies per entry event */

/* Traced threads at one time (the set is keyed by tid). */
#define STRACE_MAX_TASKS	16384
#define STRACE_MAX_LOST_PIDS	1024

#define STRACE_HIST_SLOTS	32

/* /proc's clock ticks (USER_HZ, 100 on every arch) in ns */
#define STRACE_TICK_NS		10000000ULL

/* Capture mask per slot: see tools/strace/decode/sysdecode.h (SYSDECODE_CAP_*). */
#define STRACE_CAP_IN(m)	(((m) >> 8) & 7)
#define STRACE_CAP_IN_STRUCT	(1ULL << 11)	/* the input buffer is a structure */
#define STRACE_CAP_OUT(m)	(((m) >> 12) & 7)
#define STRACE_CAP_ARGV(m)	(((m) >> 16) & 7)
#define STRACE_CAP_ENVC		(1ULL << 19)	/* count execve's envp */
#define STRACE_CAP_ISTRUCT(m)	(((m) >> 20) & 7)	/* a fixed-size input structure */
#define STRACE_CAP_ISIZE(m)	(((m) >> 24) & 0xff)
#define STRACE_CAP_OSTRUCT(m)	(((m) >> 32) & 7)	/* a fixed-size output structure */
#define STRACE_CAP_OSIZE(m)	(((m) >> 40) & 0xff)
#define STRACE_CAP_DIRENTS	(1ULL << 48)	/* the output structure: dirents to count */
#define STRACE_CAP_POLL		(1ULL << 49)	/* the output structure: pollfd[next argument] */
#define STRACE_CAP_OARRAY	(1ULL << 50)	/* the output structure: ret elements of OSIZE */
#define STRACE_CAP_OLEN		(1ULL << 51)	/* the output structure: its length in *next arg */
#define STRACE_CAP_IOV(m)	(((m) >> 52) & 7)	/* iovec[next argument] or msghdr */
#define STRACE_CAP_IOV_MSG	(1ULL << 55)	/* the iovecs of a msghdr */
#define STRACE_CAP_IOV_EXIT	(1ULL << 56)	/* their data at exit (readv, recvmsg) */
#define STRACE_CAP_OADDR	(1ULL << 57)	/* recvfrom: and the source address (below) */
/* a value-result length read at entry: *argument, or a msghdr argument's msg_namelen */
#define STRACE_CAP_VRES(m)	(((m) >> 58) & 7)
#define STRACE_CAP_VRES_MSG	(1ULL << 61)
/* -y: the call makes fds (EV_FDS): the return value, or the int[2] output structure's */
#define STRACE_CAP_NEWFD	(1ULL << 62)
#define STRACE_CAP_NEWFD_PAIR	(1ULL << 63)
#define STRACE_DIRENTS_MAX	256
#define STRACE_CAP_DIRENTS_COUNT 2		/* cap_str of an exit with a dirent count */
/* what makes an entry event carry copies */
#define STRACE_CAP_AT_ENTRY	0x7f0fffULL

/*
 * An iovec block (writev's at entry, readv's at exit; sendmsg's and
 * recvmsg's with their msghdr): the msghdr (zeros for an iovec array),
 * the iov_len of the first STRACE_IOV_MAX elements (u32, clamped), a
 * msghdr's msg_name (up to STRACE_IOV_NAME_MAX bytes), and the data of the
 * first 1, 2 or 4 elements in equal slots.
 */
#define STRACE_IOV_MSGHDR	56
#define STRACE_IOV_LENS		64
#define STRACE_IOV_MAX		8
#define STRACE_IOV_NAME		96
#define STRACE_IOV_NAME_MAX	32
#define STRACE_IOV_DATA(msg)	((msg) ? STRACE_IOV_NAME + STRACE_IOV_NAME_MAX : STRACE_IOV_NAME)
#define STRACE_IOV_SLOTS(n)	((n) <= 1 ? 1 : (n) <= 2 ? 2 : 4)
#define STRACE_IOV_SLOT(n, msg)	((STRACE_STR_MAX - STRACE_IOV_DATA(msg)) / STRACE_IOV_SLOTS(n))
#define STRACE_CAP_IOV_BLOCK	3		/* cap_str of an exit with an iovec block */
/*
 * recvfrom with a source address: the data (cap_len bytes, at most
 * STRACE_ADDR_DATA), then at STRACE_ADDR_OFF the address length the call
 * left (u32) and the address (up to STRACE_ADDR_MAX bytes).
 */
#define STRACE_CAP_ADDR		4		/* cap_str of such an exit */
#define STRACE_ADDR_DATA	128
#define STRACE_ADDR_OFF		128
#define STRACE_ADDR_MAX		110		/* sizeof(struct sockaddr_un) */

/*
 * EV_STRV: execve's argv in full, and with -v its envp, sent after its
 * EV_ENTER: the strings one after another, each with its NUL, cut at
 * -s + 1 bytes (a longer one shows "..."); at most -s strings of an array
 * (strace's abbreviation), STRACE_STRV_MAX with -v, and as many as fit
 * whole (-s + 2 bytes each) in STRACE_STRV_BYTES. Without -v envp is only
 * counted (strace's "N vars"), up to STRACE_ENVC_MAX.
 */
#define STRACE_STRV_BYTES	16384	/* a power of two */
#define STRACE_STRV_MAX		512
#define STRACE_ENVC_MAX		256
enum strace_strv_flags {
	STRV_ARGV_MORE	= 1 << 0,	/* argv has strings past those sent */
	STRV_ENV_MORE	= 1 << 1,	/* envp has */
	STRV_ENV	= 1 << 2,	/* envp's strings follow argv's (-v) */
	STRV_ARGV_FAULT	= 1 << 3,	/* argv could not be read */
	STRV_ENV_FAULT	= 1 << 4,	/* envp could not be read */
};


/* Per traced thread (value of the traced set). */
enum strace_task_flags {
	TASK_WAIT_EXEC	= 1 << 0,	/* command mode: show nothing before execve */
	TASK_RETRY_STR	= 1 << 1,	/* retry_str: a string to copy again (EV_ENTRY_STR) */
	TASK_WHOLE	= 1 << 2,	/* no entry event: send EV_CALL at exit */
	TASK_VRES	= 1 << 3,	/* whole: outbuf holds a value-result length at entry */
	TASK_SHOWN	= 1 << 4,	/* the call blocked and user space has its entry (once a call) */
};

struct strace_task {
	__u64 enter_ns;
	__u64 enter_stime;	/* -c: the thread's system time (ns) as the call began */
	/*
	 * -p: the thread's start time in clock ticks (USER_HZ, /proc's
	 * starttime) when user space added it, 0 once its first call proved
	 * it the same thread: an entry of a thread that exited before it was
	 * added (so nothing removes it) or of a new task with its tid is
	 * dropped.
	 */
	__u64 start_ticks;
	__u64 outbuf;		/* user address of an output buffer, copied at exit */
	__u64 regs;		/* whole: the call's saved registers (struct pt_regs *) */
	__u64 retry_str;	/* TASK_RETRY_STR: user address of the string */
	__u32 slot;		/* slot of the call in progress, or STRACE_SLOT_NONE */
	__u16 flags;
	__u16 retry_arg;	/* TASK_RETRY_STR: argument index of retry_str */
};

/* Status filter (-z, -Z). */
enum strace_status {
	STATUS_ALL = 0,
	STATUS_SUCCESSFUL,
	STATUS_FAILED,
};

enum strace_event_type {
	EV_ENTER = 1,
	EV_EXIT,
	EV_PROC_EXIT,		/* a traced process ended */
	EV_CALL,		/* entry and exit in one (struct strace_exit) */
	EV_SIGNAL,		/* a signal delivered to a traced thread */
	EV_FORK,		/* -f: a thread joined the set (struct strace_fork) */
	EV_FDS,			/* -y: the files of the fds a call made, before its exit */
	EV_EXEC_FDS,		/* -y: the fds open after a successful execve, before its exit */
	/*
	 * The call in progress blocked (its thread left the CPU asleep in
	 * it): strace_enter without copies (STRACE_ENTER_SMALL), args from
	 * the saved registers; for a call whose EV_ENTER came, a sign to
	 * print the entry half now. Sent once a call.
	 */
	EV_BLOCKED,
	EV_STRV,		/* execve's argv and envp (struct strace_strv) */
	/*
	 * A string the call's EV_ENTER could not copy (its page was not
	 * faulted in), copied at exit, before EV_EXIT: a strace_enter with
	 * the string in cap[0], its argument in cap_arg[0].
	 */
	EV_ENTRY_STR,
};

struct strace_hdr {
	__u32 type;
	__u32 slot;
	__u32 tgid;
	__u32 tid;
	__u64 ts;		/* CLOCK_MONOTONIC ns */
};

struct strace_enter {
	struct strace_hdr h;
	__u64 args[6];
	__s32 cap_len[STRACE_CAPS];	/* bytes copied; < 0: the copy failed */
	__u8 cap_arg[STRACE_CAPS];	/* argument index, 0xff: none */
	__u8 pad[6];
	char cap[STRACE_CAPS][STRACE_STR_MAX];
};
#define STRACE_ENTER_SMALL	(sizeof(struct strace_enter) - STRACE_CAPS * STRACE_STR_MAX)

/*
 * EV_EXIT ends a call whose EV_ENTER came before. EV_CALL is a whole call
 * in one event, sent at exit for calls with nothing to copy at entry
 * (getppid, read, close...): their arguments are still in the saved
 * registers then, and one event instead of two halves the traffic.
 */
struct strace_exit {
	struct strace_hdr h;
	__u64 enter_ts;			/* EV_CALL */
	__u64 args[6];			/* EV_CALL */
	__s64 ret;
	__s32 cap_len;			/* output buffer bytes; < 0: failed; 0 none */
	__u8 cap_arg;			/* argument index of cap; 0xff: none */
	__u8 cap_str;			/* what cap holds, when not the output
					 * buffer: STRACE_CAP_DIRENTS_COUNT, ... */
	__u16 in_len;			/* EV_CALL: a value-result length as the call
					 * began (recvfrom, recvmsg, getsockopt), +1; 0 none */
	char cap[STRACE_STR_MAX];
};
#define STRACE_EXIT_SMALL	(sizeof(struct strace_exit) - STRACE_STR_MAX)
#define STRACE_CAP_TINY		32	/* an output this short: a short record */

/* EV_FORK: h.tgid and h.tid are the new thread's */
struct strace_fork {
	struct strace_hdr h;
	__u32 parent_tgid;
	__u32 files_shared;		/* CLONE_FILES: one fd table for both */
};

struct strace_strv {
	struct strace_hdr h;
	__u16 count[2];			/* strings of argv, of envp (or envp's count) */
	__u8 arg;			/* argument index of argv */
	__u8 flags;			/* enum strace_strv_flags */
	__u16 pad;
	__u32 len;			/* bytes of data */
	__u32 pad2;
	/* the reader's room past the last string it may start */
	char data[STRACE_STRV_BYTES + 2 * STRACE_STR_MAX];
};
#define STRACE_STRV_HDR		(sizeof(struct strace_strv) - 2 * STRACE_STR_MAX - STRACE_STRV_BYTES)

/*
 * EV_FDS: what the kernel knows of the files of the fds a call made (its
 * return value, or pipe's and socketpair's pair), read from the fd table
 * as the call returns: the inode, so that a path taken from the call can
 * be checked and pipes and sockets named as the kernel names them.
 */
#define STRACE_FDNAME_MAX	32
struct strace_fds {
	struct strace_hdr h;
	__s32 fd[2];			/* -1: none */
	__u32 magic[2];			/* the file system's magic (pipefs, sockfs, ...) */
	__u32 dev[2];			/* the kernel's dev_t: major << 20 | minor */
	__u32 mnt[2];			/* the mount's id (statx's stx_mnt_id) */
	__u64 ino[2];
	char name[2][STRACE_FDNAME_MAX];	/* the dentry's name ("[eventfd]") */
};

/* EV_EXEC_FDS: the fd table after an execve closed the close-on-exec fds. */
#define STRACE_EXEC_FDS		1024	/* fds looked at; those above are left be */
struct strace_exec_fds {
	struct strace_hdr h;
	__u64 open[STRACE_EXEC_FDS / 64];	/* bit fd: open */
};

struct strace_proc_exit {
	struct strace_hdr h;
	__u32 exit_code;		/* as wait(2) gives it: status << 8 or signal */
	__u32 group_exit;		/* exit_code is the process's (exit_group, a
					 * fatal signal), not this thread's own */
};

struct strace_signal {
	struct strace_hdr h;
	__s32 signo;
	__s32 code;		/* si_code */
	__s32 pid;		/* si_pid (kill, sigqueue, SIGCHLD) */
	__u32 uid;		/* si_uid */
	__s32 status;		/* si_status (SIGCHLD) */
	__u32 pad;
	__s64 utime;		/* si_utime, si_stime (SIGCHLD), in clock ticks */
	__s64 stime;
};

/* Per-syscall statistics (per-CPU array, index = slot). */
struct strace_stat {
	__u64 calls;
	__u64 errors;
	__u64 ns;		/* system time in the calls; with -w, wall time */
};

struct strace_hist {
	__u64 slots[STRACE_HIST_SLOTS];	/* log2 of microseconds */
};

#endif
