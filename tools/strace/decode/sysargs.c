// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include "strace/decode/sysargs.h"

static const struct sysargs table[] = {
#define SYSCALL_ARGS(name, n, ...) { #name, n, { __VA_ARGS__ } },
#include "strace/decode/syscall_args.h"
#undef SYSCALL_ARGS
};

/* UAPI names whose SYSCALL_DEFINE has another name. */
static const char *const aliases[][2] = {
	{ "stat", "newstat" }, { "fstat", "newfstat" }, { "lstat", "newlstat" },
	{ "uname", "newuname" }, { "sendfile", "sendfile64" }, { "umount2", "umount" },
};

static const struct sysargs *lookup(const char *name)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (!strcmp(table[i].name, name))
			return &table[i];
	return NULL;
}

const struct sysargs *sysargs__find(const char *name)
{
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (!strcmp(aliases[i][0], name))
			return lookup(aliases[i][1]);
	return lookup(name);
}

const struct sysargs *sysargs__table(int *n)
{
	*n = sizeof(table) / sizeof(table[0]);
	return table;
}

int sysargs__shown(const struct sysargs *a)
{
	int n = a->n;

	for (int i = 0; i < a->n; i++)
		if (strstr(a->args[i], " pos_h"))
			n--;
	return n;
}
