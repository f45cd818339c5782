/* SPDX-License-Identifier: GPL-2.0 */
/* Shared bits of the unit tests: cmocka, and capture of a FILE's output. */
#ifndef BPFLITE_UNIT_H
#define BPFLITE_UNIT_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

/* An in-memory FILE; read the text with capture_text() after fflush. */
struct capture {
	FILE *f;
	char *buf;
	size_t len;
};

static inline void capture_open(struct capture *c)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
	assert_non_null(c->f);
}

static inline const char *capture_text(struct capture *c)
{
	fflush(c->f);
	return c->buf ? c->buf : "";
}

static inline void capture_close(struct capture *c)
{
	fclose(c->f);
	free(c->buf);
}

/* Run fn(arg) in a child; return its exit status (or 128+signal). */
#include <sys/wait.h>
#include <unistd.h>
static inline int exit_status_of(void (*fn)(void *), void *arg)
{
	int st;
	pid_t p = fork();

	if (p == 0) {
		/* silence the child's messages */
		freopen("/dev/null", "w", stderr);
		fn(arg);
		_exit(0);
	}
	waitpid(p, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

#endif
