// SPDX-License-Identifier: GPL-2.0
/* strace-style argument decoding: the table and the printers. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include "strace.h"
#include "strace/decode/syscalls.h"
#include "strace/decode/sysargs.h"
#include "strace/decode/sysdecode.h"

#define F SC_FILE
#define D SC_DESC
#define P SC_PROCESS
#define N SC_NET
#define S SC_SIGNAL
#define M SC_MEMORY
#define I SC_IPC

/*
 * Classes follow strace's syscallent tables (TF, TD, TP, TN, TS, TM, TI);
 * argument kinds follow the kernel's SYSCALL_DEFINE prototypes.
 */
static const struct sysdecode_info table[] = {
	{ "read", D, "dru", 'd' },
	{ "write", D, "dwu", 'd' },
	{ "open", F | D, "pom", 'f' },
	{ "close", D, "d", 'd' },
	{ "stat", F, "pS", 'd' },
	{ "fstat", D, "dS", 'd' },
	{ "lstat", F, "pS", 'd' },
	{ "poll", D, "*ui", 'd' },
	{ "lseek", D, "dle", 'd' },
	{ "mmap", M | D, "xuPMdO", 'x' },
	{ "mprotect", M, "xuP", 'd' },
	{ "munmap", M, "xu", 'd' },
	{ "brk", M, "x", 'x' },
	{ "rt_sigaction", S, "gQqu", 'd' },
	{ "rt_sigprocmask", S, "hZzu", 'd' },
	{ "rt_sigreturn", S, "", 'd' },
	{ "ioctl", D, "dI`", 'd' },
	{ "pread64", D, "drul", 'd' },
	{ "pwrite64", D, "dwul", 'd' },
	{ "readv", D, "d]u", 'd' },
	{ "writev", D, "d[u", 'd' },
	{ "access", F, "pa", 'd' },
	{ "pipe", D, "2", 'd' },
	{ "select", D, "ixxxx", 'd' },
	{ "sched_yield", 0, "", 'd' },
	{ "mremap", M, "xuuix", 'x' },
	{ "msync", M, "xui", 'd' },
	{ "mincore", M, "xux", 'd' },
	{ "madvise", M, "xuH", 'd' },
	{ "shmget", I, "iui", 'd' },
	{ "shmat", I | M, "ixi", 'x' },
	{ "shmctl", I, "iix", 'd' },
	{ "dup", D, "d", 'f' },
	{ "dup2", D, "di", 'f' },
	{ "pause", S, "", 'd' },
	{ "nanosleep", 0, "nx", 'd' },
	{ "getitimer", 0, "ix", 'd' },
	{ "alarm", 0, "u", 'd' },
	{ "setitimer", 0, "ixx", 'd' },
	{ "getpid", 0, "", 'd' },
	{ "sendfile", D | N, "ddxu", 'd' },
	{ "socket", N, "kti", 'f' },
	{ "connect", N, "dGu", 'd' },
	{ "accept", N, "d@=", 'f' },
	{ "sendto", N, "dwu~Gu", 'd' },
	{ "recvfrom", N, "dru~<>", 'd' },
	{ "sendmsg", N, "d{~", 'd' },
	{ "recvmsg", N, "d}~", 'd' },
	{ "shutdown", N, "d#", 'd' },
	{ "bind", N, "dGu", 'd' },
	{ "listen", N, "di", 'd' },
	{ "getsockname", N, "d@=", 'd' },
	{ "getpeername", N, "d@=", 'd' },
	{ "socketpair", N, "kti2", 'd' },
	{ "setsockopt", N, "d$(&u", 'd' },
	{ "getsockopt", N, "d$(|!", 'd' },
	{ "clone", P, "cxxxx", 'd' },
	{ "fork", P, "", 'd' },
	{ "vfork", P, "", 'd' },
	{ "execve", F | P, "pvv", 'd' },
	{ "exit", P, "i", 'n' },
	{ "wait4", P, "iYWx", 'd' },
	{ "kill", S | P, "ig", 'd' },
	{ "uname", 0, "x", 'd' },
	{ "semget", I, "iii", 'd' },
	{ "semop", I, "ixu", 'd' },
	{ "semctl", I, "iiix", 'd' },
	{ "shmdt", I | M, "x", 'd' },
	{ "msgget", I, "ii", 'd' },
	{ "msgsnd", I, "ixui", 'd' },
	{ "msgrcv", I, "ixuli", 'd' },
	{ "msgctl", I, "iix", 'd' },
	{ "fcntl", D, "df7", 'd' },
	{ "flock", D, "di", 'd' },
	{ "fsync", D, "d", 'd' },
	{ "fdatasync", D, "d", 'd' },
	{ "truncate", F, "pl", 'd' },
	{ "ftruncate", D, "dl", 'd' },
	{ "getdents", D, "d6u", 'd' },
	{ "getcwd", F, "Ru", 'd' },
	{ "chdir", F, "p", 'd' },
	{ "fchdir", D, "d", 'd' },
	{ "rename", F, "pp", 'd' },
	{ "mkdir", F, "pm", 'd' },
	{ "rmdir", F, "p", 'd' },
	{ "creat", F | D, "pm", 'f' },
	{ "link", F, "pp", 'd' },
	{ "unlink", F, "p", 'd' },
	{ "symlink", F, "pp", 'd' },
	{ "readlink", F, "pRu", 'd' },
	{ "chmod", F, "pm", 'd' },
	{ "fchmod", D, "dm", 'd' },
	{ "chown", F, "pii", 'd' },
	{ "fchown", D, "dii", 'd' },
	{ "lchown", F, "pii", 'd' },
	{ "umask", 0, "m", 'd' },
	{ "gettimeofday", 0, "xx", 'd' },
	{ "getrlimit", 0, "CL", 'd' },
	{ "getrusage", 0, "ix", 'd' },
	{ "sysinfo", 0, "x", 'd' },
	{ "times", 0, "x", 'd' },
	{ "ptrace", 0, "iixx", 'd' },
	{ "getuid", 0, "", 'd' },
	{ "syslog", 0, "ixi", 'd' },
	{ "getgid", 0, "", 'd' },
	{ "setuid", 0, "i", 'd' },
	{ "setgid", 0, "i", 'd' },
	{ "geteuid", 0, "", 'd' },
	{ "getegid", 0, "", 'd' },
	{ "setpgid", 0, "ii", 'd' },
	{ "getppid", 0, "", 'd' },
	{ "getpgrp", 0, "", 'd' },
	{ "setsid", 0, "", 'd' },
	{ "setreuid", 0, "ii", 'd' },
	{ "setregid", 0, "ii", 'd' },
	{ "getgroups", 0, "ix", 'd' },
	{ "setgroups", 0, "ix", 'd' },
	{ "setresuid", 0, "iii", 'd' },
	{ "getresuid", 0, "xxx", 'd' },
	{ "setresgid", 0, "iii", 'd' },
	{ "getresgid", 0, "xxx", 'd' },
	{ "getpgid", 0, "i", 'd' },
	{ "setfsuid", 0, "i", 'd' },
	{ "setfsgid", 0, "i", 'd' },
	{ "getsid", 0, "i", 'd' },
	{ "capget", 0, "xx", 'd' },
	{ "capset", 0, "xx", 'd' },
	{ "rt_sigpending", S, "xu", 'd' },
	{ "rt_sigtimedwait", S, "xxxu", 'd' },
	{ "rt_sigqueueinfo", S | P, "igx", 'd' },
	{ "rt_sigsuspend", S, "xu", 'd' },
	{ "sigaltstack", S, "45", 'd' },
	{ "utime", F, "px", 'd' },
	{ "mknod", F, "pmx", 'd' },
	{ "personality", 0, "x", 'x' },
	{ "statfs", F, "px", 'd' },
	{ "fstatfs", D, "dx", 'd' },
	{ "getpriority", 0, "ii", 'd' },
	{ "setpriority", 0, "iii", 'd' },
	{ "mlock", M, "xu", 'd' },
	{ "munlock", M, "xu", 'd' },
	{ "mlockall", M, "x", 'd' },
	{ "munlockall", M, "", 'd' },
	{ "prctl", 0, "ixxxx", 'd' },
	{ "arch_prctl", 0, "bx", 'd' },
	{ "chroot", F, "p", 'd' },
	{ "sync", 0, "", 'd' },
	{ "acct", F, "p", 'd' },
	{ "mount", F, "ppsxx", 'd' },
	{ "umount2", F, "pi", 'd' },
	{ "swapon", F, "pi", 'd' },
	{ "swapoff", F, "p", 'd' },
	{ "sethostname", 0, "su", 'd' },
	{ "gettid", 0, "", 'd' },
	{ "readahead", D, "dlu", 'd' },
	{ "setxattr", F, "psxui", 'd' },
	{ "lsetxattr", F, "psxui", 'd' },
	{ "fsetxattr", D, "dsxui", 'd' },
	{ "getxattr", F, "psxu", 'd' },
	{ "lgetxattr", F, "psxu", 'd' },
	{ "fgetxattr", D, "dsxu", 'd' },
	{ "listxattr", F, "pxu", 'd' },
	{ "llistxattr", F, "pxu", 'd' },
	{ "flistxattr", D, "dxu", 'd' },
	{ "removexattr", F, "ps", 'd' },
	{ "lremovexattr", F, "ps", 'd' },
	{ "fremovexattr", D, "ds", 'd' },
	{ "tkill", S | P, "ig", 'd' },
	{ "time", 0, "x", 'd' },
	{ "futex", 0, "xFixxi", 'd' },
	{ "sched_setaffinity", 0, "iux", 'd' },
	{ "sched_getaffinity", 0, "iux", 'd' },
	{ "epoll_create", D, "i", 'f' },
	{ "getdents64", D, "d6u", 'd' },
	{ "set_tid_address", 0, "x", 'd' },
	{ "restart_syscall", 0, "", 'd' },
	{ "fadvise64", D, "dllB", 'd' },
	{ "clock_gettime", 0, "j3", 'd' },
	{ "clock_getres", 0, "j3", 'd' },
	{ "clock_nanosleep", 0, "jNnx", 'd' },
	{ "exit_group", P, "i", 'n' },
	{ "epoll_wait", D, "d^ii", 'd' },
	{ "epoll_ctl", D, "d+d%", 'd' },
	{ "tgkill", S | P, "iig", 'd' },
	{ "utimes", F, "px", 'd' },
	{ "mbind", M, "xuixux", 'd' },
	{ "set_mempolicy", M, "ixu", 'd' },
	{ "get_mempolicy", M, "xxuxx", 'd' },
	{ "mq_open", D, "somx", 'f' },
	{ "mq_unlink", 0, "s", 'd' },
	{ "mq_timedsend", D, "dwuux", 'd' },
	{ "mq_timedreceive", D, "druxx", 'd' },
	{ "mq_notify", D, "dx", 'd' },
	{ "mq_getsetattr", D, "dxx", 'd' },
	{ "waitid", P, "iixWx", 'd' },
	{ "inotify_init", D, "", 'f' },
	{ "inotify_add_watch", D | F, "dpx", 'd' },
	{ "inotify_rm_watch", D, "di", 'd' },
	{ "migrate_pages", M, "iuxx", 'd' },
	{ "openat", F | D, "Dpom", 'f' },
	{ "mkdirat", F | D, "Dpm", 'd' },
	{ "mknodat", F | D, "Dpmx", 'd' },
	{ "fchownat", F | D, "DpiiA", 'd' },
	{ "futimesat", F | D, "Dpx", 'd' },
	{ "newfstatat", F | D, "DpSA", 'd' },
	{ "unlinkat", F | D, "DpA", 'd' },
	{ "renameat", F | D, "DpDp", 'd' },
	{ "linkat", F | D, "DpDpA", 'd' },
	{ "symlinkat", F | D, "pDp", 'd' },
	{ "readlinkat", F | D, "DpRu", 'd' },
	{ "fchmodat", F | D, "Dpm", 'd' },
	{ "faccessat", F | D, "Dpa", 'd' },
	{ "pselect6", D, "ixxxxx", 'd' },
	{ "ppoll", D, "*uxxu", 'd' },
	{ "unshare", 0, "c", 'd' },
	{ "splice", D, "dxdxux", 'd' },
	{ "tee", D, "ddux", 'd' },
	{ "sync_file_range", D, "dllx", 'd' },
	{ "vmsplice", D, "dxux", 'd' },
	{ "move_pages", M, "iuxxxx", 'd' },
	{ "utimensat", F | D, "DpxA", 'd' },
	{ "epoll_pwait", D, "d^iixu", 'd' },
	{ "signalfd", D | S, "dxu", 'f' },
	{ "timerfd_create", D, "ix", 'f' },
	{ "eventfd", D, "u", 'f' },
	{ "fallocate", D, "dill", 'd' },
	{ "timerfd_settime", D, "dxxx", 'd' },
	{ "timerfd_gettime", D, "dx", 'd' },
	{ "accept4", N, "d@=K", 'f' },
	{ "signalfd4", D | S, "dxux", 'f' },
	{ "eventfd2", D, "ux", 'f' },
	{ "epoll_create1", D, "8", 'f' },
	{ "dup3", D, "di0", 'f' },
	{ "pipe2", D, "20", 'd' },
	{ "inotify_init1", D, "x", 'f' },
	{ "preadv", D, "d]ul", 'd' },
	{ "pwritev", D, "d[ul", 'd' },
	{ "rt_tgsigqueueinfo", S | P, "iigx", 'd' },
	{ "recvmmsg", N, "dxuix", 'd' },
	{ "fanotify_init", D, "xx", 'f' },
	{ "fanotify_mark", D | F, "dxxDp", 'd' },
	{ "prlimit64", 0, "iCJL", 'd' },
	{ "name_to_handle_at", F | D, "DpxxA", 'd' },
	{ "open_by_handle_at", D, "dxo", 'f' },
	{ "syncfs", D, "d", 'd' },
	{ "sendmmsg", N, "dxui", 'd' },
	{ "setns", D, "dc", 'd' },
	{ "getcpu", 0, "xxx", 'd' },
	{ "process_vm_readv", 0, "ixuxux", 'd' },
	{ "process_vm_writev", 0, "ixuxux", 'd' },
	{ "finit_module", D, "dsx", 'd' },
	{ "renameat2", F | D, "DpDpx", 'd' },
	{ "getrandom", 0, "ruy", 'd' },
	{ "memfd_create", D, "s1", 'f' },
	{ "execveat", F | D | P, "DpvvA", 'd' },
	{ "membarrier", 0, "ixi", 'd' },
	{ "copy_file_range", D, "dxdxux", 'd' },
	{ "preadv2", D, "d]ulx", 'd' },
	{ "pwritev2", D, "d[ulx", 'd' },
	{ "pkey_mprotect", M, "xuPi", 'd' },
	{ "statx", F | D, "DpTUX", 'd' },
	{ "io_uring_setup", D, "ux", 'f' },
	{ "io_uring_enter", D, "duuxxu", 'd' },
	{ "io_uring_register", D, "duxu", 'd' },
	{ "open_tree", F | D, "Dpx", 'f' },
	{ "move_mount", F | D, "DpDpx", 'd' },
	{ "fsopen", D, "sx", 'f' },
	{ "fsmount", D, "dxx", 'f' },
	{ "fspick", F | D, "Dpx", 'f' },
	{ "pidfd_send_signal", D | S | P, "dgxx", 'd' },
	{ "pidfd_open", D, "ix", 'f' },
	{ "clone3", P, ";u", 'd' },
	{ "close_range", D, "uux", 'd' },
	{ "openat2", F | D, "Dpxu", 'f' },
	{ "pidfd_getfd", D, "ddx", 'f' },
	{ "faccessat2", F | D, "DpaA", 'd' },
	{ "process_madvise", D, "dxuix", 'd' },
	{ "epoll_pwait2", D, "d^ixxu", 'd' },
	{ "mount_setattr", F | D, "DpAxu", 'd' },
	{ "memfd_secret", D | M, "x", 'f' },
	{ "process_mrelease", D, "dx", 'd' },
	{ "set_robust_list", 0, "xu", 'd' },
	{ "setrlimit", 0, "CJ", 'd' },
	{ "get_robust_list", 0, "ixx", 'd' },
	{ "rseq", 0, "xxix", 'd' },
};

#undef F
#undef D
#undef P
#undef N
#undef S
#undef M
#undef I

const struct sysdecode_info *sysdecode__table(size_t *n)
{
	*n = sizeof(table) / sizeof(table[0]);
	return table;
}

/* The kind of an argument without a row, from its "type name". */
static char kind_of(const char *decl)
{
	const char *name = strrchr(decl, ' ');

	name = name ? name + 1 : decl;
	if (*name == '*')
		name++;
	if (strchr(decl, '*')) {
		if (!strncmp(decl, "const char *", 12) &&
		    (strstr(name, "name") || strstr(name, "path") || !strcmp(name, "dir")))
			return 'p';
		return 'x';
	}
	if (!strcmp(name, "fd") || !strcmp(name, "ufd") || !strcmp(name, "epfd") ||
	    !strcmp(name, "oldfd") || !strcmp(name, "newfd") || !strcmp(name, "pidfd"))
		return 'd';
	if (!strcmp(name, "dfd") || !strcmp(name, "olddfd") || !strcmp(name, "newdfd"))
		return 'D';
	if (strstr(name, "flags"))
		return 'x';
	if (!strncmp(decl, "umode_t", 7))
		return 'm';
	if (!strncmp(decl, "unsigned", 8) || !strncmp(decl, "size_t", 6) || !strncmp(decl, "u32", 3) ||
	    !strncmp(decl, "u64", 3))
		return 'u';
	if (!strncmp(decl, "long", 4) || !strncmp(decl, "loff_t", 6) || !strncmp(decl, "off_t", 5))
		return 'l';
	return 'i';
}

/*
 * A call without a row still shows its true number of arguments, from the
 * kernel's metadata, with kinds guessed from their types and names.
 */
static const struct sysdecode_info *synthesize(const char *name)
{
	static struct { struct sysdecode_info in; char args[7]; } *rows;
	static int nrows;
	const struct sysargs *a = sysargs__find(name), *all;
	int i, n;

	if (!a)
		return NULL;
	all = sysargs__table(&n);
	if (!rows && !(rows = calloc(n, sizeof(*rows))))
		return NULL;
	nrows = n;
	i = a - all;
	if (i < 0 || i >= nrows)
		return NULL;
	if (!rows[i].in.name) {
		int k = 0;

		for (int j = 0; j < a->n && j < 6; j++)
			if (!strstr(a->args[j], " pos_h"))
				rows[i].args[k++] = kind_of(a->args[j]);
		rows[i].args[k] = 0;
		rows[i].in.args = rows[i].args;
		rows[i].in.ret = 'd';
		rows[i].in.name = a->name;
	}
	return &rows[i].in;
}

const struct sysdecode_info *sysdecode__find(const char *name)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (!strcmp(table[i].name, name))
			return &table[i];
	return synthesize(name);
}

unsigned int sysdecode__class(const char *name)
{
	static const struct { const char *n; unsigned int c; } classes[] = {
		{ "file", SC_FILE }, { "desc", SC_DESC }, { "process", SC_PROCESS },
		{ "net", SC_NET }, { "network", SC_NET }, { "signal", SC_SIGNAL },
		{ "memory", SC_MEMORY }, { "ipc", SC_IPC },
	};

	if (*name == '%')
		name++;
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (!strcmp(classes[i].n, name))
			return classes[i].c;
	return 0;
}

int sysdecode__struct_size(char kind)
{
	switch (kind) {
	case 'S': return 144;	/* struct stat */
	case 'X': return 48;	/* struct statx, up to stx_size: the abbreviated form */
	case 'Q': case 'q': return 32;	/* the kernel's struct sigaction */
	case 'Z': case 'z': return 8;	/* sigset_t */
	case 'J': case 'L': return 16;	/* struct rlimit64 */
	case 'n': case '3': return 16;	/* struct timespec */
	case 'Y': return 4;	/* int */
	case '2': return 8;	/* int[2] */
	case '&': return 4;	/* an int option value (setsockopt) */
	case '=': return 4;	/* a socklen_t in and out: its value at entry */
	case '@': return 128;	/* a sockaddr result (sockaddr_storage) */
	case '4': case '5': return 24;	/* stack_t */
	case '7': return 32;	/* struct flock */
	case '%': return 12;	/* struct epoll_event (packed) */
	case '^': return 12;	/* epoll_event[ret] */
	case '`': return 36;	/* an ioctl's argument, by request: termios the largest */
	case '\'': return 8;	/* struct winsize */
	case '_': return 4;	/* an int an ioctl reads or writes */
	case '|': return 64;	/* getsockopt's value, after its length */
	case ';': return 88;	/* struct clone_args (CLONE_ARGS_SIZE_VER2) */
	}
	return 0;
}

bool sysdecode__struct_out(char kind)
{
	return kind && strchr("SXqzLY235@^`'_|", kind);
}

unsigned long long sysdecode__capture_mask(const struct sysdecode_info *in)
{
	unsigned long long m = 0;

	if (!in)
		return 0;
	for (int i = 0; in->args[i] && i < 6; i++) {
		int size = sysdecode__struct_size(in->args[i]);

		if (size && sysdecode__struct_out(in->args[i])) {
			if (!SYSDECODE_CAP_OSTRUCT(m) && !SYSDECODE_CAP_OUT(m))
				m |= (unsigned long long)(i + 1) << 32 | (unsigned long long)size << 40;
			if (in->args[i] == '^')
				m |= SYSDECODE_CAP_OARRAY;
			if (in->args[i] == '|')
				m |= SYSDECODE_CAP_OLEN;
			continue;
		}
		if (size) {
			if (!SYSDECODE_CAP_ISTRUCT(m))
				m |= (unsigned long long)(i + 1) << 20 | (unsigned long long)size << 24;
			continue;
		}
		switch (in->args[i]) {
		case '*':	/* pollfd[]: copied at exit */
			if (!SYSDECODE_CAP_OSTRUCT(m) && !SYSDECODE_CAP_OUT(m))
				m |= (unsigned long long)(i + 1) << 32 | SYSDECODE_CAP_POLL;
			break;
		case '6':	/* count the entries at exit */
			if (!SYSDECODE_CAP_OSTRUCT(m) && !SYSDECODE_CAP_OUT(m))
				m |= (unsigned long long)(i + 1) << 32 | SYSDECODE_CAP_DIRENTS;
			break;
		case '[':	/* iovec[next]: at entry */
		case ']':	/* at exit */
		case '{':	/* msghdr */
		case '}':
			if (!SYSDECODE_CAP_IOV(m))
				m |= (unsigned long long)(i + 1) << 52 |
				     (strchr("{}", in->args[i]) ? SYSDECODE_CAP_IOV_MSG : 0) |
				     (strchr("]}", in->args[i]) ? SYSDECODE_CAP_IOV_EXIT : 0);
			if (in->args[i] == '}' && !SYSDECODE_CAP_VRES(m))	/* msg_namelen */
				m |= (unsigned long long)(i + 1) << 58 | SYSDECODE_CAP_VRES_MSG;
			break;
		case '>':	/* recvfrom's addrlen, getsockopt's optlen */
		case '!':
			if (!SYSDECODE_CAP_VRES(m))
				m |= (unsigned long long)(i + 1) << 58;
			break;
		case 'G':
			if (!SYSDECODE_CAP_IN(m))
				m |= (unsigned int)(i + 1) << 8 | SYSDECODE_CAP_IN_STRUCT;
			else if (!SYSDECODE_CAP_ISTRUCT(m))	/* sendto: beside its data */
				m |= (unsigned long long)(i + 1) << 20 |
				     (unsigned long long)STRACE_ADDR_MAX << 24;
			break;
		case '<':
			m |= SYSDECODE_CAP_OADDR;
			break;
		case 'p':
		case 's':
			m |= SYSDECODE_CAP_STR(i);
			break;
		case 'w':
			m |= (unsigned int)(i + 1) << 8;
			break;
		case 'r':
		case 'R':
			m |= (unsigned int)(i + 1) << 12;
			break;
		case 'v':
			if (!SYSDECODE_CAP_ARGV(m))
				m |= (unsigned int)(i + 1) << 16 | SYSDECODE_CAP_ENVC;
			break;
		}
	}
	return m;
}

/* ---- text ---------------------------------------------------------- */

/* strace's string_quote(): C escapes, octal for the rest and for esc's characters. */
static void quote_bytes(struct sbuf *b, const char *s, size_t n, const char *esc)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = s[i];

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && !(esc && strchr(esc, c))) {
			sbuf__putn(b, (const char *)&c, 1);
			continue;
		}
		switch (c) {
		case '"': sbuf__printf(b, "\\\""); break;
		case '\\': sbuf__printf(b, "\\\\"); break;
		case '\n': sbuf__printf(b, "\\n"); break;
		case '\t': sbuf__printf(b, "\\t"); break;
		case '\r': sbuf__printf(b, "\\r"); break;
		case '\v': sbuf__printf(b, "\\v"); break;
		case '\f': sbuf__printf(b, "\\f"); break;
		default:
			if (c >= 0x20 && c < 0x7f && !(esc && strchr(esc, c))) {
				sbuf__printf(b, "%c", c);
			} else {
				/* the short octal form unless a digit follows */
				bool digit = i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '7';

				sbuf__printf(b, digit ? "\\%03o" : "\\%o", c);
			}
		}
	}
}

void sysdecode__quote(struct sbuf *b, const char *s, size_t len, size_t max, bool more)
{
	size_t n = len < max ? len : max;

	sbuf__putn(b, "\"", 1);
	quote_bytes(b, s, n, NULL);
	sbuf__printf(b, "\"%s", more || len > max ? "..." : "");
}

void sysdecode__quote_hex(struct sbuf *b, const char *s, size_t len, size_t max, bool more)
{
	size_t n = len < max ? len : max;

	sbuf__putn(b, "\"", 1);
	for (size_t i = 0; i < n; i++)
		sbuf__printf(b, "\\x%02x", (unsigned char)s[i]);
	sbuf__printf(b, "\"%s", more || len > max ? "..." : "");
}

void sysdecode__quote_fd_path(struct sbuf *b, const char *s, size_t len)
{
	sbuf__putn(b, "<", 1);
	quote_bytes(b, s, strnlen(s, len), "<>");
	sbuf__putn(b, ">", 1);
}

struct flag {
	unsigned long long v;
	const char *name;
};
#define FL(x) { x, #x }

static const struct flag open_flags[] = {
	/* in strace's order */
	FL(O_CREAT), FL(O_EXCL), FL(O_NOCTTY), FL(O_TRUNC), FL(O_APPEND), FL(O_NONBLOCK),
	FL(O_SYNC), FL(O_DSYNC), FL(O_ASYNC), FL(O_DIRECT),
	/* glibc defines O_LARGEFILE as 0 on 64-bit; the kernel's bit: */
	{ 0100000, "O_LARGEFILE" },
	FL(O_NOFOLLOW), FL(O_NOATIME), FL(O_CLOEXEC), FL(O_PATH),
	{ 020000000, "__O_TMPFILE" }, FL(O_DIRECTORY), { 0 },
};
static const struct flag at_flags[] = {
	FL(AT_SYMLINK_NOFOLLOW), FL(AT_REMOVEDIR), FL(AT_SYMLINK_FOLLOW), FL(AT_NO_AUTOMOUNT),
	FL(AT_EMPTY_PATH), { 0x6000, "AT_STATX_DONT_SYNC|AT_STATX_FORCE_SYNC" }, { 0 },
};
static const struct flag prot_flags[] = {
	FL(PROT_READ), FL(PROT_WRITE), FL(PROT_EXEC), FL(PROT_GROWSDOWN), FL(PROT_GROWSUP), { 0 },
};
static const struct flag map_flags[] = {
	FL(MAP_FIXED), FL(MAP_ANONYMOUS), FL(MAP_GROWSDOWN), FL(MAP_DENYWRITE),
	FL(MAP_EXECUTABLE), FL(MAP_LOCKED), FL(MAP_NORESERVE), FL(MAP_POPULATE),
	FL(MAP_NONBLOCK), FL(MAP_STACK), FL(MAP_HUGETLB), FL(MAP_SYNC),
	FL(MAP_FIXED_NOREPLACE), { 0 },
};
static const struct flag clone_flags[] = {
	FL(CLONE_VM), FL(CLONE_FS), FL(CLONE_FILES), FL(CLONE_SIGHAND), FL(CLONE_PIDFD),
	FL(CLONE_PTRACE), FL(CLONE_VFORK), FL(CLONE_PARENT), FL(CLONE_THREAD),
	FL(CLONE_NEWNS), FL(CLONE_SYSVSEM), FL(CLONE_SETTLS), FL(CLONE_PARENT_SETTID),
	FL(CLONE_CHILD_CLEARTID), FL(CLONE_DETACHED), FL(CLONE_UNTRACED),
	FL(CLONE_CHILD_SETTID), FL(CLONE_NEWCGROUP), FL(CLONE_NEWUTS), FL(CLONE_NEWIPC),
	FL(CLONE_NEWUSER), FL(CLONE_NEWPID), FL(CLONE_NEWNET), FL(CLONE_IO), { 0 },
};
static const struct flag wait_flags[] = {
	FL(WNOHANG), FL(WUNTRACED), FL(WCONTINUED), FL(WEXITED), FL(WNOWAIT),
	FL(__WNOTHREAD), FL(__WALL), FL(__WCLONE), { 0 },
};
/* in strace's order */
static const struct flag sock_flags[] = { FL(SOCK_CLOEXEC), FL(SOCK_NONBLOCK), { 0 } };
static const struct flag access_flags[] = { FL(R_OK), FL(W_OK), FL(X_OK), { 0 } };

static const struct flag families[] = {
	FL(AF_UNSPEC), FL(AF_UNIX), FL(AF_INET), FL(AF_INET6), FL(AF_NETLINK), FL(AF_PACKET),
	FL(AF_VSOCK), FL(AF_ALG), { 0, NULL },
};
static const struct flag sock_types[] = {
	FL(SOCK_STREAM), FL(SOCK_DGRAM), FL(SOCK_RAW), FL(SOCK_RDM), FL(SOCK_SEQPACKET),
	FL(SOCK_PACKET), { 0, NULL },
};
static const struct flag fcntl_cmds[] = {
	FL(F_DUPFD), FL(F_GETFD), FL(F_SETFD), FL(F_GETFL), FL(F_SETFL), FL(F_GETLK),
	FL(F_SETLK), FL(F_SETLKW), FL(F_SETOWN), FL(F_GETOWN), FL(F_SETSIG), FL(F_GETSIG),
	FL(F_OFD_GETLK), FL(F_OFD_SETLK), FL(F_OFD_SETLKW), FL(F_SETLEASE), FL(F_GETLEASE),
	FL(F_NOTIFY), FL(F_DUPFD_CLOEXEC), FL(F_SETPIPE_SZ), FL(F_GETPIPE_SZ),
	FL(F_ADD_SEALS), FL(F_GET_SEALS), { 0, NULL },
};
static const struct flag how[] = { FL(SIG_BLOCK), FL(SIG_UNBLOCK), FL(SIG_SETMASK), { 0, NULL } };
static const struct flag whence[] = {
	FL(SEEK_SET), FL(SEEK_CUR), FL(SEEK_END), FL(SEEK_DATA), FL(SEEK_HOLE), { 0, NULL },
};

/* Bits: names joined by '|', what is left in hex; zero as zero_name or "0". */
static void bits_names(struct sbuf *b, const struct flag *t, unsigned long long v, const char *zero)
{
	bool first = true;

	if (!v) {
		sbuf__printf(b, "%s", zero ? zero : "0");
		return;
	}
	for (; t->v; t++) {
		if ((v & t->v) == t->v) {
			sbuf__printf(b, "%s%s", first ? "" : "|", t->name);
			v &= ~t->v;
			first = false;
		}
	}
	if (v || first)
		sbuf__printf(b, "%s%#llx", first ? "" : "|", v);
}

int sysdecode__style = SYSDECODE_ABBREV;

/*
 * Flags inside a structure, as strace prints them under -X: names
 * (abbrev), the number (raw) or both (verbose).
 */
static void bits(struct sbuf *b, const struct flag *t, unsigned long long v, const char *zero)
{
	if (sysdecode__style == SYSDECODE_ABBREV) {
		bits_names(b, t, v, zero);
		return;
	}
	sbuf__printf(b, v ? "%#llx" : "0", v);
	if (sysdecode__style == SYSDECODE_VERBOSE && v) {
		sbuf__printf(b, " /* ");
		bits_names(b, t, v, zero);
		sbuf__printf(b, " */");
	}
}

static void value(struct sbuf *b, const struct flag *t, long long v);

/* An enumeration inside a structure, under -X as its flags are. */
static void value_field(struct sbuf *b, const struct flag *t, long long v)
{
	if (sysdecode__style != SYSDECODE_ABBREV)
		sbuf__printf(b, v ? "%#llx" : "0", v);
	if (sysdecode__style == SYSDECODE_VERBOSE) {
		sbuf__printf(b, " /* ");
		value(b, t, v);
		sbuf__printf(b, " */");
	}
	if (sysdecode__style == SYSDECODE_ABBREV)
		value(b, t, v);
}

/* One value of an enumeration, else the number. */
static void value(struct sbuf *b, const struct flag *t, long long v)
{
	for (; t->name; t++) {
		if ((long long)t->v == v) {
			sbuf__printf(b, "%s", t->name);
			return;
		}
	}
	sbuf__printf(b, "%lld", v);
}

static void signal_name(struct sbuf *b, int sig)
{
	const char *abbrev = sig > 0 && sig < 32 ? sigabbrev_np(sig) : NULL;

	/* the kernel's real-time range, as strace names it (glibc keeps 32, 33) */
	if (sig == SIGIO)	/* glibc: POLL; strace: IO */
		sbuf__printf(b, "SIGIO");
	else if (abbrev)
		sbuf__printf(b, "SIG%s", abbrev);
	else if (sig == 32)
		sbuf__printf(b, "SIGRTMIN");
	else if (sig > 32 && sig <= 64)
		sbuf__printf(b, "SIGRT_%d", sig - 32);
	else
		sbuf__printf(b, "%d", sig);
}

static const struct flag arch_prctl_codes[] = {
	{ 0x1001, "ARCH_SET_GS" }, { 0x1002, "ARCH_SET_FS" }, { 0x1003, "ARCH_GET_FS" },
	{ 0x1004, "ARCH_GET_GS" }, { 0x1011, "ARCH_GET_CPUID" }, { 0x1012, "ARCH_SET_CPUID" },
	{ 0x1021, "ARCH_GET_XCOMP_SUPP" }, { 0x1022, "ARCH_GET_XCOMP_PERM" },
	{ 0x1023, "ARCH_REQ_XCOMP_PERM" }, { 0x2001, "ARCH_MAP_VDSO_X32" },
	{ 0x2002, "ARCH_MAP_VDSO_32" }, { 0x2003, "ARCH_MAP_VDSO_64" }, { 0, NULL },
};
static const char *const futex_cmds[] = {
	"FUTEX_WAIT", "FUTEX_WAKE", "FUTEX_FD", "FUTEX_REQUEUE", "FUTEX_CMP_REQUEUE",
	"FUTEX_WAKE_OP", "FUTEX_LOCK_PI", "FUTEX_UNLOCK_PI", "FUTEX_TRYLOCK_PI",
	"FUTEX_WAIT_BITSET", "FUTEX_WAKE_BITSET", "FUTEX_WAIT_REQUEUE_PI",
	"FUTEX_CMP_REQUEUE_PI", "FUTEX_LOCK_PI2",
};
static const struct flag ioctls[] = {
	{ 0x5401, "TCGETS" }, { 0x5402, "SNDCTL_TMR_START or TCSETS" },
	/* strace names a number two requests share by both */
	{ 0x5403, "SNDCTL_TMR_STOP or TCSETSW" }, { 0x5404, "SNDCTL_TMR_CONTINUE or TCSETSF" },
	{ 0x5405, "TCGETA" }, { 0x5409, "TCSBRK" }, { 0x540A, "TCXONC" }, { 0x540B, "TCFLSH" },
	{ 0x540C, "TIOCEXCL" }, { 0x540D, "TIOCNXCL" }, { 0x540E, "TIOCSCTTY" },
	{ 0x540F, "TIOCGPGRP" }, { 0x5410, "TIOCSPGRP" }, { 0x5411, "TIOCOUTQ" },
	{ 0x5413, "TIOCGWINSZ" }, { 0x5414, "TIOCSWINSZ" }, { 0x5415, "TIOCMGET" },
	{ 0x541B, "FIONREAD" }, { 0x541C, "TIOCLINUX" }, { 0x5421, "FIONBIO" },
	{ 0x5422, "TIOCNOTTY" }, { 0x5429, "TIOCGSID" }, { 0x5450, "FIONCLEX" },
	{ 0x5451, "FIOCLEX" }, { 0x5452, "FIOASYNC" }, { 0x80045430, "TIOCGPTN" },
	{ 0x40045431, "TIOCSPTLCK" }, { 0x5441, "TIOCGPTPEER" }, { 0x8912, "SIOCGIFCONF" },
	{ 0x8933, "SIOCGIFINDEX" }, { 0x127c, "BLKSSZGET" }, { 0x80081272, "BLKGETSIZE64" },
	{ 0, NULL },
};
static const struct flag grnd_flags[] = {
	{ 1, "GRND_NONBLOCK" }, { 2, "GRND_RANDOM" }, { 4, "GRND_INSECURE" }, { 0 },
};
static const struct flag fadvice[] = {
	{ 0, "POSIX_FADV_NORMAL" }, { 1, "POSIX_FADV_RANDOM" }, { 2, "POSIX_FADV_SEQUENTIAL" },
	{ 3, "POSIX_FADV_WILLNEED" }, { 4, "POSIX_FADV_DONTNEED" }, { 5, "POSIX_FADV_NOREUSE" },
	{ 0, NULL },
};
static const struct flag madvice[] = {
	{ 0, "MADV_NORMAL" }, { 1, "MADV_RANDOM" }, { 2, "MADV_SEQUENTIAL" },
	{ 3, "MADV_WILLNEED" }, { 4, "MADV_DONTNEED" }, { 8, "MADV_FREE" }, { 9, "MADV_REMOVE" },
	{ 10, "MADV_DONTFORK" }, { 11, "MADV_DOFORK" }, { 12, "MADV_MERGEABLE" },
	{ 13, "MADV_UNMERGEABLE" }, { 14, "MADV_HUGEPAGE" }, { 15, "MADV_NOHUGEPAGE" },
	{ 16, "MADV_DONTDUMP" }, { 17, "MADV_DODUMP" }, { 18, "MADV_WIPEONFORK" },
	{ 19, "MADV_KEEPONFORK" }, { 20, "MADV_COLD" }, { 21, "MADV_PAGEOUT" },
	{ 22, "MADV_POPULATE_READ" }, { 23, "MADV_POPULATE_WRITE" },
	{ 24, "MADV_DONTNEED_LOCKED" }, { 25, "MADV_COLLAPSE" }, { 100, "MADV_HWPOISON" },
	{ 0, NULL },
};
static const struct flag rlimits[] = {
	{ 0, "RLIMIT_CPU" }, { 1, "RLIMIT_FSIZE" }, { 2, "RLIMIT_DATA" }, { 3, "RLIMIT_STACK" },
	{ 4, "RLIMIT_CORE" }, { 5, "RLIMIT_RSS" }, { 6, "RLIMIT_NPROC" }, { 7, "RLIMIT_NOFILE" },
	{ 8, "RLIMIT_MEMLOCK" }, { 9, "RLIMIT_AS" }, { 10, "RLIMIT_LOCKS" },
	{ 11, "RLIMIT_SIGPENDING" }, { 12, "RLIMIT_MSGQUEUE" }, { 13, "RLIMIT_NICE" },
	{ 14, "RLIMIT_RTPRIO" }, { 15, "RLIMIT_RTTIME" }, { 0, NULL },
};
static const struct flag clocks[] = {
	{ 0, "CLOCK_REALTIME" }, { 1, "CLOCK_MONOTONIC" }, { 2, "CLOCK_PROCESS_CPUTIME_ID" },
	{ 3, "CLOCK_THREAD_CPUTIME_ID" }, { 4, "CLOCK_MONOTONIC_RAW" },
	{ 5, "CLOCK_REALTIME_COARSE" }, { 6, "CLOCK_MONOTONIC_COARSE" }, { 7, "CLOCK_BOOTTIME" },
	{ 8, "CLOCK_REALTIME_ALARM" }, { 9, "CLOCK_BOOTTIME_ALARM" }, { 11, "CLOCK_TAI" },
	{ 0, NULL },
};
/* strace prints the sync type first, then the AT_* flags */
static const struct flag statx_at_flags[] = {
	FL(AT_SYMLINK_NOFOLLOW), FL(AT_NO_AUTOMOUNT), FL(AT_EMPTY_PATH), { 0 },
};
static const struct flag statx_mask[] = {
	{ 0x7ff, "STATX_BASIC_STATS" }, { 1, "STATX_TYPE" }, { 2, "STATX_MODE" },
	{ 4, "STATX_NLINK" }, { 8, "STATX_UID" }, { 0x10, "STATX_GID" }, { 0x20, "STATX_ATIME" },
	{ 0x40, "STATX_MTIME" }, { 0x80, "STATX_CTIME" }, { 0x100, "STATX_INO" },
	{ 0x200, "STATX_SIZE" }, { 0x400, "STATX_BLOCKS" }, { 0x800, "STATX_BTIME" },
	{ 0x1000, "STATX_MNT_ID" }, { 0x2000, "STATX_DIOALIGN" }, { 0x4000, "STATX_MNT_ID_UNIQUE" },
	{ 0 },
};
static const struct flag statx_attrs[] = {
	{ 0x4, "STATX_ATTR_COMPRESSED" }, { 0x10, "STATX_ATTR_IMMUTABLE" },
	{ 0x20, "STATX_ATTR_APPEND" }, { 0x40, "STATX_ATTR_NODUMP" },
	{ 0x800, "STATX_ATTR_ENCRYPTED" }, { 0x1000, "STATX_ATTR_AUTOMOUNT" },
	{ 0x2000, "STATX_ATTR_MOUNT_ROOT" }, { 0x100000, "STATX_ATTR_VERITY" },
	{ 0x200000, "STATX_ATTR_DAX" }, { 0 },
};
/* strace's order */
static const struct flag sa_flags[] = {
	{ 0x04000000, "SA_RESTORER" }, { 0x08000000, "SA_ONSTACK" }, { 0x10000000, "SA_RESTART" },
	{ 0x40000000, "SA_NODEFER" }, { 0x80000000, "SA_RESETHAND" }, { 4, "SA_SIGINFO" },
	{ 1, "SA_NOCLDSTOP" }, { 2, "SA_NOCLDWAIT" }, { 0 },
};

static const struct flag sock_levels[] = {
	{ 0, "SOL_IP" }, { 1, "SOL_SOCKET" }, { 6, "SOL_TCP" }, { 17, "SOL_UDP" },
	{ 41, "SOL_IPV6" }, { 58, "SOL_ICMPV6" }, { 132, "SOL_SCTP" }, { 255, "SOL_RAW" },
	{ 263, "SOL_PACKET" }, { 270, "SOL_NETLINK" }, { 282, "SOL_TLS" }, { 0, NULL },
};
static const struct flag so_options[] = {
	{ 1, "SO_DEBUG" }, { 2, "SO_REUSEADDR" }, { 3, "SO_TYPE" }, { 4, "SO_ERROR" },
	{ 5, "SO_DONTROUTE" }, { 6, "SO_BROADCAST" }, { 7, "SO_SNDBUF" }, { 8, "SO_RCVBUF" },
	{ 9, "SO_KEEPALIVE" }, { 10, "SO_OOBINLINE" }, { 11, "SO_NO_CHECK" },
	{ 12, "SO_PRIORITY" }, { 13, "SO_LINGER" }, { 14, "SO_BSDCOMPAT" },
	{ 15, "SO_REUSEPORT" }, { 16, "SO_PASSCRED" }, { 17, "SO_PEERCRED" },
	{ 18, "SO_RCVLOWAT" }, { 19, "SO_SNDLOWAT" }, { 20, "SO_RCVTIMEO_OLD" },
	{ 21, "SO_SNDTIMEO_OLD" }, { 25, "SO_BINDTODEVICE" }, { 29, "SO_TIMESTAMP_OLD" },
	{ 30, "SO_ACCEPTCONN" }, { 31, "SO_PEERSEC" }, { 32, "SO_SNDBUFFORCE" },
	{ 33, "SO_RCVBUFFORCE" }, { 36, "SO_MARK" }, { 38, "SO_PROTOCOL" }, { 39, "SO_DOMAIN" },
	{ 46, "SO_BUSY_POLL" }, { 47, "SO_MAX_PACING_RATE" }, { 60, "SO_ZEROCOPY" },
	{ 0, NULL },
};
static const struct flag tcp_options[] = {
	{ 1, "TCP_NODELAY" }, { 2, "TCP_MAXSEG" }, { 3, "TCP_CORK" }, { 4, "TCP_KEEPIDLE" },
	{ 5, "TCP_KEEPINTVL" }, { 6, "TCP_KEEPCNT" }, { 7, "TCP_SYNCNT" }, { 8, "TCP_LINGER2" },
	{ 9, "TCP_DEFER_ACCEPT" }, { 10, "TCP_WINDOW_CLAMP" }, { 11, "TCP_INFO" },
	{ 12, "TCP_QUICKACK" }, { 13, "TCP_CONGESTION" }, { 18, "TCP_USER_TIMEOUT" },
	{ 23, "TCP_FASTOPEN" }, { 25, "TCP_NOTSENT_LOWAT" }, { 30, "TCP_FASTOPEN_CONNECT" },
	{ 0, NULL },
};

static const struct flag poll_events[] = {
	{ 1, "POLLIN" }, { 2, "POLLPRI" }, { 4, "POLLOUT" }, { 8, "POLLERR" }, { 0x10, "POLLHUP" },
	{ 0x20, "POLLNVAL" }, { 0x40, "POLLRDNORM" }, { 0x80, "POLLRDBAND" },
	{ 0x100, "POLLWRNORM" }, { 0x200, "POLLWRBAND" }, { 0x400, "POLLMSG" },
	{ 0x2000, "POLLRDHUP" }, { 0 },
};
static const struct flag msg_flags[] = {
	{ 1, "MSG_OOB" }, { 2, "MSG_PEEK" }, { 4, "MSG_DONTROUTE" }, { 8, "MSG_CTRUNC" },
	{ 0x10, "MSG_PROXY" }, { 0x20, "MSG_TRUNC" }, { 0x40, "MSG_DONTWAIT" },
	{ 0x80, "MSG_EOR" }, { 0x100, "MSG_WAITALL" }, { 0x200, "MSG_FIN" }, { 0x400, "MSG_SYN" },
	{ 0x800, "MSG_CONFIRM" }, { 0x1000, "MSG_RST" }, { 0x2000, "MSG_ERRQUEUE" },
	{ 0x4000, "MSG_NOSIGNAL" }, { 0x8000, "MSG_MORE" }, { 0x10000, "MSG_WAITFORONE" },
	{ 0x20000, "MSG_BATCH" }, { 0x4000000, "MSG_ZEROCOPY" }, { 0x20000000, "MSG_FASTOPEN" },
	{ 0x40000000, "MSG_CMSG_CLOEXEC" }, { 0 },
};

static void futex_op(struct sbuf *b, unsigned long long v)
{
	unsigned int cmd = v & 0x7f;

	if (cmd < sizeof(futex_cmds) / sizeof(futex_cmds[0]))
		sbuf__printf(b, "%s%s", futex_cmds[cmd], v & 128 ? "_PRIVATE" : "");
	else
		sbuf__printf(b, "%#x%s", cmd, v & 128 ? "|FUTEX_PRIVATE_FLAG" : "");
	if (v & 256)
		sbuf__printf(b, "|FUTEX_CLOCK_REALTIME");
	if (v & ~0x1ffULL)
		sbuf__printf(b, "|%#llx", v & ~0x1ffULL);
}

/* strace's value kinds that are not flags: a name, else a number. */
static void named(struct sbuf *b, const struct flag *t, unsigned long long v, bool hex)
{
	for (; t->name; t++) {
		if (t->v == v) {
			sbuf__printf(b, "%s", t->name);
			return;
		}
	}
	sbuf__printf(b, hex ? "%#llx" : "%llu", v);
}

static void flags_abbrev(struct sbuf *b, char kind, unsigned long long v);

/*
 * -X raw and verbose, as strace: flags in hex, values in decimal (requests,
 * codes and clock ids in hex), and with verbose the names in a comment.
 */
void sysdecode__flags(struct sbuf *b, char kind, unsigned long long v)
{
	struct sbuf names = { 0 };
	size_t start = b->len;

	if (sysdecode__style == SYSDECODE_ABBREV || strchr("mOx", kind)) {
		flags_abbrev(b, kind, v);
		return;
	}
	if (strchr("gfheBHC9#", kind))
		sbuf__printf(b, "%d", (int)v);
	else
		sbuf__printf(b, "%#llx", v);
	if (sysdecode__style != SYSDECODE_VERBOSE)
		return;
	flags_abbrev(&names, kind, v);
	if (names.p && strcmp(names.p, b->p + start))
		sbuf__printf(b, " /* %s */", names.p);
	sbuf__free(&names);
}

static void flags_abbrev(struct sbuf *b, char kind, unsigned long long v)
{
	switch (kind) {
	case 'o': {
		static const char *acc[] = { "O_RDONLY", "O_WRONLY", "O_RDWR", "O_ACCMODE" };
		unsigned long long rest = v & ~(unsigned long long)O_ACCMODE;

		/* O_TMPFILE includes O_DIRECTORY: print it as strace does */
		sbuf__printf(b, "%s", acc[v & O_ACCMODE]);
		if (rest) {
			sbuf__printf(b, "|");
			bits_names(b, open_flags, rest, NULL);
		}
		break;
	}
	case 'A':
		bits_names(b, at_flags, v, "0");
		break;
	case 'P':
		bits_names(b, prot_flags, v, "PROT_NONE");
		break;
	case 'M': {
		static const char *type[] = { "0", "MAP_SHARED", "MAP_PRIVATE", "MAP_SHARED_VALIDATE" };
		unsigned long long t = v & 0xf, rest = v & ~0xfULL;

		if (t < 4)
			sbuf__printf(b, "%s", type[t]);
		else
			sbuf__printf(b, "%#llx", t);
		if (rest) {
			sbuf__printf(b, "|");
			bits_names(b, map_flags, rest, NULL);
		}
		break;
	}
	case 'c': {
		unsigned long long sig = v & 0xff, rest = v & ~0xffULL;

		if (rest)
			bits_names(b, clone_flags, rest, NULL);
		if (sig) {
			if (rest)
				sbuf__printf(b, "|");
			signal_name(b, sig);
		} else if (!rest) {
			sbuf__printf(b, "0");
		}
		break;
	}
	case 'W':
		bits_names(b, wait_flags, v, "0");
		break;
	case 'a':
		bits_names(b, access_flags, v, "F_OK");
		break;
	case 'g':
		signal_name(b, (int)v);
		break;
	case 'k':
		value(b, families, (int)v);
		break;
	case 'O':
		sbuf__printf(b, "%#llx", v);
		break;
	case '8':
		bits_names(b, (const struct flag[]){ { O_CLOEXEC, "EPOLL_CLOEXEC" }, { 0 } }, v, "0");
		break;
	case '1':
		bits_names(b, (const struct flag[]){ { 1, "MFD_CLOEXEC" }, { 2, "MFD_ALLOW_SEALING" },
				{ 4, "MFD_HUGETLB" }, { 8, "MFD_NOEXEC_SEAL" }, { 0x10, "MFD_EXEC" },
				{ 0 } }, v, "0");
		break;
	case '~':
		bits_names(b, msg_flags, v, "0");
		break;
	case '#':
		value(b, (const struct flag[]){ { 0, "SHUT_RD" }, { 1, "SHUT_WR" }, { 2, "SHUT_RDWR" },
				{ 0, NULL } }, (int)v);
		break;
	case '$':
		value(b, sock_levels, (int)v);
		break;
	case '(':
		value(b, so_options, (int)v);
		break;
	case ')':
		value(b, tcp_options, (int)v);
		break;
	case '+':
		value(b, (const struct flag[]){ { 1, "EPOLL_CTL_ADD" }, { 2, "EPOLL_CTL_DEL" },
				{ 3, "EPOLL_CTL_MOD" }, { 0, NULL } }, (int)v);
		break;
	case '9':
		value(b, (const struct flag[]){ { 0, "IPPROTO_IP" }, { 1, "IPPROTO_ICMP" },
				{ 6, "IPPROTO_TCP" }, { 17, "IPPROTO_UDP" }, { 41, "IPPROTO_IPV6" },
				{ 58, "IPPROTO_ICMPV6" }, { 132, "IPPROTO_SCTP" }, { 255, "IPPROTO_RAW" },
				{ 262, "IPPROTO_MPTCP" }, { 0, NULL } }, (int)v);
		break;
	case '0':	/* O_* flags without an access mode (pipe2, dup3) */
		bits_names(b, open_flags, v, "0");
		break;
	case 'j':
		value(b, clocks, (int)v);
		break;
	case 'N':
		bits_names(b, (const struct flag[]){ { 1, "TIMER_ABSTIME" }, { 0 } }, v, "0");
		break;
	case 'b':
		named(b, arch_prctl_codes, v, true);
		break;
	case 'F':
		futex_op(b, v);
		break;
	case 'I':
		named(b, ioctls, (unsigned int)v, true);
		break;
	case 'y':
		bits_names(b, grnd_flags, v, "0");
		break;
	case 'B':
		value(b, fadvice, (int)v);
		break;
	case 'H':
		value(b, madvice, (int)v);
		break;
	case 'C':
		value(b, rlimits, (int)v);
		break;
	case 'T': {
		static const char *sync[] = { "AT_STATX_SYNC_AS_STAT", "AT_STATX_FORCE_SYNC",
					      "AT_STATX_DONT_SYNC", "AT_STATX_SYNC_TYPE" };

		sbuf__printf(b, "%s", sync[(v >> 13) & 3]);
		if (v & ~0x6000ULL) {
			sbuf__printf(b, "|");
			bits_names(b, statx_at_flags, v & ~0x6000ULL, NULL);
		}
		break;
	}
	case 'U':
		bits_names(b, statx_mask, v, "0");
		break;
	case 'K':	/* accept4's flags: SOCK_* bits alone */
		bits_names(b, sock_flags, v, "0");
		break;
	case 't': {
		unsigned long long rest = v & ~0xfULL;

		value(b, sock_types, v & 0xf);
		if (rest) {
			sbuf__printf(b, "|");
			bits_names(b, sock_flags, rest, NULL);
		}
		break;
	}
	case 'f':
		value(b, fcntl_cmds, (int)v);
		break;
	case 'h':
		value(b, how, (int)v);
		break;
	case 'e':
		value(b, whence, (int)v);
		break;
	case 'm':
		sbuf__printf(b, "%#llo", v);
		break;
	default:
		sbuf__printf(b, "%#llx", v);
	}
}

/* ---- structures ---------------------------------------------------- */

static unsigned long long get64(const char *p)
{
	unsigned long long v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static unsigned int get32(const char *p)
{
	unsigned int v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static void mode_abbrev(struct sbuf *b, unsigned int mode)
{
	static const struct flag types[] = {
		FL(S_IFREG), FL(S_IFDIR), FL(S_IFCHR), FL(S_IFBLK), FL(S_IFIFO), FL(S_IFLNK),
		FL(S_IFSOCK), { 0, NULL },
	};
	bool found = false;

	for (const struct flag *t = types; t->name; t++) {
		if (t->v == (mode & S_IFMT)) {
			sbuf__printf(b, "%s|", t->name);
			found = true;
		}
	}
	if (!found && (mode & S_IFMT))
		sbuf__printf(b, "%#o|", mode & S_IFMT);
	if (mode & S_ISUID)
		sbuf__printf(b, "S_ISUID|");
	if (mode & S_ISGID)
		sbuf__printf(b, "S_ISGID|");
	if (mode & S_ISVTX)
		sbuf__printf(b, "S_ISVTX|");
	sbuf__printf(b, "%#03o", mode & 0777);
}

/* A stat structure's mode: the type and bits named, or under -X the number (octal) */
static void print_mode(struct sbuf *b, unsigned int mode)
{
	if (sysdecode__style == SYSDECODE_ABBREV) {
		mode_abbrev(b, mode);
		return;
	}
	sbuf__printf(b, "%#o", mode);
	if (sysdecode__style == SYSDECODE_VERBOSE) {
		sbuf__printf(b, " /* ");
		mode_abbrev(b, mode);
		sbuf__printf(b, " */");
	}
}

static void print_makedev(struct sbuf *b, unsigned long long dev)
{
	unsigned int major = ((dev >> 8) & 0xfff) | ((dev >> 32) & ~0xfffULL);
	unsigned int minor = (dev & 0xff) | ((dev >> 12) & ~0xffULL);

	sbuf__printf(b, "makedev(%#x, %#x)", major, minor);
}

/* strace's sigset: [INT TERM], or ~[...] of what is missing when most are in. */
static void print_sigset(struct sbuf *b, unsigned long long set)
{
	bool neg = __builtin_popcountll(set) > 32, first = true;

	if (neg)
		set = ~set;
	sbuf__printf(b, "%s[", neg ? "~" : "");
	for (int sig = 1; sig <= 64; sig++) {
		const char *n;

		if (!(set & (1ULL << (sig - 1))))
			continue;
		sbuf__printf(b, "%s", first ? "" : " ");
		first = false;
		if (sig == SIGIO)
			sbuf__printf(b, "IO");
		else if (sig < 32 && (n = sigabbrev_np(sig)))
			sbuf__printf(b, "%s", n);
		else if (sig == 32)
			sbuf__printf(b, "RTMIN");
		else if (sig > 32)
			sbuf__printf(b, "RT_%d", sig - 32);
		else
			sbuf__printf(b, "%d", sig);
	}
	sbuf__printf(b, "]");
}

static void print_rlim(struct sbuf *b, unsigned long long v)
{
	if (v == ~0ULL)
		sbuf__printf(b, "RLIM64_INFINITY");
	else if (v && !(v % 1024))
		sbuf__printf(b, "%llu*1024", v / 1024);
	else
		sbuf__printf(b, "%llu", v);
}

static void print_sockaddr(struct sbuf *b, const char *d, int len)
{
	unsigned int family = len >= 2 ? (unsigned char)d[0] | (unsigned char)d[1] << 8 : 0;
	char addr[INET6_ADDRSTRLEN];

	sbuf__printf(b, "{sa_family=");
	value_field(b, families, family);
	if (family == AF_UNIX && len > 2) {
		const char *path = d + 2;
		int n = len - 2;

		if (path[0]) {
			sbuf__printf(b, ", sun_path=");
			sysdecode__quote(b, path, strnlen(path, n), (size_t)-1, false);
		} else {	/* abstract */
			sbuf__printf(b, ", sun_path=@");
			sysdecode__quote(b, path + 1, n - 1, (size_t)-1, false);
		}
	} else if (family == AF_INET && len >= 8) {
		inet_ntop(AF_INET, d + 4, addr, sizeof(addr));
		sbuf__printf(b, ", sin_port=htons(%u), sin_addr=inet_addr(\"%s\")",
			     ntohs(*(const unsigned short *)(d + 2)), addr);
	} else if (family == AF_INET6 && len >= 28) {
		inet_ntop(AF_INET6, d + 8, addr, sizeof(addr));
		sbuf__printf(b, ", sin6_port=htons(%u), sin6_flowinfo=htonl(%u), "
			     "inet_pton(AF_INET6, \"%s\", &sin6_addr), sin6_scope_id=%u",
			     ntohs(*(const unsigned short *)(d + 2)), ntohl(get32(d + 4)), addr,
			     get32(d + 24));
	} else if (family == AF_NETLINK && len >= 12) {
		sbuf__printf(b, ", nl_pid=%u, nl_groups=%08x", get32(d + 4), get32(d + 8));
	} else if (len > 2) {
		sbuf__printf(b, ", sa_data=");
		sysdecode__quote(b, d + 2, len - 2, (size_t)-1, false);
	}
	sbuf__printf(b, "}");
}

static void print_wait_status(struct sbuf *b, int s)
{
	char sig[32];

	if (WIFEXITED(s))
		sbuf__printf(b, "[{WIFEXITED(s) && WEXITSTATUS(s) == %d}]", WEXITSTATUS(s));
	else if (WIFSIGNALED(s))
		sbuf__printf(b, "[{WIFSIGNALED(s) && WTERMSIG(s) == %s%s}]",
			     sigabbrev_np(WTERMSIG(s)) ?
			     (snprintf(sig, sizeof(sig), "SIG%s", sigabbrev_np(WTERMSIG(s))), sig) :
			     (snprintf(sig, sizeof(sig), "%d", WTERMSIG(s)), sig),
			     WCOREDUMP(s) ? " && WCOREDUMP(s)" : "");
	else if (WIFSTOPPED(s))
		sbuf__printf(b, "[{WIFSTOPPED(s) && WSTOPSIG(s) == SIG%s}]",
			     sigabbrev_np(WSTOPSIG(s)) ? sigabbrev_np(WSTOPSIG(s)) : "?");
	else if (WIFCONTINUED(s))
		sbuf__printf(b, "[{WIFCONTINUED(s)}]");
	else
		sbuf__printf(b, "[%#x]", s);
}

bool sysdecode__verbose;

/* -v: ", st_atime=SEC (a comment with the date), st_atime_nsec=NSEC" */
static void print_stat_time(struct sbuf *b, const char *name, const char *d)
{
	long long sec = (long long)get64(d), nsec = (long long)get64(d + 8);
	time_t t = sec;
	char date[64], zone[16];
	struct tm tm;

	sbuf__printf(b, ", %s=%lld", name, sec);
	if (localtime_r(&t, &tm) && strftime(date, sizeof(date), "%FT%T", &tm) &&
	    strftime(zone, sizeof(zone), "%z", &tm)) {
		sbuf__printf(b, " /* %s", date);
		if (nsec)
			sbuf__printf(b, ".%09lld", nsec);
		sbuf__printf(b, "%s */", zone);
	}
	sbuf__printf(b, ", %s_nsec=%lld", name, nsec);
}

static const struct flag epoll_events[] = {
	{ 0x1, "EPOLLIN" }, { 0x2, "EPOLLPRI" }, { 0x4, "EPOLLOUT" }, { 0x8, "EPOLLERR" },
	{ 0x10, "EPOLLHUP" }, { 0x20, "EPOLLNVAL" }, { 0x40, "EPOLLRDNORM" },
	{ 0x80, "EPOLLRDBAND" }, { 0x100, "EPOLLWRNORM" }, { 0x200, "EPOLLWRBAND" },
	{ 0x400, "EPOLLMSG" }, { 0x2000, "EPOLLRDHUP" }, { 1U << 28, "EPOLLEXCLUSIVE" },
	{ 1U << 29, "EPOLLWAKEUP" }, { 1U << 30, "EPOLLONESHOT" }, { 1U << 31, "EPOLLET" }, { 0 },
};

static void print_epoll_event(struct sbuf *b, const char *d)
{
	unsigned long long data = get64(d + 4);

	sbuf__printf(b, "{events=");
	bits(b, epoll_events, get32(d), "0");
	sbuf__printf(b, ", data={u32=%u, u64=%llu}}", (unsigned int)data, data);
}

void sysdecode__epoll_events(struct sbuf *b, const struct sysdecode_opts *o, const char *d,
			     int len, long long ret)
{
	int k;

	sbuf__printf(b, "[");
	for (k = 0; k < ret && k < o->strsize && (k + 1) * 12 <= len; k++) {
		sbuf__printf(b, "%s", k ? ", " : "");
		print_epoll_event(b, d + 12 * k);
	}
	sbuf__printf(b, "%s]", k == ret ? "" : k ? ", ..." : "...");
}

/* termios as strace prints it: flags by field, c_line and c_cc with -v. */
static const struct flag tc_iflags[] = {
	{ 01, "IGNBRK" }, { 02, "BRKINT" }, { 04, "IGNPAR" }, { 010, "PARMRK" }, { 020, "INPCK" },
	{ 040, "ISTRIP" }, { 0100, "INLCR" }, { 0200, "IGNCR" }, { 0400, "ICRNL" },
	{ 01000, "IUCLC" }, { 02000, "IXON" }, { 04000, "IXANY" }, { 010000, "IXOFF" },
	{ 020000, "IMAXBEL" }, { 040000, "IUTF8" }, { 0 },
};
static const struct flag tc_oflags[] = {
	{ 01, "OPOST" }, { 02, "OLCUC" }, { 04, "ONLCR" }, { 010, "OCRNL" }, { 020, "ONOCR" },
	{ 040, "ONLRET" }, { 0100, "OFILL" }, { 0200, "OFDEL" }, { 0 },
};
static const struct flag tc_cflags[] = {
	{ 0100, "CSTOPB" }, { 0200, "CREAD" }, { 0400, "PARENB" }, { 01000, "PARODD" },
	{ 02000, "HUPCL" }, { 04000, "CLOCAL" }, { 010000000000, "CMSPAR" },
	{ 020000000000, "CRTSCTS" }, { 0 },
};
static const struct flag tc_lflags[] = {
	{ 01, "ISIG" }, { 02, "ICANON" }, { 04, "XCASE" }, { 010, "ECHO" }, { 020, "ECHOE" },
	{ 040, "ECHOK" }, { 0100, "ECHONL" }, { 0200, "NOFLSH" }, { 0100000, "IEXTEN" },
	{ 01000, "ECHOCTL" }, { 02000, "ECHOPRT" }, { 04000, "ECHOKE" }, { 010000, "FLUSHO" },
	{ 040000, "PENDIN" }, { 0400, "TOSTOP" }, { 0200000, "EXTPROC" }, { 0 },
};

static const char *baud_name(unsigned int v)
{
	static const char *const low[16] = {
		"B0", "B50", "B75", "B110", "B134", "B150", "B200", "B300", "B600", "B1200",
		"B1800", "B2400", "B4800", "B9600", "B19200", "B38400",
	};
	static const char *const high[16] = {
		"BOTHER", "B57600", "B115200", "B230400", "B460800", "B500000", "B576000",
		"B921600", "B1000000", "B1152000", "B1500000", "B2000000", "B2500000",
		"B3000000", "B3500000", "B4000000",
	};

	return v & 010000 ? high[v & 017] : low[v & 017];
}

/* One part of a termios field: its name, or under -X its bits (and name). */
static void tc_part(struct sbuf *b, unsigned int bits_v, const char *fmt, ...)
{
	char name[32];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	if (sysdecode__style == SYSDECODE_ABBREV) {
		sbuf__printf(b, "%s", name);
		return;
	}
	sbuf__printf(b, bits_v ? "%#x" : "0", bits_v);
	if (sysdecode__style == SYSDECODE_VERBOSE)
		sbuf__printf(b, " /* %s */", name);
}

static void print_termios(struct sbuf *b, const char *d)
{
	static const char *const cc[] = {
		"VINTR", "VQUIT", "VERASE", "VKILL", "VEOF", "VTIME", "VMIN", "VSWTC", "VSTART",
		"VSTOP", "VSUSP", "VEOL", "VREPRINT", "VDISCARD", "VWERASE", "VLNEXT", "VEOL2",
	};
	unsigned int of = get32(d + 4), cf = get32(d + 8);

	sbuf__printf(b, "{c_iflag=");
	bits(b, tc_iflags, get32(d), "0");
	/* the delay fields by value, then the flags */
	sbuf__printf(b, ", c_oflag=");
	tc_part(b, of & 0400, "NL%u", (of >> 8) & 1);
	sbuf__printf(b, "|");
	tc_part(b, of & 03000, "CR%u", (of >> 9) & 3);
	sbuf__printf(b, "|");
	if (((of >> 11) & 3) == 3)
		tc_part(b, of & 014000, "XTABS");
	else
		tc_part(b, of & 014000, "TAB%u", (of >> 11) & 3);
	sbuf__printf(b, "|");
	tc_part(b, of & 020000, "BS%u", (of >> 13) & 1);
	sbuf__printf(b, "|");
	tc_part(b, of & 040000, "VT%u", (of >> 14) & 1);
	sbuf__printf(b, "|");
	tc_part(b, of & 0100000, "FF%u", (of >> 15) & 1);
	if (of & ~0177400U) {
		sbuf__printf(b, "|");
		bits(b, tc_oflags, of & ~0177400U, NULL);
	}
	sbuf__printf(b, ", c_cflag=");
	tc_part(b, cf & 010017, "%s", baud_name(cf & 010017));
	if ((cf >> 16) & 010017) {
		sbuf__printf(b, "|");
		tc_part(b, cf & 0x100f0000, "%s<<IBSHIFT", baud_name((cf >> 16) & 010017));
	}
	sbuf__printf(b, "|");
	tc_part(b, cf & 060, "CS%u", 5 + ((cf >> 4) & 3));
	if (cf & ~0x100f103fU) {
		sbuf__printf(b, "|");
		bits(b, tc_cflags, cf & ~0x100f103fU, NULL);
	}
	sbuf__printf(b, ", c_lflag=");
	bits(b, tc_lflags, get32(d + 12), "0");
	if (!sysdecode__verbose) {
		sbuf__printf(b, ", ...}");
		return;
	}
	if (d[16])
		sbuf__printf(b, ", c_line=%u", (unsigned char)d[16]);
	else
		sbuf__printf(b, ", c_line=N_TTY");
	sbuf__printf(b, ", c_cc=[");
	for (int i = 0; i < 19; i++) {
		unsigned char c = d[17 + i];

		if (i < 17)
			sbuf__printf(b, "%s[%s]=", i ? ", " : "", cc[i]);
		else
			sbuf__printf(b, ", [%d]=", i);
		sbuf__printf(b, c ? "%#x" : "%u", c);
	}
	sbuf__printf(b, "]}");
}

/* clone3's struct clone_args, the fields strace shows for its flags. */
static void print_clone_args(struct sbuf *b, const char *d, int len)
{
	unsigned long long fl = get64(d), stack = get64(d + 40);

	sbuf__printf(b, "{flags=");
	bits(b, clone_flags, fl, "0");
	if (fl & CLONE_PIDFD)
		sbuf__printf(b, ", pidfd=%#llx", get64(d + 8));
	if (fl & (CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID))
		sbuf__printf(b, ", child_tid=%#llx", get64(d + 16));
	if (fl & CLONE_PARENT_SETTID)
		sbuf__printf(b, ", parent_tid=%#llx", get64(d + 24));
	sbuf__printf(b, ", exit_signal=");
	if (get64(d + 32))
		signal_name(b, (int)get64(d + 32));
	else
		sbuf__printf(b, "0");
	if (stack)
		sbuf__printf(b, ", stack=%#llx", stack);
	else
		sbuf__printf(b, ", stack=NULL");
	sbuf__printf(b, ", stack_size=%#llx", get64(d + 48));
	if (fl & CLONE_SETTLS)
		sbuf__printf(b, ", tls=%#llx", get64(d + 56));
	if (get64(d + 64) || get64(d + 72))
		sbuf__printf(b, ", set_tid=%#llx, set_tid_size=%llu", get64(d + 64), get64(d + 72));
	if (len >= 88 && (get64(d + 80) || (fl & 0x200000000ULL)))	/* CLONE_INTO_CGROUP */
		sbuf__printf(b, ", cgroup=%llu", get64(d + 80));
	sbuf__printf(b, "}");
}

/*
 * An iovec block (strace.h) as strace prints the array: each element's
 * data up to what the call moved (total; < 0: all of it), cut at -s.
 */
static void print_iov(struct sbuf *b, const struct sysdecode_opts *o, const char *blk,
		      unsigned long long cnt, long long total, bool msg)
{
	int slots = STRACE_IOV_SLOTS(cnt), slot = STRACE_IOV_SLOT(cnt, msg);
	const char *data = blk + STRACE_IOV_DATA(msg);
	unsigned long long left = total < 0 ? ~0ULL : (unsigned long long)total;
	unsigned long long k;

	sbuf__printf(b, "[");
	for (k = 0; k < cnt; k++) {
		unsigned long long len = get32(blk + STRACE_IOV_LENS + 4 * k);
		unsigned long long n = len < left ? len : left;
		size_t have = n < (unsigned long long)slot ? n : (size_t)slot;

		/* as strace, -s elements at most; and the data of the first ones only */
		if (k >= (unsigned long long)o->strsize || (k && k >= (unsigned long long)slots)) {
			sbuf__printf(b, "%s...", k ? ", " : "");
			break;
		}
		left -= n;
		sbuf__printf(b, "%s{iov_base=", k ? ", " : "");
		if (have > (size_t)o->strsize)
			have = o->strsize;
		sysdecode__quote(b, data + k * slot, have, o->strsize, n > have);
		sbuf__printf(b, ", iov_len=%llu}", len);
	}
	sbuf__printf(b, "]");
}

void sysdecode__iov(struct sbuf *b, const struct sysdecode_opts *o, const char *blk, int len,
		    unsigned long long cnt, long long total)
{
	if (len < STRACE_STR_MAX) {
		sbuf__printf(b, "%#llx", cnt);
		return;
	}
	print_iov(b, o, blk, cnt, total, false);
}

void sysdecode__vres(struct sbuf *b, long long in, unsigned int out)
{
	if (in >= 0 && in != out)
		sbuf__printf(b, "[%lld => %u]", in, out);
	else
		sbuf__printf(b, "[%u]", out);
}

void sysdecode__msghdr(struct sbuf *b, const struct sysdecode_opts *o, const char *blk, int len,
		       long long total, int in_namelen)
{
	unsigned long long name = get64(blk), ctl = get64(blk + 32), iov = get64(blk + 16);
	unsigned long long cnt = get64(blk + 24);
	unsigned int namelen = get32(blk + 8);

	if (len < STRACE_STR_MAX)
		return;
	if (!name) {
		sbuf__printf(b, "{msg_name=NULL");
	} else if (namelen && namelen <= STRACE_IOV_NAME_MAX) {
		sbuf__printf(b, "{msg_name=");
		print_sockaddr(b, blk + STRACE_IOV_NAME, namelen);
	} else {	/* longer than copied (a unix path): its address */
		sbuf__printf(b, "{msg_name=%#llx", name);
	}
	sbuf__printf(b, ", msg_namelen=");
	if (name && in_namelen >= 0 && (unsigned int)in_namelen != namelen)
		sbuf__printf(b, "%d => ", in_namelen);
	sbuf__printf(b, "%u, msg_iov=", namelen);
	if (!iov)
		sbuf__printf(b, "NULL");
	else
		print_iov(b, o, blk, cnt, total, true);
	sbuf__printf(b, ", msg_iovlen=%llu", cnt);
	if (ctl)
		sbuf__printf(b, ", msg_control=%#llx", ctl);
	sbuf__printf(b, ", msg_controllen=%llu, msg_flags=", get64(blk + 40));
	bits(b, msg_flags, get32(blk + 48), "0");
	sbuf__printf(b, "}");
}

/* A structure the BPF side copied (d, len bytes), as strace prints it. */
static void print_struct(struct sbuf *b, char kind, const char *d, int len)
{
	switch (kind) {
	case 'S': {
		unsigned int mode = get32(d + 24);

		if (sysdecode__verbose) {
			sbuf__printf(b, "{st_dev=");
			print_makedev(b, get64(d));
			sbuf__printf(b, ", st_ino=%llu, st_mode=", get64(d + 8));
		} else {
			sbuf__printf(b, "{st_mode=");
		}
		print_mode(b, mode);
		if (sysdecode__verbose)
			sbuf__printf(b, ", st_nlink=%llu, st_uid=%u, st_gid=%u, st_blksize=%lld, "
				     "st_blocks=%lld", get64(d + 16), get32(d + 28), get32(d + 32),
				     (long long)get64(d + 56), (long long)get64(d + 64));
		if (S_ISCHR(mode) || S_ISBLK(mode)) {
			sbuf__printf(b, ", st_rdev=");
			print_makedev(b, get64(d + 40));
		} else {
			sbuf__printf(b, ", st_size=%lld", (long long)get64(d + 48));
		}
		if (!sysdecode__verbose) {
			sbuf__printf(b, ", ...}");
			break;
		}
		print_stat_time(b, "st_atime", d + 72);
		print_stat_time(b, "st_mtime", d + 88);
		print_stat_time(b, "st_ctime", d + 104);
		sbuf__printf(b, "}");
		break;
	}
	case 'X':
		sbuf__printf(b, "{stx_mask=");
		bits(b, statx_mask, get32(d), "0");
		sbuf__printf(b, ", stx_attributes=");
		bits(b, statx_attrs, get64(d + 8), "0");
		sbuf__printf(b, ", stx_mode=");
		print_mode(b, (unsigned short)get32(d + 28));
		sbuf__printf(b, ", stx_size=%llu, ...}", get64(d + 40));
		break;
	case 'Q':
	case 'q': {
		unsigned long long h = get64(d), fl = get64(d + 8);

		if (h == 0)
			sbuf__printf(b, "{sa_handler=SIG_DFL");
		else if (h == 1)
			sbuf__printf(b, "{sa_handler=SIG_IGN");
		else
			sbuf__printf(b, "{sa_handler=%#llx", h);
		sbuf__printf(b, ", sa_mask=");
		print_sigset(b, get64(d + 24));
		sbuf__printf(b, ", sa_flags=");
		bits(b, sa_flags, fl, "0");
		if (fl & 0x04000000)
			sbuf__printf(b, ", sa_restorer=%#llx", get64(d + 16));
		sbuf__printf(b, "}");
		break;
	}
	case 'Z':
	case 'z':
		print_sigset(b, get64(d));
		break;
	case 'J':
	case 'L':
		sbuf__printf(b, "{rlim_cur=");
		print_rlim(b, get64(d));
		sbuf__printf(b, ", rlim_max=");
		print_rlim(b, get64(d + 8));
		sbuf__printf(b, "}");
		break;
	case 'n':
	case '3':
		sbuf__printf(b, "{tv_sec=%lld, tv_nsec=%lld}", (long long)get64(d),
			     (long long)get64(d + 8));
		break;
	case 'Y':
		print_wait_status(b, (int)get32(d));
		break;
	case 'G':
	case '@':
		print_sockaddr(b, d, len);
		break;
	case '2':
		sbuf__printf(b, "[%d, %d]", (int)get32(d), (int)get32(d + 4));
		break;
	case '&':
		sbuf__printf(b, "[%d]", (int)get32(d));
		break;
	case '4':
	case '5': {
		unsigned int fl = get32(d + 8);

		sbuf__printf(b, "{ss_sp=%#llx, ss_flags=", get64(d));
		bits(b, (const struct flag[]){ { 1, "SS_ONSTACK" }, { 2, "SS_DISABLE" },
					      { 1U << 31, "SS_AUTODISARM" }, { 0 } }, fl, "0");
		sbuf__printf(b, ", ss_size=%llu}", get64(d + 16));
		break;
	}
	case '%':
		print_epoll_event(b, d);
		break;
	case '`':
		print_termios(b, d);
		break;
	case '\'':
		sbuf__printf(b, "{ws_row=%u, ws_col=%u, ws_xpixel=%u, ws_ypixel=%u}",
			     get32(d) & 0xffff, get32(d) >> 16, get32(d + 4) & 0xffff, get32(d + 4) >> 16);
		break;
	case '_':
		sbuf__printf(b, "[%d]", (int)get32(d));
		break;
	case ';':
		print_clone_args(b, d, len);
		break;
	case '7': {
		short type = (short)get32(d), wh = (short)(get32(d) >> 16);

		sbuf__printf(b, "{l_type=");
		value(b, (const struct flag[]){ { F_RDLCK, "F_RDLCK" }, { F_WRLCK, "F_WRLCK" },
					       { F_UNLCK, "F_UNLCK" }, { 0, NULL } }, type);
		sbuf__printf(b, ", l_whence=");
		value(b, whence, wh);
		sbuf__printf(b, ", l_start=%lld, l_len=%lld}", (long long)get64(d + 8),
			     (long long)get64(d + 16));
		break;
	}
	}
}

/*
 * -y: "3</etc/hostname>": what the caller knows of the fd (from the calls
 * it saw), else the number alone. A deleted file is "3</tmp/x>(deleted)",
 * as strace 6.1 prints the kernel's " (deleted)".
 */
static void fd_arg(struct sbuf *b, const struct sysdecode_opts *o, int fd)
{
	static const char deleted[] = " (deleted)";
	const char *known;
	size_t n;

	sbuf__printf(b, "%d", fd);
	if (!o->fd_paths || fd < 0 || !o->tgid || !o->fd_path)
		return;
	known = o->fd_path(o->tgid, fd);
	if (!known)
		return;
	n = strlen(known);
	if (n > sizeof(deleted) - 1 && !strcmp(known + n - (sizeof(deleted) - 1), deleted)) {
		sysdecode__quote_fd_path(b, known, n - (sizeof(deleted) - 1));
		sbuf__printf(b, "(deleted)");
		return;
	}
	sysdecode__quote_fd_path(b, known, n);
}

void sysdecode__arg(struct sbuf *b, const struct sysdecode_opts *o, char kind,
		    unsigned long long v, const struct sysdecode_cap *cap,
		    unsigned long long next)
{
	switch (kind) {
	case 'd':
		fd_arg(b, o, (int)v);
		return;
	case 'D':
		if ((int)v == AT_FDCWD) {
			if (sysdecode__style == SYSDECODE_ABBREV)
				sbuf__printf(b, "AT_FDCWD");
			else
				sbuf__printf(b, sysdecode__style == SYSDECODE_RAW ? "%d" :
					     "%d /* AT_FDCWD */", AT_FDCWD);
			/* -y: strace adds the cwd */
			const char *cwd = o->fd_paths && o->tgid && o->fd_path ?
					  o->fd_path(o->tgid, AT_FDCWD) : NULL;

			if (cwd)
				sysdecode__quote_fd_path(b, cwd, strlen(cwd));
		} else
			fd_arg(b, o, (int)v);
		return;
	case 'i':
		sbuf__printf(b, "%d", (int)v);
		return;
	case 'u':
		sbuf__printf(b, "%llu", v);
		return;
	case 'l':
		sbuf__printf(b, "%lld", (long long)v);
		return;
	case 'p':
	case 's':
	case 'w':
	case 'r':
	case 'R':
		if (!v) {
			sbuf__printf(b, "NULL");
		} else if (cap && cap->valid && cap->len >= 0) {
			size_t max = kind == 'p' ? (size_t)-1 : (size_t)o->strsize;
			size_t len = cap->len;
			bool more = cap->more;

			if (kind == 'w' && next > len)
				more = true;
			if (kind == 'R')	/* up to the NUL */
				len = strnlen(cap->data, len);
			if (o->hex)
				sysdecode__quote_hex(b, cap->data, len, max, more);
			else
				sysdecode__quote(b, cap->data, len, max, more);
		} else {
			sbuf__printf(b, "%#llx", v);
		}
		return;
	case 'x':
	case 'v':
		if (!v)
			sbuf__printf(b, "NULL");
		else
			sbuf__printf(b, "%#llx", v);
		return;
	case '*': {	/* [{fd=3, events=POLLIN}, ...]: nfds is next */
		int k, n = cap && cap->valid && cap->len > 0 ? cap->len / 8 : 0;

		if (!v) {
			sbuf__printf(b, "NULL");
			return;
		}
		if (!n) {
			sbuf__printf(b, "%#llx", v);
			return;
		}
		sbuf__printf(b, "[");
		for (k = 0; k < n; k++) {
			sbuf__printf(b, "%s{fd=%d, events=", k ? ", " : "", (int)get32(cap->data + 8 * k));
			bits(b, poll_events, (unsigned short)get32(cap->data + 8 * k + 4), "0");
			sbuf__printf(b, "}");
		}
		sbuf__printf(b, "%s]", next > (unsigned long long)n ? ", ..." : "");
		return;
	}
	case '2':	/* pipe's fds, with -y their files */
		if (v && cap && cap->valid && cap->len >= 8) {
			sbuf__printf(b, "[");
			fd_arg(b, o, (int)get32(cap->data));
			sbuf__printf(b, ", ");
			fd_arg(b, o, (int)get32(cap->data + 4));
			sbuf__printf(b, "]");
			return;
		}
		/* fall through */
	case 'G':
	case 'S': case 'X': case 'Q': case 'q': case 'Z': case 'z':
	case 'J': case 'L': case 'n': case '3': case 'Y': case '4': case '5': case '7': case '&':
	case '@': case '%': case '`': case '\'': case '_': case ';':
		if (!v)
			sbuf__printf(b, "NULL");
		else if (cap && cap->valid && cap->len > 0 &&
			 (kind == 'G' || cap->len >= sysdecode__struct_size(kind)))
			/* a sockaddr: as long as its length says */
			print_struct(b, kind, cap->data,
				     kind == 'G' && next && next < (unsigned long long)cap->len ?
				     (int)next : cap->len);
		else
			sbuf__printf(b, "%#llx", v);
		return;
	default:
		sysdecode__flags(b, kind, v);
	}
}

/* Kernel-internal codes (include/linux/errno.h) a tracer sees at exit. */
static const struct { int e; const char *name, *desc; } kerrs[] = {
	{ 512, "ERESTARTSYS", "To be restarted if SA_RESTART is set" },
	{ 513, "ERESTARTNOINTR", "To be restarted" },
	{ 514, "ERESTARTNOHAND", "To be restarted if no handler" },
	{ 515, "ENOIOCTLCMD", "Unknown ioctl command" },
	{ 516, "ERESTART_RESTARTBLOCK", "Interrupted by signal" },
};

const char *sysdecode__errname(int err, char *buf, size_t len)
{
	for (size_t i = 0; i < sizeof(kerrs) / sizeof(kerrs[0]); i++)
		if (kerrs[i].e == err)
			return kerrs[i].name;
	return errno__name(err, buf, len);
}

const char *sysdecode__errdesc(int err)
{
	for (size_t i = 0; i < sizeof(kerrs) / sizeof(kerrs[0]); i++)
		if (kerrs[i].e == err)
			return kerrs[i].desc;
	return strerror(err);
}

int sysdecode__sockaddr_len(const char *d, int len)
{
	unsigned int family = len >= 2 ? (unsigned char)d[0] | (unsigned char)d[1] << 8 : 0;

	switch (family) {
	case AF_INET: return 16;
	case AF_INET6: return 28;
	case AF_NETLINK: return 12;
	case AF_UNIX:
		if (len <= 2 || (!d[2] && len > 3 && !d[3]))
			return 2;	/* unnamed */
		if (d[2])
			return 2 + strnlen(d + 2, len - 2) + 1;
	}
	return -1;	/* abstract or unknown: not derived */
}

void sysdecode__poll_ret(struct sbuf *b, const struct sysdecode_cap *cap, long long ret)
{
	bool first = true;

	if (ret == 0) {
		sbuf__printf(b, " (Timeout)");
		return;
	}
	if (ret < 0 || !cap || !cap->valid || cap->len < 8)
		return;
	sbuf__printf(b, " ([");
	for (int k = 0; k < cap->len / 8; k++) {
		unsigned int rev = get32(cap->data + 8 * k + 4) >> 16;

		if (!rev)
			continue;
		sbuf__printf(b, "%s{fd=%d, revents=", first ? "" : ", ", (int)get32(cap->data + 8 * k));
		bits(b, poll_events, rev, "0");
		sbuf__printf(b, "}");
		first = false;
	}
	sbuf__printf(b, "])");
}

void sysdecode__ret(struct sbuf *b, const struct sysdecode_opts *o, char kind, long long ret)
{
	char name[32];

	if (kind == 'n') {
		sbuf__printf(b, " = ?");
		return;
	}
	if (ret < 0 && ret >= -4095) {
		int err = -ret;

		if (err >= 512 && err <= 516)	/* strace: "= ? ERESTARTSYS (...)" */
			sbuf__printf(b, " = ? %s (%s)", sysdecode__errname(err, name, sizeof(name)),
				     sysdecode__errdesc(err));
		else
			sbuf__printf(b, " = -1 %s (%s)", sysdecode__errname(err, name, sizeof(name)),
				     sysdecode__errdesc(err));
		return;
	}
	sbuf__putn(b, " = ", 3);
	if (kind == 'x')
		sbuf__printf(b, "%#llx", ret);
	else if (kind == 'f')
		fd_arg(b, o, (int)ret);
	else
		sbuf__printf(b, "%lld", ret);
}
