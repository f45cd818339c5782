// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include <time.h>
#include "run/loop.h"
#include "run/msg.h"

volatile sig_atomic_t loop_exiting;
/* --serve: waits go through the server (common/serve/serve.c), which polls its sockets too */
static int (*wait_fn)(int timeout_ms, int fd);

void loop__set_wait(int (*fn)(int timeout_ms, int fd))
{
	wait_fn = fn;
}

static void on_signal(int sig)
{
	(void)sig;
	loop_exiting = 1;
}

void loop__signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	/* No SA_RESTART: a signal must interrupt the sleep or the poll. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

long long loop__now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Sleep until deadline (monotonic ms) or a signal. */
static void sleep_until(long long deadline)
{
	while (!loop_exiting) {
		long long left = deadline - loop__now_ms();
		struct timespec ts;

		if (left <= 0)
			return;
		if (wait_fn) {
			wait_fn(left > 1000 ? 1000 : left, -1);
			continue;
		}
		ts.tv_sec = left / 1000;
		ts.tv_nsec = (left % 1000) * 1000000;
		nanosleep(&ts, NULL);	/* EINTR: re-check loop_exiting */
	}
}

int loop__intervals(int interval, int count, int (*report)(void *ctx), void *ctx)
{
	long long next = loop__now_ms();
	int err, done = 0;

	for (;;) {
		if (interval > 0) {
			next += interval * 1000LL;
			sleep_until(next);
		} else {
			while (!loop_exiting)
				sleep_until(loop__now_ms() + 3600 * 1000LL);
		}
		err = report(ctx);
		if (err)
			return err;
		if (loop_exiting || (count && ++done >= count))
			return 0;
	}
}

int loop__ringbuf(struct ring_buffer *rb, int duration, int tick_ms,
		  bool (*stop)(void *ctx), int (*tick)(void *ctx), void *ctx)
{
	long long end = duration > 0 ? loop__now_ms() + duration * 1000LL : 0;
	long long next_tick = loop__now_ms() + tick_ms;
	int err;

	if (tick_ms <= 0)
		tick_ms = 100;
	while (!loop_exiting) {
		long long now = loop__now_ms();
		int timeout = tick_ms;

		if (end && now >= end)
			break;
		if (end && end - now < timeout)
			timeout = end - now;
		if (wait_fn)
			err = wait_fn(timeout, ring_buffer__epoll_fd(rb)) ? ring_buffer__consume(rb) : 0;
		else
			err = ring_buffer__poll(rb, timeout);
		if (err < 0 && err != -EINTR) {
			msg__fail(err, "poll ring buffer");
			return err;
		}
		if (stop && stop(ctx))
			break;
		if (tick && loop__now_ms() >= next_tick) {
			next_tick = loop__now_ms() + tick_ms;
			err = tick(ctx);
			if (err)
				return err;
		}
	}
	/* Whatever is still in the buffer belongs to the run. */
	err = ring_buffer__consume(rb);
	return err < 0 && err != -EINTR ? err : 0;
}
