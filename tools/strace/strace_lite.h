/* SPDX-License-Identifier: GPL-2.0 */
/* strace-lite: what its user-side files share (tools/strace.c, tools/strace/). */
#ifndef BPFLITE_STRACE_LITE_H
#define BPFLITE_STRACE_LITE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <linux/types.h>
#include "run/opts.h"
#include "run/msg.h"
#include "strace.h"
#include "strace/decode/sysdecode.h"

#define MAX_PIDS 64
#define MAX_PATHS 16
/* Bytes of the trace's stdio buffer: a line is never split across writes. */
#define OUT_BUF 65536

enum { SORT_TIME, SORT_CALLS, SORT_NAME, SORT_ERRORS, SORT_NOTHING };

/* opts.c */
struct strace_cfg {
	bool summary_only;	/* -c */
	bool summary;		/* -C */
	bool hist;		/* -L */
	bool wall;		/* -w: -c sums wall time */
	bool follow;		/* -f */
	int sort;		/* -S */
	pid_t pids[MAX_PIDS];	/* -p */
	int npids;
	const char *user;	/* -u */
	int status;		/* -z, -Z, -e status= */
	int strsize;		/* -s */
	bool fd_paths;		/* -y */
	int tstamps;		/* -t count */
	bool relative;		/* -r */
	bool durations;		/* -T */
	const char *output;	/* -o */
	char **cmd;		/* the command, or NULL */
	__u64 mask[STRACE_SLOTS / 64];
	bool mask_set;
	bool ff;		/* -ff with -o: FILE.PID per process */
	int quiet;		/* -q: no banner; -qq: no "+++ exited" lines */
	__u64 signals;		/* -e signal=: bit sig-1 shown */
	const char *paths[MAX_PATHS];	/* -P */
	int npaths;
};
/* -y or -P: the fd table of each process is followed */
#define TRACK_FDS (cfg.fd_paths || cfg.npaths)
extern struct strace_cfg cfg;
void strace__parse_opts(int argc, char **argv);
/* -u: uid, gid and name (NULL: a uid without a passwd entry); exits on an unknown one */
void opts__resolve_user(uid_t *uid, gid_t *gid, const char **name);

/* print.c */
extern FILE *trace_out;			/* stderr, stdout (-j) or -o FILE */
extern long long trace_mono_to_real_ns;	/* CLOCK_MONOTONIC to CLOCK_REALTIME */
void print__init(void);
const char *print__slot_name(char *buf, size_t len, __u32 slot);
const struct sysdecode_info *print__slot_info(__u32 slot);
int print__event(void *ctx, void *data, size_t size);
/* A thread joined the traced set (for strace's "[pid N] " rule). */
void print__live_add(__u32 tid);
/* The end of the trace: the halves of calls still blocked end with " <detached ...>". */
void print__detach(void);
/* -ff: close the files of threads still open */
void print__close(void);

/* fds.c */
const char *fds__known(pid_t tgid, int fd);
void fds__forget(pid_t tgid, int fd);
void fds__forget_process(pid_t tgid);
/* What a call did to the fd table: before (opens) or after (closes) its line. */
void fds__track(const struct strace_enter *e, const struct strace_exit *x, bool before);
/* The fds a process has when tracing starts; _exec: less the close-on-exec ones. */
void fds__snapshot(pid_t tgid);
void fds__snapshot_exec(pid_t tgid);
/* EV_FDS, EV_EXEC_FDS: the fds a call made, those an execve left */
void fds__event(const void *data, size_t size);
/* EV_FORK: a new process's copy of its parent's fds */
void fds__fork(const struct strace_fork *x);

/* summary.c */
int summary__print(int stats_fd, int hists_fd);
/* --serve: render the counts as metrics; ctx is int[2]: the stats and hists map fds. */
struct sbuf;
void summary__metrics(struct sbuf *b, void *ctx);

#endif
