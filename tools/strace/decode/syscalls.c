// SPDX-License-Identifier: GPL-2.0
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "strace/decode/syscalls.h"
#include "syscall_table.h"

_Static_assert(SYSCALLS_X86_64_MAX < SYSCALL_NR_SLOTS, "x86_64 table exceeds SYSCALL_NR_SLOTS");
_Static_assert(SYSCALLS_IA32_MAX < SYSCALL_NR_SLOTS, "ia32 table exceeds SYSCALL_NR_SLOTS");

const char *syscall__name(int nr, bool ia32)
{
	if (nr < 0)
		return NULL;
	if (ia32)
		return nr <= SYSCALLS_IA32_MAX ? syscalls_ia32[nr] : NULL;
	return nr <= SYSCALLS_X86_64_MAX ? syscalls_x86_64[nr] : NULL;
}

int syscall__nr(const char *name, bool ia32)
{
	int max = ia32 ? SYSCALLS_IA32_MAX : SYSCALLS_X86_64_MAX;

	for (int i = 0; i <= max; i++) {
		const char *n = syscall__name(i, ia32);

		if (n && !strcmp(n, name))
			return i;
	}
	return -1;
}

const char *syscall__format(char *buf, size_t len, int nr, bool ia32)
{
	const char *n = syscall__name(nr, ia32);

	if (n)
		snprintf(buf, len, "%s%s", ia32 ? "ia32:" : "", n);
	else
		snprintf(buf, len, "%ssyscall_%#x", ia32 ? "ia32:" : "", nr);
	return buf;
}

/* Levenshtein distance, capped: names are short. */
static int distance(const char *a, const char *b)
{
	int la = strlen(a), lb = strlen(b), prev[64], cur[64];

	if (la > 62 || lb > 62)
		return INT_MAX;
	for (int j = 0; j <= lb; j++)
		prev[j] = j;
	for (int i = 1; i <= la; i++) {
		cur[0] = i;
		for (int j = 1; j <= lb; j++) {
			int d = prev[j - 1] + (a[i - 1] != b[j - 1]);

			if (prev[j] + 1 < d)
				d = prev[j] + 1;
			if (cur[j - 1] + 1 < d)
				d = cur[j - 1] + 1;
			cur[j] = d;
		}
		memcpy(prev, cur, sizeof(int) * (lb + 1));
	}
	return prev[lb];
}

int syscall__suggest(const char *name, const char **out, int max)
{
	int best[8], n = 0, limit = strlen(name) / 3 + 1;

	if (max > 8)
		max = 8;
	for (int i = 0; i <= SYSCALLS_X86_64_MAX; i++) {
		const char *s = syscalls_x86_64[i];
		int d, k;

		if (!s)
			continue;
		d = distance(name, s);
		/* "open" should find openat, "stat" newfstatat's kin */
		if (d > limit && !(strlen(name) >= 3 && strstr(s, name)))
			continue;
		if (d > limit)
			d = limit + 1;
		/* insertion sort into the best max */
		for (k = n; k > 0 && best[k - 1] > d; k--) {
			if (k < max) {
				best[k] = best[k - 1];
				out[k] = out[k - 1];
			}
		}
		if (k < max) {
			best[k] = d;
			out[k] = s;
			if (n < max)
				n++;
		}
	}
	return n;
}

const char *errno__name(int err, char *buf, size_t len)
{
	const char *n = err > 0 ? strerrorname_np(err) : NULL;

	if (n)
		snprintf(buf, len, "%s", n);
	else
		snprintf(buf, len, "E%d", err);
	return buf;
}
