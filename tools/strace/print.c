// SPDX-License-Identifier: GPL-2.0
/*
 * strace-lite: events joined into calls (an entry and its exit, or one
 * whole-call event) and printed as strace prints them, or as JSON.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "out/json.h"
#include "strace/decode/syscalls.h"
#include "strace_lite.h"

/* ---- output ------------------------------------------------------------- */

/*
 * The trace goes to stderr (line-buffered) or to -o FILE, as strace's; JSON
 * to stdout unless -o. Every line reaches the file in one write(2), so
 * it never splices with what the traced program writes there.
 */
FILE *trace_out;
static FILE *cur_out;	/* trace_out, or with -ff the file of the event's thread */

/* -ff: FILE.TID per traced thread (strace's per-process files), open while it runs */
struct ff_file {
	struct ff_file *next;
	__u32 tid;
	FILE *f;
};
#define FF_BUCKETS 256
static struct ff_file *ff_files[FF_BUCKETS];

static FILE *ff_open(__u32 tid)
{
	struct ff_file **pp = &ff_files[tid % FF_BUCKETS], *e;
	char path[PATH_MAX];

	for (e = *pp; e; e = e->next)
		if (e->tid == tid)
			return e->f;
	e = calloc(1, sizeof(*e));
	snprintf(path, sizeof(path), "%s.%u", cfg.output, tid);
	if (!e || !(e->f = fopen(path, "we"))) {
		msg__warn("cannot open '%s': %s; writing to stderr", path, strerror(errno));
		free(e);
		return trace_out;
	}
	setvbuf(e->f, NULL, _IOFBF, OUT_BUF);
	e->tid = tid;
	e->next = *pp;
	*pp = e;
	return e->f;
}

static void ff_close(__u32 tid)
{
	for (struct ff_file **pp = &ff_files[tid % FF_BUCKETS], *e; (e = *pp); pp = &e->next) {
		if (e->tid == tid) {
			*pp = e->next;
			fclose(e->f);
			free(e);
			return;
		}
	}
}

void print__close(void)
{
	for (int b = 0; b < FF_BUCKETS; b++)
		while (ff_files[b])
			ff_close(ff_files[b]->tid);
}

long long trace_mono_to_real_ns;
static __u64 last_ts;
static struct sbuf line, args[6];

/*
 * A call whose entry came and whose return has not. Its line shows when it
 * returns, or in two halves when it blocks: the entry half at once, the
 * line left open ("read(0, "), its end on return. A line of another
 * thread coming between ends the open one with " <unfinished ...>", and
 * the call's end then comes as "<... read resumed>...", strace's forms.
 */
enum pending_state {
	P_HELD,		/* nothing printed yet */
	P_OPEN,		/* the entry half printed, its line still open */
	P_CUT,		/* the entry half printed and cut by another line */
};

struct pending {
	struct pending *next;
	struct strace_enter e;
	struct strace_strv *strv;	/* execve's argv and envp (EV_STRV), or NULL */
	bool blocked;		/* its thread blocked in it (EV_BLOCKED or -p) */
	unsigned char state;	/* enum pending_state */
	size_t col;		/* P_OPEN: the columns of the half printed */
};

#define PENDING_BUCKETS 1024
static struct pending *pending[PENDING_BUCKETS];

/* Entries are recycled: a storm of calls does not go through malloc. */
static struct pending *pending_free;

static struct pending *pending_alloc(void)
{
	struct pending *p = pending_free;

	if (p) {
		pending_free = p->next;
		return p;
	}
	return malloc(sizeof(*p));
}

static void pending_release(struct pending *p)
{
	free(p->strv);
	p->strv = NULL;
	p->next = pending_free;
	pending_free = p;
}

static struct pending **pending_find(__u32 tid)
{
	struct pending **p = &pending[tid % PENDING_BUCKETS];

	while (*p && (*p)->e.h.tid != tid)
		p = &(*p)->next;
	return p;
}

/* The call whose half line is open on trace_out (-ff: in its thread's file) */
static struct pending *open_call;

/*
 * Write b, whole lines or an entry half, and flush: nothing of the trace
 * waits in a buffer (a blocked call's half most of all). Anything but the
 * continuation (cont) of the open half ends that half first, as strace
 * does: " <unfinished ...>".
 */
static void emit(struct sbuf *b, __u32 tid, bool cont)
{
	FILE *f = cur_out ? cur_out : trace_out;
	struct pending *o = cfg.ff ? *pending_find(tid) : open_call;

	if (!cont && o && o->state == P_OPEN) {
		fputs(" <unfinished ...>\n", f);
		o->state = P_CUT;
		open_call = NULL;
	}
	fwrite(b->p, 1, b->len, f);
	fflush(f);
}

static void emit_line(struct sbuf *b, __u32 tid, bool cont)
{
	sbuf__putn(b, "\n", 1);
	emit(b, tid, cont);
}

/*
 * The threads traced now, as strace counts its tracees: on the terminal it
 * prefixes "[pid N] " only while there are two or more. A thread counts
 * from when it joined the set (the command, -p, a fork with -f) or its
 * first event (-u), until its exit.
 */
#define LIVE_BUCKETS 1024
struct live {
	struct live *next;
	__u32 tid;
	__u32 tgid;	/* 0 until an event of the thread tells */
};
static struct live *live[LIVE_BUCKETS];
static int nlive;

static void live_note(__u32 tid, __u32 tgid)
{
	struct live *l;

	for (l = live[tid % LIVE_BUCKETS]; l; l = l->next) {
		if (l->tid == tid) {
			if (tgid)
				l->tgid = tgid;
			return;
		}
	}
	l = malloc(sizeof(*l));
	if (!l)
		return;
	l->tid = tid;
	l->tgid = tgid;
	l->next = live[tid % LIVE_BUCKETS];
	live[tid % LIVE_BUCKETS] = l;
	nlive++;
}

void print__live_add(__u32 tid)
{
	live_note(tid, 0);
}

/* Does a thread of process tgid other than its main thread live on? */
static bool live_others(__u32 tgid)
{
	for (int b = 0; b < LIVE_BUCKETS; b++)
		for (struct live *l = live[b]; l; l = l->next)
			if (l->tgid == tgid && l->tid != tgid)
				return true;
	return false;
}

static void live_del(__u32 tid)
{
	for (struct live **pp = &live[tid % LIVE_BUCKETS], *l; (l = *pp); pp = &l->next) {
		if (l->tid == tid) {
			*pp = l->next;
			free(l);
			nlive--;
			return;
		}
	}
}

static bool many_tasks(void)
{
	return cfg.follow || cfg.npids > 1 || (cfg.user && !cfg.cmd);
}

const char *print__slot_name(char *buf, size_t len, __u32 slot)
{
	const char *n = slot < STRACE_IA32 ? syscall__name(slot, false) : NULL;

	if (n)		/* the common case: no copy */
		return n;
	if (slot >= STRACE_IA32)
		return syscall__format(buf, len, slot - STRACE_IA32, true);
	return syscall__format(buf, len, slot, false);
}

/* The decoder row of each slot, looked up by name once. */
static const struct sysdecode_info *slot_infos[STRACE_SLOTS];

/* Calls whose arguments depend on each other, found by name once (not per line). */
enum { SP_NONE, SP_FCNTL, SP_FUTEX, SP_SOCKET, SP_CLONE, SP_SETSOCKOPT, SP_GETSOCKOPT, SP_IOCTL,
       SP_GETRANDOM, SP_LAST = SP_GETRANDOM };
static unsigned char slot_special[STRACE_SLOTS];
/*
 * Output pointers the table shows as 'x' that strace prints at the
 * return, not in the entry half: the argument index, or 0xff.
 */
static unsigned char slot_late[STRACE_SLOTS];
static const struct { const char *name; unsigned char arg; } late_args[] = {
	{ "nanosleep", 1 }, { "clock_nanosleep", 3 }, { "rt_sigtimedwait", 1 },
	{ "waitid", 2 }, { "msgrcv", 1 },
};

void print__init(void)
{
	static const char *const special[] = { NULL, "fcntl", "futex", "socket", "clone",
					       "setsockopt", "getsockopt", "ioctl", "getrandom" };

	for (__u32 slot = 0; slot < STRACE_SLOTS; slot++) {
		const char *n = slot >= STRACE_IA32 ? syscall__name(slot - STRACE_IA32, true) :
				syscall__name(slot, false);

		slot_infos[slot] = n ? sysdecode__find(n) : NULL;
		slot_late[slot] = 0xff;
		for (size_t k = 0; n && slot < STRACE_IA32 && k < sizeof(late_args) / sizeof(late_args[0]); k++)
			if (!strcmp(n, late_args[k].name))
				slot_late[slot] = late_args[k].arg;
		for (int k = 1; n && slot < STRACE_IA32 && k <= SP_LAST; k++)
			if (!strcmp(n, special[k]))
				slot_special[slot] = k;
	}
}

const struct sysdecode_info *print__slot_info(__u32 slot)
{
	return slot < STRACE_SLOTS ? slot_infos[slot] : NULL;
}

static void prefix(struct sbuf *b, __u32 tid, __u64 ts)
{
	long long real = ts + trace_mono_to_real_ns;
	time_t sec = real / 1000000000;
	struct tm tm;

	/* strace: "PID " in a -o file, "[pid PID] " on the terminal */
	if (cfg.ff)
		;	/* a file per process says whose it is */
	else if (many_tasks() && cfg.output)
		sbuf__printf(b, "%-5u ", tid);
	else if (many_tasks() && nlive > 1)
		sbuf__printf(b, "[pid %5u] ", tid);
	if (cfg.tstamps >= 3) {
		sbuf__printf(b, "%lld.%06lld ", real / 1000000000, real % 1000000000 / 1000);
	} else if (cfg.tstamps) {
		localtime_r(&sec, &tm);
		sbuf__printf(b, "%02d:%02d:%02d", tm.tm_hour, tm.tm_min, tm.tm_sec);
		if (cfg.tstamps == 2)
			sbuf__printf(b, ".%06lld", real % 1000000000 / 1000);
		sbuf__printf(b, " ");
	}
	if (cfg.relative) {
		__u64 d = last_ts ? ts - last_ts : 0;

		sbuf__printf(b, "%6llu.%06llu ", d / 1000000000, d % 1000000000 / 1000);
		last_ts = ts;
	}
}


/*
 * Calls whose arguments depend on another one, as strace prints them:
 * fcntl's third by the command, futex's count by the operation. Returns
 * the kind of argument i (or 0: not shown) and may change its value.
 */
static char arg_kind(const struct sysdecode_info *in, const struct strace_enter *e, int i,
		     unsigned long long *v)
{
	char kind = in->args[i];

	int sp = slot_special[e->h.slot & (STRACE_SLOTS - 1)];

	if (sp == SP_NONE)
		return kind;
	if (sp == SP_FCNTL && i == 2) {
		switch ((int)e->args[1]) {
		case F_GETFD: case F_GETFL: case F_GETOWN: case F_GETSIG: case F_GETLEASE:
		case F_GETPIPE_SZ: case F_GET_SEALS:
			return 0;
		case F_SETFD:
			return 'D' + 0x80;	/* FD_CLOEXEC: see below */
		case F_SETFL:
			return 'o';
		case F_DUPFD: case F_DUPFD_CLOEXEC: case F_SETOWN: case F_SETPIPE_SZ:
		case F_SETLEASE: case F_NOTIFY:
			return 'i';
		case F_SETSIG:
			return 'g';
		case F_GETLK: case F_SETLK: case F_SETLKW:
		case F_OFD_GETLK: case F_OFD_SETLK: case F_OFD_SETLKW:
			return '7';
		}
		return 'x';
	}
	if ((sp == SP_SETSOCKOPT || sp == SP_GETSOCKOPT) && i == 2)	/* by level */
		return e->args[1] == 1 ? '(' : e->args[1] == 6 ? ')' : 'i';
	if (sp == SP_SETSOCKOPT && i == 3 && e->args[4] != 4)	/* not an int */
		return 'x';
	if (sp == SP_IOCTL && i == 2) {	/* the argument by request */
		switch ((unsigned int)e->args[1]) {
		case 0x5401: case 0x5402: case 0x5403: case 0x5404:	/* TCGETS, TCSETS* */
			return '`';
		case 0x5413: case 0x5414:				/* TIOCGWINSZ, TIOCSWINSZ */
			return '\'';
		case 0x540f: case 0x5410: case 0x5411: case 0x541b:	/* TIOC[GS]PGRP, OUTQ, FIONREAD */
		case 0x5421: case 0x5429: case 0x80045430: case 0x40045431:
			return '_';
		case 0x540c: case 0x540d: case 0x5422: case 0x5450: case 0x5451:
			return 0;	/* no argument: TIOCEXCL, TIOCNXCL, TIOCNOTTY, FIO[N]CLEX */
		}
		return 'x';
	}
	if (sp == SP_SOCKET && i == 2 &&
	    (e->args[0] == AF_INET || e->args[0] == AF_INET6))
		return '9';
	if (sp == SP_FUTEX) {
		int cmd = e->args[1] & 0x7f;

		switch (cmd) {
		case 1: case 2:			/* WAKE, FD */
			return i < 3 ? kind : 0;
		case 0: case 6: case 13:	/* WAIT, LOCK_PI, LOCK_PI2: a timeout */
			return i < 4 ? kind : 0;
		case 7: case 8:			/* UNLOCK_PI, TRYLOCK_PI */
			return i < 2 ? kind : 0;
		case 9: case 10:		/* WAIT_BITSET, WAKE_BITSET: the bitset 5th */
			if (i == 4) {
				*v = e->args[5];
				return *v == 0xffffffff ? 'M' + 0x80 : 'x';
			}
			return i < 4 ? kind : 0;
		case 3:				/* REQUEUE: uaddr, op, val, val2, uaddr2 */
			return i == 3 ? 'u' : i < 5 ? kind : 0;
		case 4: case 12:		/* CMP_REQUEUE: and val3 */
			return i == 3 || i == 5 ? 'u' : kind;
		}
		return kind;
	}
	return kind;
}

/* x86_64 clone(flags, stack, parent_tid, child_tid, tls) in strace's named form. */
static int clone_args(const struct strace_enter *e)
{
	unsigned long long fl = e->args[0];
	int n = 0;

	sbuf__reset(&args[n]);
	if (e->args[1])
		sbuf__printf(&args[n++], "child_stack=%#llx", (unsigned long long)e->args[1]);
	else
		sbuf__printf(&args[n++], "child_stack=NULL");
	sbuf__reset(&args[n]);
	sbuf__printf(&args[n], "flags=");
	sysdecode__flags(&args[n++], 'c', fl);
	if (fl & CLONE_PARENT_SETTID) {
		sbuf__reset(&args[n]);
		sbuf__printf(&args[n++], "parent_tid=%#llx", (unsigned long long)e->args[2]);
	}
	if (fl & CLONE_SETTLS) {
		sbuf__reset(&args[n]);
		sbuf__printf(&args[n++], "tls=%#llx", (unsigned long long)e->args[4]);
	}
	if (fl & (CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID)) {
		sbuf__reset(&args[n]);
		sbuf__printf(&args[n++], "child_tidptr=%#llx", (unsigned long long)e->args[3]);
	}
	return n;
}

/*
 * Arguments read as blocks (iovecs, msghdr), arrays of a returned count
 * (epoll_wait) or with a length beside them (getsockopt): printed here,
 * true; false for the other kinds. cap: the entry's copy of argument i.
 */
static bool struct_kind(struct sbuf *arg, const struct sysdecode_opts *o, char kind,
			const struct strace_enter *e, const struct strace_exit *x, int i,
			const struct sysdecode_cap *cap)
{
	unsigned long long v = e->args[i], next = i < 5 ? e->args[i + 1] : 0;
	bool ok = x && x->ret >= 0;
	unsigned int len;

	switch (kind) {
	case '[':	/* at entry, whatever the call did */
	case '{':
		if (!v || !cap || cap->len < STRACE_STR_MAX)
			break;
		if (kind == '[')
			sysdecode__iov(arg, o, cap->data, cap->len, next, -1);
		else
			sysdecode__msghdr(arg, o, cap->data, cap->len, -1, -1);
		return true;
	case ']':
	case '}':
		if (!v || !ok || x->cap_str != STRACE_CAP_IOV_BLOCK || x->cap_len < STRACE_STR_MAX)
			break;
		if (kind == ']')
			sysdecode__iov(arg, o, x->cap, x->cap_len, next, x->ret);
		else
			sysdecode__msghdr(arg, o, x->cap, x->cap_len, x->ret, x->in_len - 1);
		return true;
	case '^':
		if (!v || !ok || x->cap_str || (x->ret && x->cap_len <= 0))
			break;
		sysdecode__epoll_events(arg, o, x->cap, x->cap_len, x->ret);
		return true;
	case '|':	/* getsockopt: [optlen][value] */
	case '!':
		if (!v || !ok || x->cap_str || x->cap_len < 4)
			break;
		memcpy(&len, x->cap, 4);
		if (kind == '!')
			sysdecode__vres(arg, x->in_len - 1, len);
		else if (len == 4 && x->cap_len >= 8)
			sbuf__printf(arg, "[%d]", *(const int *)(x->cap + 4));
		else
			sysdecode__quote(arg, x->cap + 4, x->cap_len - 4, o->strsize, len > (unsigned)x->cap_len - 4);
		return true;
	case '<':	/* recvfrom's source address and its length, after the data */
	case '>':
		if (!v || !ok || x->cap_str != STRACE_CAP_ADDR)
			break;
		memcpy(&len, x->cap + STRACE_ADDR_OFF, 4);
		if (kind == '>')
			sysdecode__vres(arg, x->in_len - 1, len);
		else if (len)
			sysdecode__arg(arg, o, 'G', v, &(struct sysdecode_cap){
				.data = x->cap + STRACE_ADDR_OFF + 4, .valid = true,
				.len = len < STRACE_ADDR_MAX ? (int)len : STRACE_ADDR_MAX }, 0);
		else
			break;
		return true;
	case ';':	/* clone3: and the child's tid it stored */
		if (!v || !cap || cap->len < sysdecode__struct_size(';'))
			break;
		sysdecode__arg(arg, o, kind, v, cap, next);
		if (x && x->ret > 0 && (*(const unsigned long long *)cap->data & CLONE_PARENT_SETTID))
			sbuf__printf(arg, " => {parent_tid=[%lld]}", (long long)x->ret);
		return true;
	default:
		return false;
	}
	sysdecode__arg(arg, o, 'x', v, NULL, 0);
	return true;
}

/*
 * Kinds strace decodes at the call's return, so not in its entry half:
 * outputs, and what the BPF side copies at exit.
 */
static bool late_kind(char kind)
{
	return sysdecode__struct_out(kind) || (kind && strchr("rR6@=*]}^`|!<>", kind));
}

/* The EV_STRV of e, a pending call's entry: execve's argv and envp. */
static const struct strace_strv *strv_of(const struct strace_enter *e)
{
	struct pending *p = *pending_find(e->h.tid);

	return p && &p->e == e ? p->strv : NULL;
}

/* The strings of array which from *off of strv->data: strace's ["a", "b"...]. */
static void strv_print(struct sbuf *b, const struct strace_strv *strv, int which, size_t *off)
{
	int more = which ? STRV_ENV_MORE : STRV_ARGV_MORE;
	size_t len = strv->len < STRACE_STRV_BYTES ? strv->len : STRACE_STRV_BYTES;

	sbuf__printf(b, "[");
	for (int a = 0; a < strv->count[which] && *off < len; a++) {
		const char *s = strv->data + *off;
		size_t l = strnlen(s, len - *off);

		if (a)
			sbuf__printf(b, ", ");
		sysdecode__quote(b, s, l, cfg.strsize, false);
		*off += l + 1;
	}
	if (strv->flags & more)
		sbuf__printf(b, "%s...", strv->count[which] ? ", " : "");
	sbuf__printf(b, "]");
}

/*
 * execve's argv (argument strv->arg) or envp (the next): the strings, or
 * envp's address and count without -v, as strace prints them. Returns the
 * kind to print the value *v with instead (an address), or 0.
 */
static char strv_arg(struct sbuf *b, const struct strace_strv *strv, int i, unsigned long long *v)
{
	int which = i != strv->arg;
	size_t off = 0;

	if (!*v || (strv->flags & (which ? STRV_ENV_FAULT : STRV_ARGV_FAULT)))
		return 'x';	/* NULL, or the address strace cannot read either */
	if (which && !(strv->flags & STRV_ENV)) {
		int n = strv->count[1];

		/* at the count's bound: at least that many */
		sbuf__printf(b, "%#llx /* %d%s var%s */", *v, n, n >= STRACE_ENVC_MAX ? "+" : "",
			     n == 1 ? "" : "s");
		return 0;
	}
	if (which) {	/* envp's strings follow argv's */
		const char *s = strv->data;
		size_t len = strv->len < STRACE_STRV_BYTES ? strv->len : STRACE_STRV_BYTES;

		for (int a = 0; a < strv->count[0] && off < len; a++)
			off += strnlen(s + off, len - off) + 1;
	}
	strv_print(b, strv, which, &off);
	return 0;
}

/*
 * Decode the arguments of an entry into args[]; returns how many, and in
 * *half how many of them strace prints at entry (those before the first
 * it decodes at the return).
 */
static int decode_args(const struct strace_enter *e, const struct strace_exit *x, int *half)
{
	const struct sysdecode_info *in = print__slot_info(e->h.slot);
	struct sysdecode_opts o = { .strsize = cfg.strsize, .fd_paths = cfg.fd_paths,
				    .tgid = e->h.tgid, .fd_path = fds__known };
	bool ia32 = e->h.slot >= STRACE_IA32;
	int n = in ? (int)strlen(in->args) : 6, shown = 0;
	const struct strace_strv *strv = strv_of(e);

	*half = -1;

	for (int i = 0; i < n && i < 6; i++) {
		struct sysdecode_cap cap = { 0 };
		unsigned long long v = e->args[i];
		char kind = in && !ia32 ? arg_kind(in, e, i, &v) : 'x';
		struct sbuf *arg = &args[shown];

		if (!kind)
			continue;
		if (kind == 'c' && i == 0 && slot_special[e->h.slot & (STRACE_SLOTS - 1)] == SP_CLONE)
			return *half = clone_args(e);
		if (*half < 0 && (late_kind(kind) || i == slot_late[e->h.slot & (STRACE_SLOTS - 1)]))
			*half = shown;
		shown++;
		sbuf__reset(arg);
		/* two values strace names that no kind letter covers */
		if (kind == (char)('D' + 0x80)) {
			sbuf__printf(arg, "%s", v == 1 ? "FD_CLOEXEC" : v ? "0x1" : "0");
			continue;
		}
		if (kind == (char)('M' + 0x80)) {
			sbuf__printf(arg, "FUTEX_BITSET_MATCH_ANY");
			continue;
		}

		sbuf__reset(arg);
		for (int k = 0; k < STRACE_CAPS; k++) {
			if (e->cap_arg[k] == i && e->cap_len[k]) {
				cap.valid = true;
				cap.data = e->cap[k];
				cap.len = e->cap_len[k];
				if (kind == 'p' || kind == 's') {
					/* read_user_str counts the NUL */
					if (cap.len > 0)
						cap.len--;
					cap.more = e->cap_len[k] >= STRACE_STR_MAX;
				}
			}
		}
		if (kind == '=' && v && cap.valid && cap.len >= 4) {
			/* value-result length: in, and "=> out" when the call changed it */
			unsigned int inlen;
			int outlen = -1;

			memcpy(&inlen, cap.data, 4);
			if (x && x->ret >= 0 && !x->cap_str && x->cap_len > 0)
				outlen = sysdecode__sockaddr_len(x->cap, x->cap_len);
			if (outlen >= 0 && (unsigned int)outlen != inlen)
				sbuf__printf(arg, "[%u => %d]", inlen, outlen);
			else
				sbuf__printf(arg, "[%u]", inlen);
			continue;
		}
		if (struct_kind(arg, &o, kind, e, x, i, cap.valid ? &cap : NULL))
			continue;
		if (kind == '6') {	/* getdents: the address and strace's entry count */
			sysdecode__arg(arg, &o, 'x', v, NULL, 0);
			if (x && x->cap_str == STRACE_CAP_DIRENTS_COUNT)
				sbuf__printf(arg, " /* %d%s entries */", x->cap_len,
					     x->cap_len >= STRACE_DIRENTS_MAX ? "+" : "");
			continue;
		}
		if ((sysdecode__struct_out(kind) || kind == '*') && x && x->cap_len > 0 &&
		    !x->cap_str) {
			cap.valid = true;
			cap.data = x->cap;
			cap.len = x->cap_len;
		}
		if ((kind == 'r' || kind == 'R') && x && x->cap_len &&
		    (!x->cap_str || x->cap_str == STRACE_CAP_ADDR)) {
			cap.valid = true;
			cap.data = x->cap;
			cap.len = x->cap_len;
			cap.more = x->ret > x->cap_len;
		}
		if (!cfg.strsize && e->args[i] &&
		    ((kind == 'w' && i < 5 && e->args[i + 1]) || (kind == 'r' && x && x->ret > 0))) {
			/* -s 0: nothing copied, and strace shows ""... */
			sbuf__reset(arg);
			sbuf__printf(arg, "\"\"...");
			continue;
		}
		if ((kind == 'r' || kind == 'R') && !cap.valid) {
			/* nothing was read (error or 0 bytes): the address */
			kind = 'x';
			if (x && x->ret == 0)
				kind = 'E';
		}
		if (kind == 'v' && strv && (i == strv->arg || i == strv->arg + 1))
			kind = 'V';
		/* open's mode only matters with O_CREAT or O_TMPFILE, strace omits it */
		if (kind == 'm' && i > 0 && in && in->args[i - 1] == 'o' &&
		    !(e->args[i - 1] & (O_CREAT | 020000000))) {
			shown--;
			break;
		}
		if (kind == 'V') {
			kind = strv_arg(arg, strv, i, &v);
			if (kind)
				sysdecode__arg(arg, &o, kind, v, NULL, 0);
		} else if (kind == 'E')
			sbuf__printf(arg, "\"\"");
		else {
			/* strace shows getrandom's bytes in hex */
			o.hex = slot_special[e->h.slot & (STRACE_SLOTS - 1)] == SP_GETRANDOM;
			sysdecode__arg(arg, &o, kind, v, cap.valid ? &cap : NULL,
				       i < 5 ? e->args[i + 1] : 0);
			o.hex = false;
		}
	}
	if (*half < 0 || *half > shown)
		*half = shown;
	return shown;
}

static void emit_json(const struct strace_enter *e, int nargs, const struct strace_exit *x,
		      bool unfinished, __u64 ts)
{
	struct json j;
	char name[64], err[32];

	json__begin(&j, cur_out ? cur_out : trace_out);
	json__str(&j, "type", "syscall");
	json__fixed(&j, "timestamp", (ts + trace_mono_to_real_ns) / 1e9, 6);
	json__uint(&j, "pid", e->h.tgid);
	json__uint(&j, "tid", e->h.tid);
	json__str(&j, "syscall", print__slot_name(name, sizeof(name), e->h.slot));
	json__arr(&j, "args");
	for (int i = 0; i < nargs; i++)
		json__strn(&j, NULL, args[i].p ? args[i].p : "", args[i].len);
	json__arr_end(&j);
	if (x) {
		json__int(&j, "ret", x->ret);
		if (x->ret < 0 && x->ret >= -4095)
			json__str(&j, "error", sysdecode__errname(-x->ret, err, sizeof(err)));
		json__fixed(&j, "duration", (x->h.ts - e->h.ts) / 1e9, 6);
	} else if (unfinished) {
		json__bool(&j, "unfinished", true);
	} else {
		json__null(&j, "ret");
	}
	json__end(&j);
}

/* Did the user ask for this slot? (-y traces fd calls it does not show) */
static bool shown(__u32 slot)
{
	return slot < STRACE_SLOTS && (cfg.mask[slot / 64] & (1ULL << (slot % 64)));
}

/* Return values strace decodes by an argument: fcntl's F_GETFD, F_GETFL, F_DUPFD. */
static bool ret_special(const struct sysdecode_info *in, const struct strace_enter *e,
			const struct strace_exit *x)
{
	if (!in || e->h.slot >= STRACE_IA32 || slot_special[e->h.slot] != SP_FCNTL || x->ret < 0)
		return false;
	switch ((int)e->args[1]) {
	case F_GETFD:
		if (x->ret)
			sbuf__printf(&line, " = %#llx (flags %s)", (long long)x->ret,
				     x->ret == 1 ? "FD_CLOEXEC" : "?");
		else
			sbuf__printf(&line, " = 0");
		return true;
	case F_GETFL:
		sbuf__printf(&line, " = %#llx (flags ", (long long)x->ret);
		sysdecode__flags(&line, 'o', x->ret);
		sbuf__printf(&line, ")");
		return true;
	case F_DUPFD:
	case F_DUPFD_CLOEXEC: {
		struct sysdecode_opts o = { .fd_paths = cfg.fd_paths, .tgid = e->h.tgid,
					    .fd_path = fds__known };

		sysdecode__ret(&line, &o, 'f', x->ret);
		return true;
	}
	}
	return false;
}

/* -P: the paths asked for, as given and resolved */
static bool path_is(const char *p, size_t len)
{
	static char *real[MAX_PATHS];
	static bool resolved;

	if (!resolved) {
		for (int i = 0; i < cfg.npaths; i++)
			real[i] = realpath(cfg.paths[i], NULL);
		resolved = true;
	}
	for (int i = 0; i < cfg.npaths; i++) {
		if ((strlen(cfg.paths[i]) == len && !memcmp(cfg.paths[i], p, len)) ||
		    (real[i] && strlen(real[i]) == len && !memcmp(real[i], p, len)))
			return true;
	}
	return false;
}

static bool fd_is(pid_t tgid, long long fd)
{
	const char *p = fd >= 0 || fd == AT_FDCWD ? fds__known(tgid, fd) : NULL;

	return p && path_is(p, strlen(p));
}

/* Does the call touch a -P path: a path argument, a descriptor, a new fd? */
static bool path_hit(const struct strace_enter *e, const struct strace_exit *x)
{
	const struct sysdecode_info *in = print__slot_info(e->h.slot);

	if (!in || e->h.slot >= STRACE_IA32)
		return false;
	for (int k = 0; k < STRACE_CAPS; k++) {
		int a = e->cap_arg[k];

		if (a < 6 && in->args[a] == 'p' && e->cap_len[k] > 0 &&
		    path_is(e->cap[k], strnlen(e->cap[k], e->cap_len[k])))
			return true;
	}
	if (x && x->cap_str == 1 && x->cap_len > 0 && path_is(x->cap, strnlen(x->cap, x->cap_len)))
		return true;
	for (int i = 0; in->args[i] && i < 6; i++)
		if ((in->args[i] == 'd' || in->args[i] == 'D') && (int)e->args[i] != AT_FDCWD &&
		    fd_is(e->h.tgid, (int)e->args[i]))
			return true;
	return in->ret == 'f' && x && x->ret >= 0 && fd_is(e->h.tgid, x->ret);
}

/*
 * What of a call's line to print (strace's forms, for read):
 *   PART_WHOLE       read(0, "abc", 64) = 3   (x NULL: exit's "= ?")
 *   PART_HEAD        read(0,                  the entry half, left open
 *   PART_REST        "abc", 64) = 3           after an open PART_HEAD
 *   PART_RESUMED     <... read resumed>"abc", 64) = 3
 *   PART_UNFINISHED  read(0,  <unfinished ...>  (its return never came)
 *   PART_KILLED      read(0,  <unfinished ...>) = ?  (its thread ended in it)
 * x NULL with PART_REST or PART_RESUMED: the thread ended in the call.
 * col: the columns PART_HEAD took, for PART_REST's " = " at column 40.
 * Returns whether anything was printed.
 */
enum part { PART_WHOLE, PART_HEAD, PART_REST, PART_RESUMED, PART_UNFINISHED, PART_KILLED };

static bool print_call(const struct strace_enter *e, const struct strace_exit *x, enum part part,
		       size_t col)
{
	const struct sysdecode_info *in = print__slot_info(e->h.slot);
	struct sysdecode_opts o = { .strsize = cfg.strsize, .fd_paths = cfg.fd_paths,
				    .tgid = e->h.tgid, .fd_path = fds__known };
	const char *sname;
	char name[64];
	int n, half, i;

	if (!shown(e->h.slot) || (cfg.npaths && !path_hit(e, x)))
		return false;
	n = decode_args(e, x, &half);
	if (env.json) {
		/* one record a call: none for a half */
		if (part == PART_HEAD)
			return false;
		emit_json(e, n, x, part == PART_UNFINISHED, e->h.ts);
		return true;
	}
	if (part == PART_WHOLE && x)
		half = n;	/* the whole line at once: no split */
	if (part == PART_WHOLE && !x && !(in && in->ret == 'n'))
		part = PART_KILLED;
	sbuf__reset(&line);
	sname = print__slot_name(name, sizeof(name), e->h.slot);
	if (part == PART_RESUMED) {
		prefix(&line, e->h.tid, x ? x->h.ts : e->h.ts);
		sbuf__printf(&line, "<... %s resumed>", sname);
	} else if (part != PART_REST) {
		prefix(&line, e->h.tid, e->h.ts);
		sbuf__putn(&line, sname, strlen(sname));
		sbuf__putn(&line, "(", 1);
		for (i = 0; i < half; i++) {
			sbuf__putn(&line, args[i].p ? args[i].p : "", args[i].len);
			if (i + 1 < n)
				sbuf__putn(&line, ", ", 2);
		}
		if (part == PART_HEAD) {
			emit(&line, e->h.tid, false);
			return true;
		}
	}
	if (part == PART_UNFINISHED || part == PART_KILLED || (part == PART_REST && !x))
		sbuf__printf(&line, " <unfinished ...>");
	if (part == PART_UNFINISHED) {
		emit_line(&line, e->h.tid, false);
		return true;
	}
	for (i = half; x && i < n; i++) {
		if (i > half)
			sbuf__putn(&line, ", ", 2);
		sbuf__putn(&line, args[i].p ? args[i].p : "", args[i].len);
	}
	sbuf__putn(&line, ")", 1);
	/* strace puts " = " at column 40 (its -a 40), counting an open half */
	sbuf__pad(&line, part == PART_REST ? (col < 39 ? 39 - col : 0) : 39);
	if (!x)
		sysdecode__ret(&line, &o, 'n', 0);
	else if (!ret_special(in, e, x))
		sysdecode__ret(&line, &o, in && e->h.slot < STRACE_IA32 ? in->ret : 'd', x->ret);
	if (x && in && e->h.slot < STRACE_IA32 && in->args[0] == '*') {
		struct sysdecode_cap cap = { .data = x->cap, .len = x->cap_len,
					     .valid = !x->cap_str && x->cap_len > 0 };

		sysdecode__poll_ret(&line, &cap, x->ret);
	}
	if (x && cfg.durations) {
		__u64 d = x->h.ts - e->h.ts;

		sbuf__printf(&line, " <%llu.%06llu>", d / 1000000000, d % 1000000000 / 1000);
	}
	emit_line(&line, e->h.tid, part == PART_REST);
	return true;
}

static bool status_wanted(long long ret)
{
	bool failed = ret < 0 && ret >= -4095;

	return cfg.status == STATUS_ALL || (cfg.status == STATUS_FAILED) == failed;
}

/* Unlink and recycle the pending call of *pp; an open half is no longer open. */
static void pending_drop(struct pending **pp)
{
	struct pending *p = *pp;

	if (open_call == p)
		open_call = NULL;
	*pp = p->next;
	pending_release(p);
}

/* A call of this thread that never returned to us (its exit was lost). */
static void pending_stale(struct pending **pp)
{
	struct pending *p = *pp;

	if (cfg.status == STATUS_ALL) {
		if (p->state == P_OPEN) {
			sbuf__reset(&line);
			sbuf__printf(&line, " <unfinished ...>");
			emit_line(&line, p->e.h.tid, true);
		} else if (p->state == P_HELD) {
			print_call(&p->e, NULL, PART_UNFINISHED, 0);
		}
	}
	pending_drop(pp);
}

/* A new pending call of e's thread, from an event of size bytes. */
static struct pending *pending_add(const struct strace_enter *e, size_t size)
{
	struct pending *p = pending_alloc();

	if (!p)
		return NULL;
	/* copy what came: a small event has no string copies */
	memcpy(&p->e, e, size < sizeof(p->e) ? size : sizeof(p->e));
	if (size < sizeof(p->e))
		p->e.cap_len[0] = p->e.cap_len[1] = 0;
	p->e.h.type = EV_ENTER;
	p->strv = NULL;
	p->blocked = false;
	p->state = P_HELD;
	p->col = 0;
	p->next = pending[e->h.tid % PENDING_BUCKETS];
	pending[e->h.tid % PENDING_BUCKETS] = p;
	return p;
}

static void on_enter(const struct strace_enter *e, size_t size)
{
	const struct sysdecode_info *in = print__slot_info(e->h.slot);
	struct pending **pp = pending_find(e->h.tid);

	if (*pp)	/* the previous call never returned to us */
		pending_stale(pp);
	if (in && in->ret == 'n' && e->h.slot < STRACE_IA32) {
		/* exit, exit_group: no return to wait for */
		if (cfg.status == STATUS_ALL)	/* neither failed nor successful */
			print_call(e, NULL, PART_WHOLE, 0);
		return;
	}
	pending_add(e, size);
}

/* execve's argv and envp, after its entry: kept with the pending call. */
static void on_strv(const struct strace_strv *v, size_t size)
{
	struct pending *p = *pending_find(v->h.tid);

	if (!p || p->e.h.slot != v->h.slot || p->strv)
		return;
	p->strv = calloc(1, sizeof(*p->strv));
	if (p->strv)
		memcpy(p->strv, v, size < sizeof(*v) ? size : sizeof(*v));
}

/*
 * The call blocked: its entry half now, the line left open. Its entry
 * came before (then this event's arguments are not read), or this event
 * is its entry (a call with nothing copied at entry; -p's calls in
 * progress). With -z/-Z a line shows only at the return, as strace's.
 */
/*
 * A string that a call's entry could not copy, copied as the call blocked
 * (EV_BLOCKED) or at its exit (EV_ENTRY_STR): the string in cap[0], its
 * argument in cap_arg[0]; in place of the failed copy.
 */
static void blocked_str(struct strace_enter *pe, const struct strace_enter *e, size_t size)
{
	if (size < sizeof(*e) || e->cap_arg[0] >= 6 || e->cap_len[0] <= 0)
		return;
	for (int k = 0; k < STRACE_CAPS; k++) {
		if (pe->cap_arg[k] == e->cap_arg[0] && pe->cap_len[k] < 0) {
			memcpy(pe->cap[k], e->cap[0], sizeof(pe->cap[k]));
			pe->cap_len[k] = e->cap_len[0];
		}
	}
}

static void on_blocked(const struct strace_enter *e, size_t size)
{
	struct pending **pp = pending_find(e->h.tid), *p = *pp;

	if (!p || p->e.h.slot != e->h.slot || p->blocked) {
		if (p)
			pending_stale(pp);
		p = pending_add(e, STRACE_ENTER_SMALL);
		if (!p)
			return;
	} else {
		blocked_str(&p->e, e, size);
	}
	p->blocked = true;
	if (cfg.status != STATUS_ALL || !print_call(&p->e, NULL, PART_HEAD, 0))
		return;
	p->state = P_OPEN;
	p->col = line.len;
	if (!cfg.ff)	/* -ff: a file per thread, no other line comes between */
		open_call = p;
}

/* The return of pending call *pp: its line, or the rest of it. */
static void pending_end(struct pending **pp, const struct strace_exit *x)
{
	struct pending *p = *pp;
	enum part part = p->state == P_OPEN ? PART_REST :
			 p->state == P_CUT ? PART_RESUMED : PART_WHOLE;

	fds__track(&p->e, x, true);
	if (status_wanted(x->ret))
		print_call(&p->e, x, part, p->col);
	fds__track(&p->e, x, false);
	pending_drop(pp);
}

static void on_entry_str(const struct strace_enter *e, size_t size)
{
	struct pending *p = *pending_find(e->h.tid);

	if (p && p->e.h.slot == e->h.slot)
		blocked_str(&p->e, e, size);
}

static void on_exit_event(const struct strace_exit *x)
{
	struct pending **pp = pending_find(x->h.tid), *p = *pp;
	char name[64], err[32];

	if (p && p->e.h.slot == x->h.slot) {
		pending_end(pp, x);
		return;
	}
	/* the entry was lost: say what we know */
	if (!status_wanted(x->ret) || !shown(x->h.slot))
		return;
	if (env.json) {
		struct json j;

		json__begin(&j, cur_out ? cur_out : trace_out);
		json__str(&j, "type", "syscall");
		json__uint(&j, "pid", x->h.tgid);
		json__uint(&j, "tid", x->h.tid);
		json__str(&j, "syscall", print__slot_name(name, sizeof(name), x->h.slot));
		json__bool(&j, "resumed", true);
		json__int(&j, "ret", x->ret);
		if (x->ret < 0 && x->ret >= -4095)
			json__str(&j, "error", sysdecode__errname(-x->ret, err, sizeof(err)));
		json__end(&j);
		return;
	}
	sbuf__reset(&line);
	prefix(&line, x->h.tid, x->h.ts);
	sbuf__printf(&line, "<... %s resumed>)", print__slot_name(name, sizeof(name), x->h.slot));
	sysdecode__ret(&line, &(struct sysdecode_opts){ .strsize = cfg.strsize }, 'd', x->ret);
	emit_line(&line, x->h.tid, false);
}

/* A whole call in one event (nothing was copied at its entry). */
static void on_call(const struct strace_exit *x)
{
	struct pending **pp = pending_find(x->h.tid), *p = *pp;
	struct strace_enter e;

	if (p && p->blocked && p->e.h.slot == x->h.slot) {
		/* its entry came as it blocked: the arguments are the same */
		pending_end(pp, x);
		return;
	}
	if (p)	/* an earlier call never returned to us */
		pending_stale(pp);
	memset(&e, 0, STRACE_ENTER_SMALL);
	e.h = x->h;
	e.h.type = EV_ENTER;
	e.h.ts = x->enter_ts;
	memcpy(e.args, x->args, sizeof(e.args));
	e.cap_arg[0] = e.cap_arg[1] = 0xff;
	fds__track(&e, x, true);
	if (status_wanted(x->ret))
		print_call(&e, x, PART_WHOLE, 0);
	fds__track(&e, x, false);
}

/*
 * A main thread that ended while other threads of its process live on: its
 * "+++ exited" line waits for theirs, as wait(2) reports such a thread
 * (and strace prints it) only once the process is empty.
 */
struct held_exit {
	struct held_exit *next;
	struct strace_proc_exit x;
};
static struct held_exit *held_exits;

static void exit_line(const struct strace_proc_exit *x, __u32 code);

/* The held line of process tgid, once its last other thread ended (last). */
static void held_release(__u32 tgid, const struct strace_proc_exit *last)
{
	for (struct held_exit **pp = &held_exits, *h; (h = *pp); pp = &h->next) {
		FILE *saved = cur_out;

		if (h->x.h.tgid != tgid || (last && live_others(tgid)))
			continue;
		*pp = h->next;
		cur_out = cfg.ff ? ff_open(tgid) : trace_out;
		/* ended by the group's end: the group's code, as wait(2) gives */
		exit_line(&h->x, last && last->group_exit ? last->exit_code : h->x.exit_code);
		if (cfg.ff)
			ff_close(tgid);
		live_del(tgid);
		cur_out = saved;
		free(h);
		return;
	}
}

/* Lines held to the end (a thread's exit lost): printed as the trace ends. */
static void held_release_all(void)
{
	while (held_exits)
		held_release(held_exits->x.h.tgid, NULL);
}

/* Returns whether the thread's exit line was held. */
static bool on_proc_exit(const struct strace_proc_exit *x)
{
	struct pending **pp = pending_find(x->h.tid), *p = *pp;

	if (p) {	/* it ended in the call: "= ?" */
		if (cfg.status == STATUS_ALL)
			print_call(&p->e, NULL, p->state == P_OPEN ? PART_REST :
				   p->state == P_CUT ? PART_RESUMED : PART_KILLED, p->col);
		pending_drop(pp);
	}
	if (x->h.tid == x->h.tgid && live_others(x->h.tgid)) {
		struct held_exit *h = malloc(sizeof(*h));

		if (h) {
			h->x = *x;
			h->next = held_exits;
			held_exits = h;
			return true;
		}
	}
	exit_line(x, x->exit_code);
	return false;
}

static void exit_line(const struct strace_proc_exit *x, __u32 code)
{
	if (x->h.tid == x->h.tgid)
		fds__forget_process(x->h.tgid);
	if (env.json) {
		struct json j;

		json__begin(&j, cur_out ? cur_out : trace_out);
		json__str(&j, "type", "exit");
		json__uint(&j, "pid", x->h.tgid);
		json__uint(&j, "tid", x->h.tid);
		if (code & 0x7f) {
			json__str(&j, "signal", sigabbrev_np(code & 0x7f) ? sigabbrev_np(code & 0x7f) : "?");
			json__bool(&j, "core_dumped", code & 0x80);
		} else {
			json__int(&j, "status", (code >> 8) & 0xff);
		}
		json__end(&j);
		return;
	}
	if (cfg.quiet >= 2)	/* -qq */
		return;
	sbuf__reset(&line);
	prefix(&line, x->h.tid, x->h.ts);
	if (code & 0x7f) {
		const char *s = sigabbrev_np(code & 0x7f);

		sbuf__printf(&line, "+++ killed by SIG%s %s+++", s ? s : "?",
			     code & 0x80 ? "(core dumped) " : "");
	} else {
		sbuf__printf(&line, "+++ exited with %d +++", (code >> 8) & 0xff);
	}
	emit_line(&line, x->h.tid, false);
}

/* strace's si_code names: generic ones, and SIGCHLD's own. */
static const char *si_code_name(int signo, int code, char *buf, size_t len)
{
	static const char *chld[] = { NULL, "CLD_EXITED", "CLD_KILLED", "CLD_DUMPED",
				      "CLD_TRAPPED", "CLD_STOPPED", "CLD_CONTINUED" };

	switch (code) {
	case 0: return "SI_USER";
	case 0x80: return "SI_KERNEL";
	case -1: return "SI_QUEUE";
	case -2: return "SI_TIMER";
	case -3: return "SI_MESGQ";
	case -4: return "SI_ASYNCIO";
	case -6: return "SI_TKILL";
	}
	if (signo == SIGCHLD && code > 0 && code <= 6)
		return chld[code];
	snprintf(buf, len, "%d", code);
	return buf;
}

static void on_signal(const struct strace_signal *x)
{
	const char *abbrev = sigabbrev_np(x->signo);
	char sig[32], code[16];
	const char *c = si_code_name(x->signo, x->code, code, sizeof(code));
	bool has_pid = x->code == 0 || x->code == -1 || x->code == -6 || x->signo == SIGCHLD;

	if (x->signo < 1 || x->signo > 64 || !(cfg.signals & (1ULL << (x->signo - 1))))
		return;	/* -e signal= */
	if (abbrev)
		snprintf(sig, sizeof(sig), "SIG%s", abbrev);
	else
		snprintf(sig, sizeof(sig), "%d", x->signo);
	if (env.json) {
		struct json j;

		json__begin(&j, cur_out ? cur_out : trace_out);
		json__str(&j, "type", "signal");
		json__fixed(&j, "timestamp", (x->h.ts + trace_mono_to_real_ns) / 1e9, 6);
		json__uint(&j, "pid", x->h.tgid);
		json__uint(&j, "tid", x->h.tid);
		json__str(&j, "signal", sig);
		json__str(&j, "si_code", c);
		if (has_pid) {
			json__int(&j, "si_pid", x->pid);
			json__uint(&j, "si_uid", x->uid);
		}
		json__end(&j);
		return;
	}
	sbuf__reset(&line);
	prefix(&line, x->h.tid, x->h.ts);
	sbuf__printf(&line, "--- %s {si_signo=%s, si_code=%s", sig, sig, c);
	if (has_pid)
		sbuf__printf(&line, ", si_pid=%d, si_uid=%u", x->pid, x->uid);
	if (x->signo == SIGCHLD && x->code > 0)
		sbuf__printf(&line, ", si_status=%d, si_utime=%lld, si_stime=%lld", x->status,
			     (long long)x->utime, (long long)x->stime);
	sbuf__printf(&line, "} ---");
	emit_line(&line, x->h.tid, false);
}

void print__detach(void)
{
	held_release_all();
	for (int b = 0; b < PENDING_BUCKETS; b++) {
		for (struct pending *p = pending[b]; p; p = p->next) {
			FILE *f = cfg.ff ? ff_open(p->e.h.tid) : trace_out;

			if (p->state != P_OPEN)
				continue;
			fputs(" <detached ...>\n", f);
			fflush(f);
			p->state = P_CUT;
		}
	}
	open_call = NULL;
}

int print__event(void *ctx, void *data, size_t size)
{
	const struct strace_hdr *h = data;

	(void)ctx;
	if (size < sizeof(*h))
		return 0;
	cur_out = cfg.ff ? ff_open(h->tid) : trace_out;
	if (h->type != EV_PROC_EXIT)
		live_note(h->tid, h->tgid);
	switch (h->type) {
	case EV_ENTER:
		if (size >= STRACE_ENTER_SMALL && h->slot < STRACE_SLOTS)
			on_enter(data, size);
		break;
	case EV_EXIT:
		if (size >= STRACE_EXIT_SMALL && h->slot < STRACE_SLOTS)
			on_exit_event(data);
		break;
	case EV_CALL:
		if (size >= STRACE_EXIT_SMALL && h->slot < STRACE_SLOTS)
			on_call(data);
		break;
	case EV_SIGNAL:
		if (size >= sizeof(struct strace_signal))
			on_signal(data);
		break;
	case EV_BLOCKED:
		if (size >= STRACE_ENTER_SMALL && h->slot < STRACE_SLOTS)
			on_blocked(data, size);
		break;
	case EV_STRV:
		if (size >= STRACE_STRV_HDR && h->slot < STRACE_SLOTS)
			on_strv(data, size);
		break;
	case EV_ENTRY_STR:
		if (size >= sizeof(struct strace_enter) && h->slot < STRACE_SLOTS)
			on_entry_str(data, size);
		break;
	case EV_FORK:	/* counted above */
		if (size >= sizeof(struct strace_fork))
			fds__fork(data);
		break;
	case EV_FDS:
	case EV_EXEC_FDS:
		fds__event(data, size);
		break;
	case EV_PROC_EXIT:
		if (size >= sizeof(struct strace_proc_exit) && on_proc_exit(data))
			break;	/* the main thread's line waits for the others' */
		if (cfg.ff)
			ff_close(h->tid);
		live_del(h->tid);
		if (h->tid != h->tgid && size >= sizeof(struct strace_proc_exit))
			held_release(h->tgid, data);
		break;
	}
	return 0;
}
