// SPDX-License-Identifier: GPL-2.0
/*
 * The generated syscall table against the kernel headers' __NR_ macros
 * compiled in, the decoder table against the syscall table, and the
 * strace-style printers.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <asm/unistd_64.h>
#include "unit.h"
#include "strace/decode/syscalls.h"
#include "strace/decode/sysdecode.h"
#include "strace/decode/sysargs.h"
#include "syscall_table.h"
#include "strace.h"

static void test_table_matches_headers(void **state)
{
	int n = 0;

	(void)state;
	/* every name of the generated list has the header's number */
#define X(name) do {							\
		assert_int_equal(syscall__nr(#name, false), __NR_##name);	\
		assert_string_equal(syscall__name(__NR_##name, false), #name);	\
		n++;							\
	} while (0);
	SYSCALLS_X86_64_EACH(X)
#undef X
	assert_int_equal(n, SYSCALLS_X86_64_COUNT);
	assert_true(n > 300);
	assert_int_equal(syscall__nr("read", false), 0);
	assert_int_equal(syscall__nr("getppid", false), 110);
	assert_int_equal(syscall__nr("openat", false), 257);
	assert_int_equal(syscall__nr("exit_group", false), 231);
	assert_int_equal(syscall__nr("no_such_call", false), -1);
	assert_null(syscall__name(-1, false));
	assert_null(syscall__name(100000, false));
}

static void test_ia32(void **state)
{
	char buf[64];

	(void)state;
	/* arch/x86/entry/syscalls/syscall_32.tbl */
	assert_int_equal(syscall__nr("getpid", true), 20);
	assert_int_equal(syscall__nr("execve", true), 11);
	assert_int_equal(syscall__nr("open", true), 5);
	assert_string_equal(syscall__format(buf, sizeof(buf), 20, true), "ia32:getpid");
	assert_string_equal(syscall__format(buf, sizeof(buf), 39, false), "getpid");
	assert_string_equal(syscall__format(buf, sizeof(buf), 500, false), "syscall_0x1f4");
}

static void test_decoder_rows_are_syscalls(void **state)
{
	size_t n;
	const struct sysdecode_info *t = sysdecode__table(&n);

	(void)state;
	assert_true(n > 200);
	for (size_t i = 0; i < n; i++) {
		if (syscall__nr(t[i].name, false) < 0)
			fail_msg("decoder row '%s' is not an x86_64 syscall", t[i].name);
		assert_true(strlen(t[i].args) <= 6);
		assert_non_null(strchr("dfxn", t[i].ret));
		for (size_t j = i + 1; j < n; j++)
			if (!strcmp(t[i].name, t[j].name))
				fail_msg("decoder row '%s' twice", t[i].name);
	}
	assert_true(sysdecode__find("openat")->classes & SC_FILE);
	assert_true(sysdecode__find("openat")->classes & SC_DESC);
	assert_true(sysdecode__find("mmap")->classes & SC_MEMORY);
	assert_true(sysdecode__find("socket")->classes & SC_NET);
	assert_true(sysdecode__find("kill")->classes & SC_SIGNAL);
	assert_true(sysdecode__find("clone")->classes & SC_PROCESS);
	assert_true(sysdecode__find("semop")->classes & SC_IPC);
	assert_false(sysdecode__find("read")->classes & SC_FILE);
	assert_int_equal(sysdecode__class("%file"), SC_FILE);
	assert_int_equal(sysdecode__class("%network"), SC_NET);
	assert_int_equal(sysdecode__class("%bogus"), 0);
}

static void test_capture_mask(void **state)
{
	unsigned long long m;

	(void)state;
	m = sysdecode__capture_mask(sysdecode__find("openat"));
	assert_int_equal(m, SYSDECODE_CAP_STR(1));
	m = sysdecode__capture_mask(sysdecode__find("renameat"));
	assert_int_equal(m, SYSDECODE_CAP_STR(1) | SYSDECODE_CAP_STR(3));
	m = sysdecode__capture_mask(sysdecode__find("write"));
	assert_int_equal(SYSDECODE_CAP_IN(m), 2);
	m = sysdecode__capture_mask(sysdecode__find("read"));
	assert_int_equal(SYSDECODE_CAP_OUT(m), 2);
	m = sysdecode__capture_mask(sysdecode__find("execve"));
	assert_int_equal(SYSDECODE_CAP_ARGV(m), 2);
	assert_true(m & SYSDECODE_CAP_ENVC);
	/* structures: the BPF side reads the same bits (bpf/strace.h) */
	m = sysdecode__capture_mask(sysdecode__find("newfstatat"));
	assert_int_equal(SYSDECODE_CAP_OSTRUCT(m), 3);
	assert_int_equal(SYSDECODE_CAP_OSIZE(m), 144);
	assert_int_equal(STRACE_CAP_OSTRUCT(m), 3);
	assert_int_equal(STRACE_CAP_OSIZE(m), 144);
	m = sysdecode__capture_mask(sysdecode__find("rt_sigaction"));
	assert_int_equal(STRACE_CAP_ISTRUCT(m), 2);
	assert_int_equal(STRACE_CAP_ISIZE(m), 32);
	assert_int_equal(STRACE_CAP_OSTRUCT(m), 3);
	assert_true(m & STRACE_CAP_AT_ENTRY);
	m = sysdecode__capture_mask(sysdecode__find("connect"));
	assert_int_equal(STRACE_CAP_IN(m), 2);
	assert_true(m & STRACE_CAP_IN_STRUCT);
	m = sysdecode__capture_mask(sysdecode__find("getdents64"));
	assert_true(m & STRACE_CAP_DIRENTS);
	assert_false(m & STRACE_CAP_AT_ENTRY);	/* one event at exit */
	/* every row: an output buffer or structure, not both; sizes fit a copy */
	{
		size_t n;
		const struct sysdecode_info *t = sysdecode__table(&n);

		for (size_t i = 0; i < n; i++) {
			m = sysdecode__capture_mask(&t[i]);
			assert_false(STRACE_CAP_OUT(m) && STRACE_CAP_OSTRUCT(m));
			assert_true(STRACE_CAP_OSIZE(m) <= STRACE_STR_MAX);
			assert_true(STRACE_CAP_ISIZE(m) <= STRACE_STR_MAX);
		}
	}
	m = sysdecode__capture_mask(sysdecode__find("execve"));
	assert_int_equal(m & 0xff, SYSDECODE_CAP_STR(0));
}

#define FLAGS(kind, v, want) do {					\
		struct sbuf b = { 0 };					\
		sysdecode__flags(&b, kind, v);				\
		assert_string_equal(b.p, want);				\
		sbuf__free(&b);						\
	} while (0)

static void test_flags(void **state)
{
	(void)state;
	FLAGS('o', O_RDONLY, "O_RDONLY");
	FLAGS('o', O_WRONLY | O_CREAT | O_TRUNC, "O_WRONLY|O_CREAT|O_TRUNC");
	FLAGS('o', O_RDONLY | O_CLOEXEC, "O_RDONLY|O_CLOEXEC");
	FLAGS('o', O_RDWR | O_DIRECTORY | 0x40000000, "O_RDWR|O_DIRECTORY|0x40000000");
	FLAGS('P', 0, "PROT_NONE");
	FLAGS('P', 3, "PROT_READ|PROT_WRITE");
	FLAGS('M', 0x22, "MAP_PRIVATE|MAP_ANONYMOUS");
	FLAGS('M', 0x812, "MAP_PRIVATE|MAP_FIXED|MAP_DENYWRITE");
	FLAGS('c', 0x1200000 | 17, "CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD");
	FLAGS('A', 0x1000, "AT_EMPTY_PATH");
	FLAGS('A', 0, "0");
	FLAGS('a', 0, "F_OK");
	FLAGS('a', 6, "R_OK|W_OK");
	FLAGS('g', 9, "SIGKILL");
	FLAGS('k', 2, "AF_INET");
	FLAGS('t', 1 | 02000000, "SOCK_STREAM|SOCK_CLOEXEC");
	FLAGS('f', 1030, "F_DUPFD_CLOEXEC");
	FLAGS('W', 1, "WNOHANG");
	FLAGS('m', 0644, "0644");
	FLAGS('e', 2, "SEEK_END");
}

static void test_quote_and_args(void **state)
{
	struct sbuf b = { 0 };
	struct sysdecode_opts o = { .strsize = 4 };
	struct sysdecode_cap cap = { .data = "hello", .len = 5, .valid = true };

	(void)state;
	sysdecode__quote(&b, "a\"b\\\n\t\0" "1\377", 9, 100, false);
	assert_string_equal(b.p, "\"a\\\"b\\\\\\n\\t\\0001\\377\"");
	sbuf__reset(&b);
	sysdecode__quote(&b, "hello", 5, 3, false);
	assert_string_equal(b.p, "\"hel\"...");
	sbuf__reset(&b);
	/* -y paths: strace's escapes, '<' and '>' in octal, no raw control byte */
	sysdecode__quote_fd_path(&b, "/t/a\n+++ x\033[2J<b>\"\\7", 20);
	assert_string_equal(b.p, "</t/a\\n+++ x\\33[2J\\74b\\76\\\"\\\\7>");
	sbuf__reset(&b);
	/* a path is never cut by -s */
	sysdecode__arg(&b, &o, 'p', 0x1000, &cap, 0);
	assert_string_equal(b.p, "\"hello\"");
	sbuf__reset(&b);
	sysdecode__arg(&b, &o, 's', 0x1000, &cap, 0);
	assert_string_equal(b.p, "\"hell\"...");
	sbuf__reset(&b);
	sysdecode__arg(&b, &o, 'D', (unsigned long long)AT_FDCWD, NULL, 0);
	assert_string_equal(b.p, "AT_FDCWD");
	sbuf__reset(&b);
	sysdecode__arg(&b, &o, 'x', 0, NULL, 0);
	assert_string_equal(b.p, "NULL");
	sbuf__reset(&b);
	sysdecode__ret(&b, &o, 'd', -ENOENT);
	assert_string_equal(b.p, " = -1 ENOENT (No such file or directory)");
	sbuf__reset(&b);
	sysdecode__ret(&b, &o, 'n', 0);
	assert_string_equal(b.p, " = ?");
	sbuf__reset(&b);
	sysdecode__ret(&b, &o, 'x', 0x7f0000001000);
	assert_string_equal(b.p, " = 0x7f0000001000");
	sbuf__reset(&b);
	sysdecode__ret(&b, &o, 'd', -512);
	assert_string_equal(b.p, " = ? ERESTARTSYS (To be restarted if SA_RESTART is set)");
	sbuf__free(&b);
}

static void test_suggest(void **state)
{
	const char *out[4];
	int n;

	(void)state;
	n = syscall__suggest("getppidd", out, 4);
	assert_true(n >= 1);
	assert_string_equal(out[0], "getppid");
	n = syscall__suggest("opne", out, 4);
	assert_true(n >= 1);
	n = syscall__suggest("zzzzzzzzzzzzzzzz", out, 4);
	assert_int_equal(n, 0);
}

/*
 * The generated argument table (the kernel's syscall metadata) against the
 * UAPI headers, and the decoder rows against it: no count typed by hand.
 */
static void test_arg_counts(void **state)
{
	/* UAPI calls this kernel has no metadata for: not built (modules,
	 * kexec), not implemented on x86_64, or never taken */
	static const char *const none[] = {
		"_sysctl", "afs_syscall", "create_module", "delete_module", "epoll_ctl_old",
		"epoll_wait_old", "finit_module", "get_kernel_syms", "get_thread_area",
		"getpmsg", "init_module", "kexec_file_load", "kexec_load", "lookup_dcookie",
		"nfsservctl", "putpmsg", "query_module", "security", "set_thread_area",
		"tuxcall", "uselib", "vserver",
	};
	size_t nt;
	const struct sysdecode_info *t = sysdecode__table(&nt);
	int n, missing = 0;

	(void)state;
	sysargs__table(&n);
	assert_true(n > 300);
#define X(name) do {							\
		bool listed = false;					\
		for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++)	\
			listed |= !strcmp(none[i], #name);		\
		if (!sysargs__find(#name) && !listed) {			\
			print_message("no metadata: %s\n", #name);	\
			missing++;					\
		}							\
		if (sysargs__find(#name) && listed)			\
			fail_msg("%s has metadata now: unlist it", #name); \
	} while (0);
	SYSCALLS_X86_64_EACH(X)
#undef X
	assert_int_equal(missing, 0);
	/* counts known from the UAPI prototypes (man 2) */
	assert_int_equal(sysargs__find("set_robust_list")->n, 2);
	assert_int_equal(sysargs__find("rseq")->n, 4);
	assert_int_equal(sysargs__find("accept4")->n, 4);
	assert_int_equal(sysargs__find("read")->n, 3);
	assert_int_equal(sysargs__find("mmap")->n, 6);
	assert_int_equal(sysargs__find("clone")->n, 5);
	assert_int_equal(sysargs__find("exit_group")->n, 1);
	assert_int_equal(sysargs__find("getppid")->n, 0);
	assert_int_equal(sysargs__find("stat")->n, 2);		/* the kernel's newstat */
	assert_int_equal(sysargs__shown(sysargs__find("preadv")), 4);	/* pos_l, pos_h: one */
	assert_string_equal(sysargs__find("rseq")->args[3], "u32 sig");
	/* every decoder row shows the kernel's number of arguments */
	for (size_t i = 0; i < nt; i++) {
		const struct sysargs *a = sysargs__find(t[i].name);

		if (!a)
			continue;	/* the ones listed above */
		if ((int)strlen(t[i].args) != sysargs__shown(a))
			fail_msg("%s: %zu arguments in the decoder, %d in the kernel",
				 t[i].name, strlen(t[i].args), sysargs__shown(a));
	}
	/* calls without a row: the metadata's count, kinds from the types */
	assert_string_equal(sysdecode__find("set_robust_list")->args, "xu");
	assert_string_equal(sysdecode__find("rseq")->args, "xxix");
	assert_string_equal(sysdecode__find("cachestat")->args, "dxxx");
	assert_string_equal(sysdecode__find("fchmodat2")->args, "Dpmx");
	assert_null(sysdecode__find("no_such_call"));
}

/* Structures and constants printed as strace 6.1 prints them (lines taken from its traces). */
static void test_structs(void **state)
{
	struct sbuf b = { 0 };
	struct sysdecode_opts o = { .strsize = 32 };
	char st[144] = { 0 }, sa[32] = { 0 }, act[32] = { 0 }, rl[16], ws[4];
	struct sysdecode_cap cap = { .valid = true };
	unsigned int mode = 0100644, status = 0x100;
	unsigned long long size = 45639, v;

	(void)state;
#define ARG(kind, buf, n) do {						\
		sbuf__reset(&b);					\
		cap.data = (buf);					\
		cap.len = (n);						\
		sysdecode__arg(&b, &o, (kind), 0x7ffd0000, &cap, (n));	\
	} while (0)
	memcpy(st + 24, &mode, 4);
	memcpy(st + 48, &size, 8);
	ARG('S', st, sizeof(st));
	assert_string_equal(b.p, "{st_mode=S_IFREG|0644, st_size=45639, ...}");
	mode = 020620;
	v = 0x8801;	/* makedev(0x88, 0x1) */
	memcpy(st + 24, &mode, 4);
	memcpy(st + 40, &v, 8);
	ARG('S', st, sizeof(st));
	assert_string_equal(b.p, "{st_mode=S_IFCHR|0620, st_rdev=makedev(0x88, 0x1), ...}");
	/* too short a copy: the address */
	ARG('S', st, 8);
	assert_string_equal(b.p, "0x7ffd0000");

	sa[0] = AF_INET; sa[2] = 0x1f; sa[3] = 0x90;	/* port 8080 */
	sa[4] = 127; sa[7] = 1;
	ARG('G', sa, 16);
	assert_string_equal(b.p, "{sa_family=AF_INET, sin_port=htons(8080), sin_addr=inet_addr(\"127.0.0.1\")}");
	memset(sa, 0, sizeof(sa));
	sa[0] = AF_UNIX;
	strcpy(sa + 2, "/var/run/nscd/socket");
	ARG('G', sa, 23);
	assert_string_equal(b.p, "{sa_family=AF_UNIX, sun_path=\"/var/run/nscd/socket\"}");

	v = 1;			/* SIG_IGN */
	memcpy(act, &v, 8);
	v = 0x0c000000;		/* SA_RESTORER|SA_ONSTACK */
	memcpy(act + 8, &v, 8);
	v = 0x7f0000001000;
	memcpy(act + 16, &v, 8);
	ARG('Q', act, 32);
	assert_string_equal(b.p, "{sa_handler=SIG_IGN, sa_mask=[], sa_flags=SA_RESTORER|SA_ONSTACK, sa_restorer=0x7f0000001000}");
	v = ~0ULL & ~(3ULL << 31);	/* glibc's: all but 32 and 33 */
	ARG('z', (char *)&v, 8);
	assert_string_equal(b.p, "~[RTMIN RT_1]");
	v = (1ULL << 1) | (1ULL << 14);
	ARG('Z', (char *)&v, 8);
	assert_string_equal(b.p, "[INT TERM]");

	v = 8192 * 1024;
	memcpy(rl, &v, 8);
	v = ~0ULL;
	memcpy(rl + 8, &v, 8);
	ARG('L', rl, 16);
	assert_string_equal(b.p, "{rlim_cur=8192*1024, rlim_max=RLIM64_INFINITY}");
	memcpy(ws, &status, 4);
	ARG('Y', ws, 4);
	assert_string_equal(b.p, "[{WIFEXITED(s) && WEXITSTATUS(s) == 1}]");
	status = 9;
	memcpy(ws, &status, 4);
	ARG('Y', ws, 4);
	assert_string_equal(b.p, "[{WIFSIGNALED(s) && WTERMSIG(s) == SIGKILL}]");
#undef ARG

	sbuf__reset(&b);
	sysdecode__flags(&b, 'F', 0x81);
	assert_string_equal(b.p, "FUTEX_WAKE_PRIVATE");
	sbuf__reset(&b);
	sysdecode__flags(&b, 'F', 0x189);
	assert_string_equal(b.p, "FUTEX_WAIT_BITSET_PRIVATE|FUTEX_CLOCK_REALTIME");
	sbuf__reset(&b);
	sysdecode__flags(&b, 'b', 0x1002);
	assert_string_equal(b.p, "ARCH_SET_FS");
	sbuf__reset(&b);
	sysdecode__flags(&b, 'I', 0x5401);
	assert_string_equal(b.p, "TCGETS");
	sbuf__reset(&b);
	sysdecode__flags(&b, 'T', 0x900);
	assert_string_equal(b.p, "AT_STATX_SYNC_AS_STAT|AT_SYMLINK_NOFOLLOW|AT_NO_AUTOMOUNT");
	sbuf__reset(&b);
	sysdecode__flags(&b, 't', 02004001);
	assert_string_equal(b.p, "SOCK_STREAM|SOCK_CLOEXEC|SOCK_NONBLOCK");
	sbuf__reset(&b);
	sysdecode__flags(&b, 'o', 02204000);
	assert_string_equal(b.p, "O_RDONLY|O_NONBLOCK|O_CLOEXEC|O_DIRECTORY");
	sbuf__reset(&b);
	sysdecode__flags(&b, 'g', 64);
	assert_string_equal(b.p, "SIGRT_32");

	/* -X raw and verbose */
	sysdecode__style = SYSDECODE_RAW;
	sbuf__reset(&b);
	sysdecode__flags(&b, 'o', 02000000);
	assert_string_equal(b.p, "0x80000");
	sysdecode__style = SYSDECODE_VERBOSE;
	sbuf__reset(&b);
	sysdecode__flags(&b, 'o', 02000000);
	assert_string_equal(b.p, "0x80000 /* O_RDONLY|O_CLOEXEC */");
	sysdecode__style = SYSDECODE_ABBREV;
	sbuf__free(&b);
}


#define ARG_STRUCT(kind, buf, n) do {					\
		sbuf__reset(&b);					\
		cap.data = (buf);					\
		cap.len = (n);						\
		sysdecode__arg(&b, &o, (kind), 0x7ffd0000, &cap, 0);	\
	} while (0)

/* iovec blocks, msghdr, epoll_event, termios, winsize, clone_args: as strace prints them */
static void test_struct_arrays(void **state)
{
	struct sbuf b = { 0 };
	struct sysdecode_opts o = { .strsize = 32 };
	struct sysdecode_cap cap = { .valid = true };
	char blk[STRACE_STR_MAX] = { 0 }, ev[24] = { 0 }, tio[36] = { 0 }, ca[88] = { 0 };
	const char *long_part = "vectored world, this part is longer than thirty-two bytes\n";
	unsigned int lens[3] = { 6, 59, 0 }, u;
	unsigned long long v;

	(void)state;
	/* writev: three elements, the data of each in its slot (strace.h) */
	memcpy(blk + STRACE_IOV_LENS, lens, sizeof(lens));
	memcpy(blk + STRACE_IOV_DATA(0), "hello ", 6);
	memcpy(blk + STRACE_IOV_DATA(0) + STRACE_IOV_SLOT(3, 0), long_part, STRACE_IOV_SLOT(3, 0));
	sysdecode__iov(&b, &o, blk, sizeof(blk), 3, -1);
	assert_string_equal(b.p, "[{iov_base=\"hello \", iov_len=6}, "
			    "{iov_base=\"vectored world, this part is lon\"..., iov_len=59}, "
			    "{iov_base=\"\", iov_len=0}]");
	/* readv: 10 bytes returned, the rest of the elements untouched */
	sbuf__reset(&b);
	sysdecode__iov(&b, &o, blk, sizeof(blk), 3, 10);
	assert_string_equal(b.p, "[{iov_base=\"hello \", iov_len=6}, {iov_base=\"vect\", iov_len=59}, "
			    "{iov_base=\"\", iov_len=0}]");
	/* -s 4 */
	sbuf__reset(&b);
	o.strsize = 4;
	sysdecode__iov(&b, &o, blk, sizeof(blk), 1, -1);
	assert_string_equal(b.p, "[{iov_base=\"hell\"..., iov_len=6}]");
	o.strsize = 32;
	/* more elements than the block holds data for */
	sbuf__reset(&b);
	sysdecode__iov(&b, &o, blk, sizeof(blk), 6, -1);
	assert_string_equal(b.p + b.len - 6, ", ...]");

	/* a msghdr: its iovecs from the same block, its data after msg_name */
	memset(blk, 0, sizeof(blk));
	v = 0x7ffd1000;
	memcpy(blk + 16, &v, 8);	/* msg_iov */
	v = 2;
	memcpy(blk + 24, &v, 8);	/* msg_iovlen */
	u = 0x20;			/* MSG_TRUNC */
	memcpy(blk + 48, &u, 4);
	lens[0] = 6;
	lens[1] = 3;
	memcpy(blk + STRACE_IOV_LENS, lens, 8);
	memcpy(blk + STRACE_IOV_DATA(1), "hello ", 6);
	memcpy(blk + STRACE_IOV_DATA(1) + STRACE_IOV_SLOT(2, 1), "abc", 3);
	sbuf__reset(&b);
	sysdecode__msghdr(&b, &o, blk, sizeof(blk), 9, -1);
	assert_string_equal(b.p, "{msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base=\"hello \", iov_len=6}, "
			    "{iov_base=\"abc\", iov_len=3}], msg_iovlen=2, msg_controllen=0, "
			    "msg_flags=MSG_TRUNC}");
	/* with a name: netlink's, copied after the lengths */
	v = 0x7ffd2000;
	memcpy(blk, &v, 8);
	u = 12;
	memcpy(blk + 8, &u, 4);
	blk[STRACE_IOV_NAME] = AF_NETLINK;
	sbuf__reset(&b);
	sysdecode__msghdr(&b, &o, blk, sizeof(blk), 9, -1);
	assert_true(!strncmp(b.p, "{msg_name={sa_family=AF_NETLINK, nl_pid=0, nl_groups=00000000}, "
			     "msg_namelen=12, msg_iov=[{iov_base=\"hello \"", 103));
	/* recvmsg: the name's length as given, and as the call left it */
	sbuf__reset(&b);
	sysdecode__msghdr(&b, &o, blk, sizeof(blk), 9, 128);
	assert_non_null(strstr(b.p, ", msg_namelen=128 => 12, msg_iov="));
	sbuf__reset(&b);
	sysdecode__vres(&b, 110, 9);
	assert_string_equal(b.p, "[110 => 9]");
	sbuf__reset(&b);
	sysdecode__vres(&b, 4, 4);
	assert_string_equal(b.p, "[4]");
	sbuf__reset(&b);
	sysdecode__vres(&b, -1, 16);
	assert_string_equal(b.p, "[16]");
	/* a name longer than copied: its address */
	u = 110;
	memcpy(blk + 8, &u, 4);
	sbuf__reset(&b);
	sysdecode__msghdr(&b, &o, blk, sizeof(blk), 9, -1);
	assert_true(!strncmp(b.p, "{msg_name=0x7ffd2000, msg_namelen=110, ", 39));

	/* epoll_event: packed, 12 bytes */
	u = 0x80000001;			/* EPOLLIN|EPOLLET */
	memcpy(ev, &u, 4);
	v = 0x100001234ULL;
	memcpy(ev + 4, &v, 8);
	u = 4;				/* EPOLLOUT */
	memcpy(ev + 12, &u, 4);
	ARG_STRUCT('%', ev, 12);
	assert_string_equal(b.p, "{events=EPOLLIN|EPOLLET, data={u32=4660, u64=4294971956}}");
	sbuf__reset(&b);
	sysdecode__epoll_events(&b, &o, ev, 24, 2);
	assert_string_equal(b.p, "[{events=EPOLLIN|EPOLLET, data={u32=4660, u64=4294971956}}, "
			    "{events=EPOLLOUT, data={u32=0, u64=0}}]");
	sbuf__reset(&b);
	sysdecode__epoll_events(&b, &o, ev, 12, 3);	/* more than copied */
	assert_string_equal(b.p, "[{events=EPOLLIN|EPOLLET, data={u32=4660, u64=4294971956}}, ...]");
	sbuf__reset(&b);
	sysdecode__epoll_events(&b, &o, ev, 0, 0);
	assert_string_equal(b.p, "[]");
	/* getrandom's bytes: all in hex, cut at -s */
	sbuf__reset(&b);
	sysdecode__quote_hex(&b, "O,[\n\0", 5, 4, false);
	assert_string_equal(b.p, "\"\\x4f\\x2c\\x5b\\x0a\"...");
	/* -s 0: strace shows no element of an array */
	sbuf__reset(&b);
	o.strsize = 0;
	sysdecode__epoll_events(&b, &o, ev, 24, 2);
	assert_string_equal(b.p, "[...]");
	sbuf__reset(&b);
	sysdecode__iov(&b, &o, blk, sizeof(blk), 2, -1);
	assert_string_equal(b.p, "[...]");
	o.strsize = 32;

	/* termios of a new pseudo-terminal; c_line and c_cc with -v */
	u = 02400;		/* ICRNL|IXON */
	memcpy(tio, &u, 4);
	u = 05;			/* OPOST|ONLCR */
	memcpy(tio + 4, &u, 4);
	u = 0277;		/* B38400|CS8|CREAD */
	memcpy(tio + 8, &u, 4);
	u = 0105073;		/* ISIG|ICANON|ECHO|ECHOE|ECHOK|IEXTEN|ECHOCTL|ECHOKE */
	memcpy(tio + 12, &u, 4);
	tio[17] = 3;		/* VINTR */
	tio[17 + 6] = 1;	/* VMIN */
	ARG_STRUCT('`', tio, 36);
	assert_string_equal(b.p, "{c_iflag=ICRNL|IXON, c_oflag=NL0|CR0|TAB0|BS0|VT0|FF0|OPOST|ONLCR, "
			    "c_cflag=B38400|CS8|CREAD, c_lflag=ISIG|ICANON|ECHO|ECHOE|ECHOK|IEXTEN|"
			    "ECHOCTL|ECHOKE, ...}");
	sysdecode__verbose = true;
	ARG_STRUCT('`', tio, 36);
	sysdecode__verbose = false;
	assert_non_null(strstr(b.p, ", c_line=N_TTY, c_cc=[[VINTR]=0x3, [VQUIT]=0, "));
	assert_non_null(strstr(b.p, "[VMIN]=0x1, "));
	assert_non_null(strstr(b.p, "[VEOL2]=0, [17]=0, [18]=0]}"));
	/* a short copy: the address */
	ARG_STRUCT('`', tio, 20);
	assert_string_equal(b.p, "0x7ffd0000");

	u = 80 << 16 | 24;
	memcpy(ev, &u, 4);
	memset(ev + 4, 0, 4);
	ARG_STRUCT('\'', ev, 8);
	assert_string_equal(b.p, "{ws_row=24, ws_col=80, ws_xpixel=0, ws_ypixel=0}");

	/* clone3 of a thread by glibc */
	v = 0x3d0f00;
	memcpy(ca, &v, 8);
	v = 0x7f0000000990;
	memcpy(ca + 16, &v, 8);
	memcpy(ca + 24, &v, 8);
	v = 0x7f0000100000;
	memcpy(ca + 40, &v, 8);
	v = 0x800300;
	memcpy(ca + 48, &v, 8);
	v = 0x7f00000006c0;
	memcpy(ca + 56, &v, 8);
	ARG_STRUCT(';', ca, 88);
	assert_string_equal(b.p, "{flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|"
			    "CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, "
			    "child_tid=0x7f0000000990, parent_tid=0x7f0000000990, exit_signal=0, "
			    "stack=0x7f0000100000, stack_size=0x800300, tls=0x7f00000006c0}");
	memset(ca, 0, sizeof(ca));
	ca[32] = SIGCHLD;
	ARG_STRUCT(';', ca, 88);
	assert_string_equal(b.p, "{flags=0, exit_signal=SIGCHLD, stack=NULL, stack_size=0}");
	sbuf__free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_matches_headers),
		cmocka_unit_test(test_ia32),
		cmocka_unit_test(test_decoder_rows_are_syscalls),
		cmocka_unit_test(test_capture_mask),
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_quote_and_args),
		cmocka_unit_test(test_suggest),
		cmocka_unit_test(test_arg_counts),
		cmocka_unit_test(test_structs),
		cmocka_unit_test(test_struct_arrays),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
