/* SPDX-License-Identifier: GPL-2.0 */
/*
 * strace-style decoding of system call arguments, table-driven: one row
 * per syscall name gives its classes (%file, %desc, ...), the kind of
 * each argument and of the return value. The same table tells the BPF
 * side which arguments to copy (strings and buffers).
 */
#ifndef BPFLITE_SYSDECODE_H
#define BPFLITE_SYSDECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "out/sbuf.h"

/* Classes, as strace's -e trace=%class. */
enum {
	SC_FILE		= 1 << 0,
	SC_DESC		= 1 << 1,
	SC_PROCESS	= 1 << 2,
	SC_NET		= 1 << 3,
	SC_SIGNAL	= 1 << 4,
	SC_MEMORY	= 1 << 5,
	SC_IPC		= 1 << 6,
};

/*
 * Argument kinds (one letter each):
 *   d fd            D dirfd (AT_FDCWD)   p path (copied)    s string (copied, -s)
 *   w input buffer, its length is the next argument (copied at entry, -s)
 *   r output buffer, length = return value (copied at exit, -s)
 *   R output string (copied at exit)
 *   i int           u unsigned           l long             x pointer or hex
 *   o open flags    m mode (octal)       A AT_* flags        a access mode
 *   P PROT_*        M MAP_*              c CLONE_* (+ signal) g signal
 *   W wait options  k address family    t socket type       f fcntl command
 *   h sigprocmask how                    e lseek whence     v string array (pointer)
 *   K SOCK_* flags alone (accept4)      O offset, hex        j clockid
 *   b arch_prctl code   F futex op       I ioctl request      y getrandom flags
 *   B fadvise advice    H madvise advice C rlimit resource    T statx flags
 *   U statx mask        N clock_nanosleep flags  1 memfd_create flags
 * Structures, copied by the BPF side (input at entry, output at exit when
 * the call succeeded):
 *   G sockaddr, its length the next argument (input)
 *   n timespec (input)  Q sigaction (input)  Z sigset (input)   J rlimit (input)
 *   S stat (output)     X statx (output)     q sigaction (output)
 *   z sigset (output)   L rlimit (output)    Y wait status (output)
 *   2 int[2] (output: pipe)   4 stack_t (input)   5 stack_t (output)
 *   3 timespec (output: clock_gettime, clock_getres)
 *   7 struct flock (input)    6 dirent buffer: its entries counted at exit
 *   0 O_* flags without an access mode (pipe2, dup3)
 *   8 epoll_create1 flags      9 IPPROTO_* (socket's protocol for inet families)
 *   # shutdown how   $ socket level   ( SO_* option   ) TCP_* option
 *   & an int option value (input, 4 bytes: "[1]")
 *   * pollfd array, nfds the next argument (copied at exit: events and revents)
 *   ~ MSG_* flags
 *   @ sockaddr result (output)   = socklen_t value-result: "[128 => 16]"
 *   [ iovec array, its count next (input)   ] iovec array (output, ret bytes)
 *   { msghdr (input)   } msghdr (output)   + epoll_ctl op
 *   % epoll_event (input)   ^ epoll_event array, ret elements (output)
 *   ` an ioctl's argument, by request: termios, winsize, int (read at exit)
 *   | getsockopt's value and ! its length (both read at exit)
 *   ; struct clone_args (input)
 *   < recvfrom's source address and > its length (both at exit)
 * Return kinds: 'd' decimal, 'f' file descriptor, 'x' hex, 'n' does not
 * return ("= ?").
 */
struct sysdecode_info {
	const char *name;
	unsigned int classes;
	const char *args;
	char ret;
};

/* The row of a syscall name; NULL when the table has none. */
const struct sysdecode_info *sysdecode__find(const char *name);
/* Class bit of "%file", "file", ...; 0 when unknown. */
unsigned int sysdecode__class(const char *name);
/* Every row, for walks (classes to numbers); *n rows. */
const struct sysdecode_info *sysdecode__table(size_t *n);

/*
 * Which arguments the BPF side copies, as a mask for it:
 * bits 0-5 strings copied at entry (p, s), bits 8-10 the 1-based index of
 * an input buffer (w), bits 12-14 the 1-based index of an output buffer
 * (r, R) copied at exit, bits 16-18 the 1-based index of the first
 * string array (v: execve's argv).
 */
unsigned long long sysdecode__capture_mask(const struct sysdecode_info *in);
#define SYSDECODE_CAP_STR(i)	(1u << (i))
#define SYSDECODE_CAP_IN(m)	(((m) >> 8) & 7)
#define SYSDECODE_CAP_IN_STRUCT	(1ULL << 11)
#define SYSDECODE_CAP_OUT(m)	(((m) >> 12) & 7)
#define SYSDECODE_CAP_ARGV(m)	(((m) >> 16) & 7)
#define SYSDECODE_CAP_ENVC	(1ULL << 19)
#define SYSDECODE_CAP_ISTRUCT(m)	(((m) >> 20) & 7)
#define SYSDECODE_CAP_ISIZE(m)	(((m) >> 24) & 0xff)
#define SYSDECODE_CAP_OSTRUCT(m)	(((m) >> 32) & 7)
#define SYSDECODE_CAP_OSIZE(m)	(((m) >> 40) & 0xff)
#define SYSDECODE_CAP_DIRENTS	(1ULL << 48)	/* the output structure: dirents to count */
#define SYSDECODE_CAP_POLL	(1ULL << 49)	/* the output structure: pollfd[next argument] */
#define SYSDECODE_CAP_OARRAY	(1ULL << 50)	/* the output structure: ret elements */
#define SYSDECODE_CAP_OLEN	(1ULL << 51)	/* the output structure after its length (*next) */
#define SYSDECODE_CAP_IOV(m)	(((m) >> 52) & 7)	/* an iovec array or msghdr */
#define SYSDECODE_CAP_IOV_MSG	(1ULL << 55)
#define SYSDECODE_CAP_IOV_EXIT	(1ULL << 56)
#define SYSDECODE_CAP_OADDR	(1ULL << 57)	/* recvfrom's source address at exit */
#define SYSDECODE_CAP_VRES(m)	(((m) >> 58) & 7)	/* a value-result length at entry */
#define SYSDECODE_CAP_VRES_MSG	(1ULL << 61)	/* that of a msghdr's msg_name */
/* Bytes copied of a structure kind (above); 0: not a structure. */
int sysdecode__struct_size(char kind);
/* Is kind an output structure? */
bool sysdecode__struct_out(char kind);

/* A captured argument: bytes copied (len), and whether more existed. */
struct sysdecode_cap {
	const char *data;
	int len;		/* < 0: the copy failed (bad address) */
	bool valid;
	bool more;		/* the data went on past what was copied */
};

struct sysdecode_opts {
	int strsize;		/* -s: bytes of strings and buffers shown */
	bool hex;		/* buffers in \xNN (getrandom's) */
	bool fd_paths;		/* -y: fd paths */
	pid_t tgid;		/* for -y: whose fds */
	/* for -y: the caller's knowledge of fd (from the calls it saw) or NULL */
	const char *(*fd_path)(pid_t tgid, int fd);
};

/* strace's quoting: "..." with C escapes, and "..."... when cut at max. */
void sysdecode__quote(struct sbuf *b, const char *s, size_t len, size_t max, bool more);
/* Every byte as \xNN (strace's form for getrandom's buffer). */
void sysdecode__quote_hex(struct sbuf *b, const char *s, size_t len, size_t max, bool more);
/*
 * -y: "<path>" with strace's escapes (\n, \33, and '<' '>' in octal), so
 * a file name cannot forge a line or a terminal sequence.
 */
void sysdecode__quote_fd_path(struct sbuf *b, const char *s, size_t len);
/* -X: constants as names (abbrev), numbers (raw) or both (verbose). */
enum { SYSDECODE_ABBREV, SYSDECODE_RAW, SYSDECODE_VERBOSE };
extern int sysdecode__style;

/* Flags as "O_RDONLY|O_CLOEXEC" etc., by kind letter. */
void sysdecode__flags(struct sbuf *b, char kind, unsigned long long v);
/*
 * One argument: kind, raw value, capture (may be NULL), next argument's
 * value (buffer lengths).
 */
void sysdecode__arg(struct sbuf *b, const struct sysdecode_opts *o, char kind,
		    unsigned long long v, const struct sysdecode_cap *cap,
		    unsigned long long next);
/* The length the kernel returns with a sockaddr result, from its family; -1: not known. */
int sysdecode__sockaddr_len(const char *d, int len);
/* -v: structures in full (termios's c_line and c_cc) */
extern bool sysdecode__verbose;
/* epoll_wait's events: ret of them, len bytes copied. */
void sysdecode__epoll_events(struct sbuf *b, const struct sysdecode_opts *o, const char *d,
			     int len, long long ret);
/*
 * An iovec block (bpf/strace.h) as strace's iovec array, cnt elements,
 * total bytes moved (< 0: all); and as a msghdr with its iovecs.
 */
void sysdecode__iov(struct sbuf *b, const struct sysdecode_opts *o, const char *blk, int len,
		    unsigned long long cnt, long long total);
void sysdecode__msghdr(struct sbuf *b, const struct sysdecode_opts *o, const char *blk, int len,
		       long long total, int in_namelen);
/* A value-result length: "[16]", or "[128 => 16]" when the call changed it (in < 0: unknown). */
void sysdecode__vres(struct sbuf *b, long long in, unsigned int out);
/* poll's " ([{fd=3, revents=POLLIN}])" after its return value; " (Timeout)" at 0. */
void sysdecode__poll_ret(struct sbuf *b, const struct sysdecode_cap *cap, long long ret);
/* " = 3", " = -1 ENOENT (No such file or directory)", " = ?", " = 0x7f..." */
void sysdecode__ret(struct sbuf *b, const struct sysdecode_opts *o, char kind, long long ret);
/* Name and description of an errno, kernel-internal ones included. */
const char *sysdecode__errname(int err, char *buf, size_t len);
const char *sysdecode__errdesc(int err);

#endif
