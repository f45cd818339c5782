/* SPDX-License-Identifier: GPL-2.0 */
/* opensnoop-lite: kernel <-> user ABI. */
#ifndef BPFLITE_OPENSNOOP_H
#define BPFLITE_OPENSNOOP_H

#define OPENSNOOP_COMM_LEN	16
#define OPENSNOOP_PATH_MAX	4096	/* PATH_MAX, NUL included */
#define OPENSNOOP_NAME_MAX	256	/* NAME_MAX + NUL: one directory name */
#define OPENSNOOP_FULL_DEPTH	32	/* -F: directory names at most */
#define OPENSNOOP_INFLIGHT	10240	/* opens between enter and exit at once */
/* Default ring buffer: holds ~40k events at ~50 bytes. */
#define OPENSNOOP_RINGBUF_PAGES	512
/* -f flags of more than one bit (O_SYNC, O_TMPFILE) given at once, at most. */
#define OPENSNOOP_FLAG_MASKS	4

enum open_syscall {
	SYS_OPEN = 0,
	SYS_OPENAT,
	SYS_OPENAT2,
};

/* open_event.full */
#define FULL_RESOLVED	(1U << 0)	/* dirs holds the directory, leaf first */
#define FULL_CUT	(1U << 1)	/* ...but not up to the root (depth or buffer) */
#define FULL_FAILED	(1U << 2)	/* the directory could not be found */

struct open_event {
	__u64 ts;			/* CLOCK_MONOTONIC ns, at exit */
	__u64 flags;			/* open flags (openat2: how.flags) */
	__u32 tgid;
	__u32 tid;
	__u32 uid;
	__s32 ret;			/* fd, or -errno */
	__s32 dfd;			/* directory fd (AT_FDCWD for open) */
	__u32 mode;
	__u16 path_len;			/* bytes of the path as given, NUL included */
	__u16 dirs_len;			/* -F: bytes of directory slots after it */
	__u8 syscall;			/* enum open_syscall */
	__u8 full;			/* FULL_* */
	__u8 ndirs;			/* -F: directory names in buf after the path */
	__u8 pad;
	char comm[OPENSNOOP_COMM_LEN];
	/*
	 * The path as given, NUL-terminated, then with -F for a relative
	 * path the names of the directories it is relative to, innermost
	 * first, each NUL-terminated in a slot of OPENSNOOP_NAME_MAX bytes.
	 * Sent up to path_len + dirs_len.
	 */
	char buf[OPENSNOOP_PATH_MAX + OPENSNOOP_FULL_DEPTH * OPENSNOOP_NAME_MAX];
};

#endif
