// SPDX-License-Identifier: GPL-2.0
/*
 * tcpflow: a TCP echo server and a client of known behaviour, for the
 * retransmit tests (run each in its own network namespace).
 *   tcpflow -S -a ADDR -p PORT [-n conns]
 *	listen on ADDR:PORT, print "ready", echo each connection until EOF,
 *	exit after conns connections (default 1).
 *   tcpflow -a ADDR -p PORT [-g go_fifo] [-C] [-m msgs] [-s size]
 *	connect (after the go FIFO with -C, else before it), send msgs
 *	messages of size bytes one at a time, each waiting for its echo,
 *	close; print one JSON line with the local port and timings.
 * ADDR is IPv4 or IPv6.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <sys/socket.h>
#include "wl.h"

static int parse_addr(const char *a, int port, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *s4 = (void *)ss;
	struct sockaddr_in6 *s6 = (void *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, a, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		*len = sizeof(*s4);
		return AF_INET;
	}
	if (inet_pton(AF_INET6, a, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		*len = sizeof(*s6);
		return AF_INET6;
	}
	fprintf(stderr, "tcpflow: bad address %s\n", a);
	exit(2);
}

static int serve(int family, struct sockaddr_storage *ss, socklen_t len, int conns)
{
	int one = 1, l, c, i;
	char buf[65536];
	ssize_t n;

	l = socket(family, SOCK_STREAM, 0);
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (l < 0 || bind(l, (void *)ss, len) || listen(l, 16)) {
		perror("tcpflow: listen");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	for (i = 0; i < conns; i++) {
		c = accept(l, NULL, NULL);
		if (c < 0) {
			perror("tcpflow: accept");
			return 1;
		}
		while ((n = read(c, buf, sizeof(buf))) > 0)
			if (write(c, buf, n) != n)
				break;
		close(c);
	}
	return 0;
}

static int read_full(int fd, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = read(fd, buf + got, len - got);
		if (n <= 0)
			return -1;
		got += n;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *go = NULL;
	int port = 0, conns = 1, msgs = 1, size = 100, opt, family, fd, i;
	bool server = false, connect_after_go = false;
	struct sockaddr_storage ss, local;
	unsigned long long t0, t1, t2;
	socklen_t len, llen = sizeof(local);
	char *buf, *echo;

	while ((opt = getopt(argc, argv, "Sa:p:n:g:Cm:s:")) != -1) {
		switch (opt) {
		case 'S': server = true; break;
		case 'a': addr = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'n': conns = atoi(optarg); break;
		case 'g': go = optarg; break;
		case 'C': connect_after_go = true; break;
		case 'm': msgs = atoi(optarg); break;
		case 's': size = atoi(optarg); break;
		default: return 2;
		}
	}
	if (!addr || port <= 0 || size <= 0 || size > 65536) {
		fprintf(stderr, "usage: tcpflow [-S] -a ADDR -p PORT [-n N] [-g FIFO] [-C] [-m N] [-s SIZE]\n");
		return 2;
	}
	family = parse_addr(addr, port, &ss, &len);
	if (server)
		return serve(family, &ss, len, conns);

	buf = malloc(size);
	echo = malloc(size);
	if (!buf || !echo)
		return 1;
	memset(buf, 'x', size);
	if (connect_after_go)
		wl_wait_go(go);
	t0 = wl_now_ns();
	fd = socket(family, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (void *)&ss, len)) {
		perror("tcpflow: connect");
		return 1;
	}
	t1 = wl_now_ns();
	getsockname(fd, (void *)&local, &llen);
	if (!connect_after_go)
		wl_wait_go(go);
	t2 = wl_now_ns();
	for (i = 0; i < msgs; i++) {
		if (write(fd, buf, size) != size || read_full(fd, echo, size)) {
			perror("tcpflow: echo");
			return 1;
		}
	}
	close(fd);
	printf("{\"pid\":%d,\"lport\":%u,\"msgs\":%d,\"size\":%d,\"connect_ms\":%.3f,"
	       "\"echo_ms\":%.3f}\n", getpid(),
	       ntohs(family == AF_INET ? ((struct sockaddr_in *)&local)->sin_port :
				       ((struct sockaddr_in6 *)&local)->sin6_port),
	       msgs, size, (t1 - t0) / 1e6, (wl_now_ns() - t2) / 1e6);
	return 0;
}
