// SPDX-License-Identifier: GPL-2.0
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "run/loop.h"
#include "run/msg.h"
#include "serve/serve.h"

#define LINGER_MS	1000	/* reading what a client still sends after our answer */
#define MAX_ROUTES	8

enum conn_state { C_FREE, C_READ, C_DEFER, C_WRITE, C_LINGER };

struct serve_req {
	char path[256];
	char query[512];
	bool head;
	int retry_after_s;	/* a Retry-After header when > 0 */
	struct sbuf body;
	serve_fn later;
	void *data;
	void (*free_data)(void *data);
};

struct conn {
	int fd;
	enum conn_state st;
	unsigned long long seq;	/* accept order: the smallest has waited longest */
	long long deadline;	/* of the current state (ms) */
	char in[SERVE_MAX_REQUEST + 1];
	size_t in_len;
	struct sbuf out;
	size_t out_off;
	struct serve_req req;
};

static struct {
	const char *spec;
	int family;
	struct sockaddr_storage addr;
	socklen_t addrlen;
	char url[96];
	int lfd;
	struct conn conns[SERVE_MAX_CONNS];
	struct { const char *path, *help; serve_fn fn; void *ctx; } routes[MAX_ROUTES];
	int nroutes;
	unsigned long long accepted;	/* connections so far: the next one's seq */
} srv = { .lfd = -1 };

static void bad_spec(const char *spec, const char *why)
{
	msg__usage("invalid --serve '%s': %s", spec, why);
}

void serve__parse(const char *spec)
{
	char host[64] = "127.0.0.1";
	const char *port = spec, *colon;
	struct sockaddr_in *in4 = (struct sockaddr_in *)&srv.addr;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&srv.addr;
	long long p;
	char *end;

	if (spec[0] == '[') {
		const char *close = strchr(spec, ']');

		if (!close || close[1] != ':' || close - spec - 1 >= (long)sizeof(host) || close == spec + 1)
			bad_spec(spec, "give [IPv6-ADDRESS]:PORT");
		snprintf(host, sizeof(host), "%.*s", (int)(close - spec - 1), spec + 1);
		port = close + 2;
	} else if ((colon = strrchr(spec, ':'))) {
		if (colon - spec >= (long)sizeof(host) || colon == spec)
			bad_spec(spec, "give [HOST:]PORT");
		snprintf(host, sizeof(host), "%.*s", (int)(colon - spec), spec);
		port = colon + 1;
	}
	errno = 0;
	p = strtoll(port, &end, 10);
	if (!*port || *end || errno || p < 0 || p > 65535)
		bad_spec(spec, "PORT must be a number from 0 to 65535");
	memset(&srv.addr, 0, sizeof(srv.addr));
	if (!strcmp(host, "localhost"))
		strcpy(host, "127.0.0.1");
	if (inet_pton(AF_INET, host, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons(p);
		srv.addrlen = sizeof(*in4);
	} else if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
		if (spec[0] != '[')
			bad_spec(spec, "write an IPv6 address in brackets: [ADDRESS]:PORT");
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(p);
		srv.addrlen = sizeof(*in6);
	} else {
		bad_spec(spec, "HOST must be a numeric IPv4 address or a bracketed IPv6 address");
	}
	srv.family = srv.addr.ss_family;
	srv.spec = spec;
}

const char *serve__spec(void)
{
	return srv.spec;
}

const char *serve__url(void)
{
	return srv.url;
}

int serve__open(void)
{
	char host[INET6_ADDRSTRLEN];
	int one = 1, err;

	srv.lfd = socket(srv.family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (srv.lfd < 0) {
		err = -errno;
		msg__fail(err, "open a socket for --serve %s", srv.spec);
		return err;
	}
	setsockopt(srv.lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (srv.family == AF_INET6)
		setsockopt(srv.lfd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(srv.lfd, (struct sockaddr *)&srv.addr, srv.addrlen) ||
	    /*
	     * The kernel's queue, not ours: connections that come while the
	     * loop is busy (a report, a burst of clients) wait there to be
	     * accepted. A queue of SERVE_MAX_CONNS dropped the 18th one's
	     * handshake, and its client tried again only a second later.
	     */
	    listen(srv.lfd, SOMAXCONN)) {
		err = -errno;
		msg__fail(err, "listen on %s", srv.spec);
		close(srv.lfd);
		srv.lfd = -1;
		return err;
	}
	srv.addrlen = sizeof(srv.addr);
	getsockname(srv.lfd, (struct sockaddr *)&srv.addr, &srv.addrlen);
	if (srv.family == AF_INET6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&srv.addr;

		inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof(host));
		snprintf(srv.url, sizeof(srv.url), "http://[%s]:%u", host, ntohs(a->sin6_port));
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&srv.addr;

		inet_ntop(AF_INET, &a->sin_addr, host, sizeof(host));
		snprintf(srv.url, sizeof(srv.url), "http://%s:%u", host, ntohs(a->sin_port));
	}
	return 0;
}

void serve__route(const char *path, const char *help, serve_fn fn, void *ctx)
{
	if (srv.nroutes == MAX_ROUTES)
		return;
	srv.routes[srv.nroutes].path = path;
	srv.routes[srv.nroutes].help = help;
	srv.routes[srv.nroutes].fn = fn;
	srv.routes[srv.nroutes].ctx = ctx;
	srv.nroutes++;
}

static void conn_close(struct conn *c)
{
	if (c->st == C_FREE)
		return;
	if (c->req.free_data)
		c->req.free_data(c->req.data);
	close(c->fd);
	sbuf__free(&c->out);
	sbuf__free(&c->req.body);
	memset(&c->req, 0, sizeof(c->req));
	c->st = C_FREE;
	c->fd = -1;
}

static const char *status_text(int status)
{
	switch (status) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 408: return "Request Timeout";
	case 503: return "Service Unavailable";
	default: return "Internal Server Error";
	}
}

static void conn_flush(struct conn *c);

static struct conn *req_conn(struct serve_req *r)
{
	return (struct conn *)((char *)r - offsetof(struct conn, req));
}

struct sbuf *serve__body(struct serve_req *r)
{
	return &r->body;
}

void serve__reply(struct serve_req *r, int status, const char *content_type)
{
	struct conn *c = req_conn(r);

	if (r->body.err) {
		sbuf__reset(&r->body);
		sbuf__printf(&r->body, "out of memory\n");
		status = 500;
		content_type = "text/plain; charset=utf-8";
	}
	sbuf__reset(&c->out);
	sbuf__printf(&c->out, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n",
		     status, status_text(status), content_type, r->body.len);
	if (status == 405)
		sbuf__printf(&c->out, "Allow: GET, HEAD\r\n");
	if (r->retry_after_s > 0)
		sbuf__printf(&c->out, "Retry-After: %d\r\n", r->retry_after_s);
	sbuf__printf(&c->out, "Connection: close\r\n\r\n");
	if (!r->head)
		sbuf__putn(&c->out, r->body.p ? r->body.p : "", r->body.len);
	if (c->out.err) {
		/* not even the answer fits: the client sees the connection close */
		conn_close(c);
		return;
	}
	c->out_off = 0;
	c->st = C_WRITE;
	c->deadline = loop__now_ms() + SERVE_DEADLINE_MS;
	conn_flush(c);
}

void serve__defer(struct serve_req *r, long long delay_ms, serve_fn later, void *data,
		  void (*free_data)(void *data))
{
	struct conn *c = req_conn(r);
	long long now = loop__now_ms(), first = LLONG_MAX;
	int waiting = 0;

	for (int i = 0; i < SERVE_MAX_CONNS; i++) {
		if (srv.conns[i].st == C_DEFER) {
			waiting++;
			if (srv.conns[i].deadline < first)
				first = srv.conns[i].deadline;
		}
	}
	if (waiting >= SERVE_MAX_DEFERRED) {
		/* the rest of the slots stay for scrapes: no room to wait, as a full server says */
		if (free_data)
			free_data(data);
		r->retry_after_s = first > now ? (int)((first - now + 999) / 1000) : 1;
		sbuf__reset(&r->body);
		sbuf__printf(&r->body, "%d requests wait for a deferred answer, the most at once: "
			     "retry after %d s\n", waiting, r->retry_after_s);
		serve__reply(r, 503, "text/plain; charset=utf-8");
		return;
	}
	r->later = later;
	r->data = data;
	r->free_data = free_data;
	c->st = C_DEFER;
	c->deadline = loop__now_ms() + delay_ms;
}

static void reply_text(struct serve_req *r, int status, const char *text)
{
	sbuf__reset(&r->body);
	sbuf__printf(&r->body, "%s\n", text);
	serve__reply(r, status, "text/plain; charset=utf-8");
}

static int hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

const char *serve__query(struct serve_req *r, const char *key)
{
	static char val[sizeof(r->query)];
	size_t klen = strlen(key);
	const char *p = r->query;

	while (*p) {
		const char *amp = strchr(p, '&'), *end = amp ? amp : p + strlen(p);

		if ((size_t)(end - p) > klen && !strncmp(p, key, klen) && p[klen] == '=') {
			size_t n = 0;

			for (p += klen + 1; p < end; p++) {
				if (*p == '%' && end - p > 2 && hexval(p[1]) >= 0 && hexval(p[2]) >= 0) {
					val[n++] = hexval(p[1]) * 16 + hexval(p[2]);
					p += 2;
				} else {
					val[n++] = *p == '+' ? ' ' : *p;
				}
			}
			val[n] = 0;
			return val;
		}
		if ((size_t)(end - p) == klen && !strncmp(p, key, klen))
			return "";
		p = amp ? amp + 1 : end;
	}
	return NULL;
}

bool serve__query_num(struct serve_req *r, const char *key, long long def, long long min,
		      long long max, long long *out)
{
	const char *s = serve__query(r, key);
	char *end;

	*out = def;
	if (!s)
		return true;
	errno = 0;
	*out = strtoll(s, &end, 10);
	if (*s && !*end && !errno && *out >= min && *out <= max)
		return true;
	sbuf__reset(&r->body);
	sbuf__printf(&r->body, "%s: a number from %lld to %lld\n", key, min, max);
	serve__reply(r, 400, "text/plain; charset=utf-8");
	return false;
}

static void list_routes(struct serve_req *r)
{
	sbuf__reset(&r->body);
	sbuf__printf(&r->body, "%s: endpoints\n", msg_tool);
	for (int i = 0; i < srv.nroutes; i++)
		sbuf__printf(&r->body, "  %-24s %s\n", srv.routes[i].path, srv.routes[i].help);
	serve__reply(r, 200, "text/plain; charset=utf-8");
}

/* The request in c->in is whole: "METHOD TARGET HTTP/1.x" then headers. */
static void handle(struct conn *c)
{
	struct serve_req *r = &c->req;
	char method[8], target[sizeof(r->path) + sizeof(r->query)], version[16], *q;
	size_t line = strcspn(c->in, "\r\n");
	int n = 0;

	if (memchr(c->in, 0, c->in_len) || line >= sizeof(target) + 32 ||
	    sscanf(c->in, "%7[A-Z] %767[^ \r\n] %15[^ \r\n]%n", method, target, version, &n) != 3 ||
	    (size_t)n != line || target[0] != '/' ||
	    (strcmp(version, "HTTP/1.0") && strcmp(version, "HTTP/1.1"))) {
		reply_text(r, 400, "bad request");
		return;
	}
	r->head = !strcmp(method, "HEAD");
	if (!r->head && strcmp(method, "GET")) {
		reply_text(r, 405, "only GET and HEAD");
		return;
	}
	q = strchr(target, '?');
	if (q)
		*q++ = 0;
	if (strlen(target) >= sizeof(r->path) || (q && strlen(q) >= sizeof(r->query))) {
		reply_text(r, 400, "bad request");
		return;
	}
	strcpy(r->path, target);
	strcpy(r->query, q ? q : "");
	if (!strcmp(r->path, "/")) {
		list_routes(r);
		return;
	}
	for (int i = 0; i < srv.nroutes; i++) {
		if (!strcmp(r->path, srv.routes[i].path)) {
			sbuf__reset(&r->body);
			srv.routes[i].fn(r, srv.routes[i].ctx);
			return;
		}
	}
	reply_text(r, 404, "not found (GET / lists the endpoints)");
}

static void conn_read(struct conn *c)
{
	char drop[4096];
	ssize_t n;

	if (c->st != C_READ) {
		/* deferred or answered: a read of 0 means the client is gone */
		n = recv(c->fd, drop, sizeof(drop), 0);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			conn_close(c);
		return;
	}
	n = recv(c->fd, c->in + c->in_len, SERVE_MAX_REQUEST - c->in_len, 0);
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		conn_close(c);
		return;
	}
	if (n < 0)
		return;
	c->in_len += n;
	c->in[c->in_len] = 0;
	if (strstr(c->in, "\r\n\r\n") || strstr(c->in, "\n\n"))
		handle(c);
	else if (c->in_len >= SERVE_MAX_REQUEST || memchr(c->in, 0, c->in_len))
		reply_text(&c->req, 400, "request too large or malformed");
}

static void conn_flush(struct conn *c)
{
	while (c->out_off < c->out.len) {
		ssize_t n = send(c->fd, c->out.p + c->out_off, c->out.len - c->out_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return;
			conn_close(c);
			return;
		}
		c->out_off += n;
	}
	/*
	 * All sent: stop writing, and read what the client may still send
	 * for a moment, so closing does not reset the connection before it
	 * has read our answer.
	 */
	shutdown(c->fd, SHUT_WR);
	c->st = C_LINGER;
	c->deadline = loop__now_ms() + LINGER_MS;
}

static void accept_all(void)
{
	for (;;) {
		int fd = accept4(srv.lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC), i;
		struct conn *c = NULL, *oldest = NULL;

		if (fd < 0)
			return;
		for (i = 0; i < SERVE_MAX_CONNS && !c; i++)
			if (srv.conns[i].st == C_FREE)
				c = &srv.conns[i];
		if (!c) {
			/* full: the connection that has waited longest without a request goes */
			for (i = 0; i < SERVE_MAX_CONNS; i++) {
				struct conn *o = &srv.conns[i];

				if ((o->st == C_READ || o->st == C_LINGER) &&
				    (!oldest || o->seq < oldest->seq))
					oldest = o;
			}
			if (!oldest) {
				close(fd);
				continue;
			}
			conn_close(oldest);
			c = oldest;
		}
		memset(&c->req, 0, sizeof(c->req));
		c->fd = fd;
		c->st = C_READ;
		c->in_len = 0;
		c->in[0] = 0;
		/* not the time: a burst is accepted within one millisecond */
		c->seq = ++srv.accepted;
		c->deadline = loop__now_ms() + SERVE_DEADLINE_MS;
	}
}

/* Deferred answers that are due, deadlines that passed. */
static void due(void)
{
	long long now = loop__now_ms();

	for (int i = 0; i < SERVE_MAX_CONNS; i++) {
		struct conn *c = &srv.conns[i];

		if (c->st == C_FREE || now < c->deadline)
			continue;
		if (c->st == C_DEFER) {
			serve_fn later = c->req.later;

			c->req.later = NULL;
			sbuf__reset(&c->req.body);
			later(&c->req, c->req.data);
			if (c->st == C_DEFER)	/* it did not reply */
				reply_text(&c->req, 500, "no answer");
		} else if (c->st == C_READ && c->in_len) {
			reply_text(&c->req, 408, "request timeout");
		} else {
			conn_close(c);
		}
	}
}

int serve__wait(int timeout_ms, int fd)
{
	struct pollfd pfd[SERVE_MAX_CONNS + 2];
	struct conn *who[SERVE_MAX_CONNS + 2];
	long long now = loop__now_ms();
	int n = 0, ready = 0, i, rc;

	if (timeout_ms < 0)
		timeout_ms = 0;
	pfd[n].fd = srv.lfd;
	pfd[n].events = POLLIN;
	who[n++] = NULL;
	for (i = 0; i < SERVE_MAX_CONNS; i++) {
		struct conn *c = &srv.conns[i];

		if (c->st == C_FREE)
			continue;
		pfd[n].fd = c->fd;
		pfd[n].events = c->st == C_WRITE ? POLLOUT : POLLIN;
		who[n++] = c;
		if (c->deadline - now < timeout_ms)
			timeout_ms = c->deadline > now ? c->deadline - now : 0;
	}
	if (fd >= 0) {
		pfd[n].fd = fd;
		pfd[n].events = POLLIN;
		who[n++] = NULL;
	}
	rc = poll(pfd, n, timeout_ms);
	if (rc > 0) {
		for (i = 1; i < n; i++) {
			struct conn *c = who[i];

			if (!c) {
				ready = !!(pfd[i].revents & POLLIN);
				continue;
			}
			if (!pfd[i].revents || c->st == C_FREE)
				continue;
			if (c->st == C_WRITE)
				conn_flush(c);
			else
				conn_read(c);
		}
		if (pfd[0].revents & POLLIN)
			accept_all();
	}
	due();
	return ready;
}

void serve__close(void)
{
	for (int i = 0; i < SERVE_MAX_CONNS; i++)
		conn_close(&srv.conns[i]);
	if (srv.lfd >= 0)
		close(srv.lfd);
	srv.lfd = -1;
}
