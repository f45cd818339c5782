/* SPDX-License-Identifier: GPL-2.0 */
/*
 * realloc() failures on demand, for the unit tests linked with
 * -Wl,--wrap=realloc (tests/Makefile.tests): the calls of common/'s
 * objects and of the test go through __wrap_realloc, the libraries' not.
 */
#ifndef BPFLITE_FAIL_ALLOC_H
#define BPFLITE_FAIL_ALLOC_H

#include <stddef.h>

/* The Nth realloc() from now fails (1: the next one); 0: none does. */
static int fail_realloc_at;

void *__real_realloc(void *p, size_t n);
void *__wrap_realloc(void *p, size_t n);

void *__wrap_realloc(void *p, size_t n)
{
	if (fail_realloc_at > 0 && --fail_realloc_at == 0)
		return NULL;
	return __real_realloc(p, n);
}

#endif
