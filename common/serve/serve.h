/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small HTTP/1.x server run from the tool's own poll loop (--serve):
 * non-blocking sockets, one request per connection (Connection: close),
 * GET and HEAD only, a deadline per request, a cap on connections. The
 * BPF side is never stalled by a client: nothing here blocks.
 *
 * An endpoint answers at once (serve__reply) or later (serve__defer): a
 * deferred request waits, its connection watched, while the loop keeps
 * consuming events and serving other requests; at its time the 'later'
 * function is called and must reply.
 */
#ifndef BPFLITE_SERVE_H
#define BPFLITE_SERVE_H

#include <stdbool.h>
#include "out/sbuf.h"

struct serve_req;
/* An endpoint: fill serve__body(r) and serve__reply(), or serve__defer(). */
typedef void (*serve_fn)(struct serve_req *r, void *ctx);

#define SERVE_MAX_CONNS		16	/* the oldest idle one is closed for a new one */
/*
 * Of those, how many may wait for a deferred answer: a quarter, so that
 * clients holding requests of N seconds never take the slots that
 * scrapes need; past it serve__defer() answers 503 with Retry-After.
 */
#define SERVE_MAX_DEFERRED	(SERVE_MAX_CONNS / 4)
#define SERVE_MAX_REQUEST	8192	/* request line and headers, bytes */
#define SERVE_DEADLINE_MS	5000	/* to send a whole request */

/*
 * Parse "[HOST:]PORT" ("[v6addr]:PORT" for IPv6; HOST defaults to
 * 127.0.0.1). Usage error (exit 2) when it is not one.
 */
void serve__parse(const char *spec);
/* The spec given, or NULL without --serve. */
const char *serve__spec(void);
/* Bind and listen; 0, or -errno after printing why. */
int serve__open(void);
/* "http://HOST:PORT" of the bound socket (port 0 resolved). */
const char *serve__url(void);
/* Register an endpoint (path without query); help is listed by GET /. */
void serve__route(const char *path, const char *help, serve_fn fn, void *ctx);
/*
 * Wait up to timeout_ms for work on the server's sockets and on fd (-1:
 * none), serving what is ready and what is due. Returns 1 when fd is
 * readable, else 0. Never blocks beyond timeout_ms.
 */
int serve__wait(int timeout_ms, int fd);
/* Close every connection and the listening socket. */
void serve__close(void);

/* The value of query parameter key (percent-decoded), or NULL. */
const char *serve__query(struct serve_req *r, const char *key);
/*
 * Query parameter key as a number in [min, max], def when absent: true;
 * false after answering 400 (the request is over).
 */
bool serve__query_num(struct serve_req *r, const char *key, long long def, long long min,
		      long long max, long long *out);
struct sbuf *serve__body(struct serve_req *r);
/*
 * Send status and serve__body(r) with this content type; the request ends.
 * A body left short by a failed allocation is not sent: 500 instead.
 */
void serve__reply(struct serve_req *r, int status, const char *content_type);
/*
 * Answer later: after delay_ms, later(r, data) is called and must reply.
 * If the client goes away first, free_data(data) is called instead (both
 * may be NULL). free_data is also called after later(). When
 * SERVE_MAX_DEFERRED requests wait already, the request is answered at
 * once, 503 with Retry-After (when the first waiting one is due), and
 * free_data(data) is called.
 */
void serve__defer(struct serve_req *r, long long delay_ms, serve_fn later, void *data,
		  void (*free_data)(void *data));

#endif
