// SPDX-License-Identifier: GPL-2.0
/*
 * structs: one of each system call whose arguments strace prints as
 * structures or arrays of them, with known contents, for the
 * differential test against strace:
 *   writev/readv/pwritev/preadv on a file in DIR (iovec, with a part
 *   longer than -s), epoll_ctl/epoll_wait on a pipe (epoll_event),
 *   sendmsg/recvmsg over a UNIX socket pair (msghdr), getsockopt,
 *   sendto/recvfrom between two bound UNIX datagram sockets in the
 *   current directory (the source address at exit),
 *   a thread (clone3), TCGETS/TCSETS/TIOCGWINSZ on a pseudo-terminal, and
 *   clock_getres/clock_gettime by their system calls (glibc's go to the
 *   vDSO where the clock source allows), and newfstatat(fd, "",
 *   AT_EMPTY_PATH) with "" in a page no one touched yet (a tracer cannot
 *   read it at the call's entry).
 *   structs DIR
 */
#include <pthread.h>
#include <termios.h>
#include <stddef.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include "wl.h"

/*
 * The thread outlives pthread_join()'s first look, so the join always
 * waits (futex): a thread that had already ended made a trace one line
 * shorter, and the differential test's share of calls moved by run.
 */
static void *thread(void *arg)
{
	usleep(50000);
	return arg;
}

static void check(long r, const char *what)
{
	if (r < 0) {
		perror(what);
		exit(1);
	}
}

static void iov(const char *dir)
{
	char path[4096], a[8], b[64];
	struct iovec w[3] = {
		{ "hello ", 6 },
		{ "vectored world, this part is longer than thirty-two bytes\n", 59 },
		{ "", 0 },
	};
	struct iovec r[2] = { { a, sizeof(a) }, { b, sizeof(b) } };
	int fd;

	snprintf(path, sizeof(path), "%s/iov", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	check(fd, path);
	check(writev(fd, w, 3), "writev");
	check(pwritev(fd, w, 2, 100), "pwritev");
	check(lseek(fd, 0, SEEK_SET), "lseek");
	check(readv(fd, r, 2), "readv");
	check(preadv(fd, r, 2, 100), "preadv");
	close(fd);
}

static void epoll(void)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET, .data.u64 = 0x1234 }, out[4];
	int p[2], ep;

	check(pipe(p), "pipe");
	ep = epoll_create1(EPOLL_CLOEXEC);
	check(ep, "epoll_create1");
	check(epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev), "epoll_ctl");
	check(write(p[1], "x", 1), "write");
	check(epoll_wait(ep, out, 4, 1000), "epoll_wait");
	check(epoll_pwait(ep, out, 4, 0, NULL), "epoll_pwait");
	check(epoll_ctl(ep, EPOLL_CTL_DEL, p[0], NULL), "epoll_ctl");
	close(ep);
	close(p[0]);
	close(p[1]);
}

static void msg(void)
{
	char a[16], b[32];
	struct iovec w[2] = { { "message ", 8 }, { "in two parts", 12 } };
	struct iovec r[2] = { { a, sizeof(a) }, { b, sizeof(b) } };
	struct msghdr m = { .msg_iov = w, .msg_iovlen = 2 };
	int sv[2];

	check(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), "socketpair");
	check(sendmsg(sv[0], &m, 0), "sendmsg");
	m.msg_iov = r;
	check(recvmsg(sv[1], &m, 0), "recvmsg");
	close(sv[0]);
	close(sv[1]);
}

static void sock(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX, .sun_path = "u.sock" };
	struct sockaddr_un b = { .sun_family = AF_UNIX, .sun_path = "v.sock" };
	struct sockaddr_un from;
	socklen_t alen = offsetof(struct sockaddr_un, sun_path) + sizeof("u.sock");
	socklen_t len = sizeof(a), flen = sizeof(from);
	int u, v, val = 0;
	char buf[64];

	unlink(a.sun_path);
	unlink(b.sun_path);
	u = socket(AF_UNIX, SOCK_DGRAM, 0);
	check(u, "socket");
	check(bind(u, (struct sockaddr *)&a, alen), "bind");
	check(getsockname(u, (struct sockaddr *)&a, &len), "getsockname");
	v = socket(AF_UNIX, SOCK_DGRAM, 0);
	check(v, "socket");
	check(bind(v, (struct sockaddr *)&b, alen), "bind");
	len = sizeof(val);
	check(getsockopt(v, SOL_SOCKET, SO_TYPE, &val, &len), "getsockopt");
	check(getsockopt(v, SOL_SOCKET, SO_ERROR, &val, &len), "getsockopt");
	len = 16;	/* more than the value: the call says 4 */
	check(getsockopt(v, SOL_SOCKET, SO_TYPE, &val, &len), "getsockopt");
	check(sendto(v, "datagram", 8, 0, (struct sockaddr *)&a, alen), "sendto");
	check(recvfrom(u, buf, sizeof(buf), 0, (struct sockaddr *)&from, &flen), "recvfrom");
	/* the same with msghdr: a named datagram, its source name received */
	check(sendmsg(v, &(struct msghdr){ .msg_name = &a, .msg_namelen = alen,
			.msg_iov = &(struct iovec){ "named", 5 }, .msg_iovlen = 1 }, 0), "sendmsg");
	check(recvmsg(u, &(struct msghdr){ .msg_name = &from, .msg_namelen = sizeof(from),
			.msg_iov = &(struct iovec){ buf, sizeof(buf) }, .msg_iovlen = 1 }, 0), "recvmsg");
	close(u);
	close(v);
	unlink(a.sun_path);
	unlink(b.sun_path);
}

static void tty(void)
{
	struct termios t;
	struct winsize ws = { .ws_row = 24, .ws_col = 80 };
	int m, s;

	m = posix_openpt(O_RDWR | O_NOCTTY);
	check(m, "posix_openpt");
	check(grantpt(m) | unlockpt(m), "unlockpt");
	s = open(ptsname(m), O_RDWR | O_NOCTTY);
	check(s, "ptsname");
	check(ioctl(s, TIOCSWINSZ, &ws), "TIOCSWINSZ");
	check(ioctl(s, TIOCGWINSZ, &ws), "TIOCGWINSZ");
	check(ioctl(s, TCGETS, &t), "TCGETS");
	t.c_lflag &= ~ECHO;
	check(ioctl(s, TCSETS, &t), "TCSETS");
	close(s);
	close(m);
}

static void clocks(void)
{
	struct timespec ts;

	check(syscall(SYS_clock_getres, CLOCK_MONOTONIC, &ts), "clock_getres");
	check(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts), "clock_gettime");
}

static void untouched(void)
{
	char z[8] = "";
	struct stat st;
	int fd = memfd_create("structs", MFD_CLOEXEC);
	const char *p;

	check(fd, "memfd_create");
	check(write(fd, z, sizeof(z)) == sizeof(z) ? 0 : -1, "write");
	p = mmap(NULL, sizeof(z), PROT_READ, MAP_SHARED, fd, 0);
	check(p == MAP_FAILED ? -1 : 0, "mmap");
	check(syscall(SYS_newfstatat, fd, p, &st, AT_EMPTY_PATH), "newfstatat");
	close(fd);
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc != 2) {
		fprintf(stderr, "usage: structs DIR\n");
		return 2;
	}
	iov(argv[1]);
	epoll();
	msg();
	sock();
	tty();
	clocks();
	untouched();
	check(-pthread_create(&t, NULL, thread, NULL), "pthread_create");
	pthread_join(t, NULL);
	return 0;
}
