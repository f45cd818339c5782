// SPDX-License-Identifier: GPL-2.0
/* The stack printer (stacks.h): folded, multi-line and JSON forms. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "abi/unwind_abi.h"
#include "out/esc.h"
#include "run/msg.h"
#include "syms/python.h"
#include "syms/stacks.h"

#define NAME_LEN 512

bool stacks__is_bpf_frame(const char *name)
{
	/*
	 * Between sched_switch and the program: bpf_trace_run<N> calls the
	 * program (bpf_prog_<tag>_<name>) from the tracepoint's
	 * __bpf_trace_<tp> trampoline, reached through __traceiter_<tp>.
	 */
	return !strncmp(name, "bpf_prog_", 9) || !strncmp(name, "bpf_trace_run", 13) ||
	       !strncmp(name, "__bpf_trace_", 12) || !strncmp(name, "__traceiter_", 12);
}

struct ksyms *stacks__ksyms(struct stack_printer *p)
{
	static bool hinted;

	/* at report time, never at start-up: kallsyms takes tens of ms */
	if (!p->ksyms) {
		p->ksyms = ksyms__load();
		if (!p->ksyms && !hinted)
			msg__fail(-errno, "read /proc/kallsyms");
	}
	/*
	 * The one word on it for every tool. kallsyms shows addresses to
	 * CAP_SYSLOG where kptr_restrict is 0 or 1, and to anyone where it
	 * is 0 and perf_event_paranoid <= 1 (kallsyms_show_value()).
	 */
	if (p->ksyms && ksyms__restricted(p->ksyms) && !hinted)
		msg__hint("kernel addresses read 0 (kptr_restrict): for kernel frame names run "
			  "as root with kernel.kptr_restrict=0 or 1, or set it to 0 and "
			  "kernel.perf_event_paranoid=1");
	hinted = true;
	return p->ksyms;
}

const char *stacks__kernel_name(struct stack_printer *p, __u64 addr, char *buf, size_t len)
{
	const struct ksym *s = ksyms__find(stacks__ksyms(p), addr);

	if (!s)
		snprintf(buf, len, "0x%llx", (unsigned long long)addr);
	else
		snprintf(buf, len, "%s", s->name);
	return buf;
}

const char *stacks__user_name(struct stack_printer *p, pid_t tgid, __u64 addr, char *buf,
			      size_t len)
{
	/*
	 * Where the unwinder stopped short (abi/unwind_abi.h). Into buf, as
	 * every name: the folded and multi-line printers print buf.
	 */
	if (addr == UNW_MARK_ERROR || addr == UNW_MARK_TRUNCATED) {
		snprintf(buf, len, "%s", addr == UNW_MARK_ERROR ? "[unwind error]" : "[truncated]");
		return buf;
	}
	if (python__is_frame(addr))
		return python__name(p->py, tgid, addr, buf, len);
	if (!p->usyms) {
		snprintf(buf, len, "0x%llx", (unsigned long long)addr);
		return buf;
	}
	return usyms__name(p->usyms, tgid, addr, false, buf, len);
}

void stacks__fold_countname(FILE *f, const char *unit)
{
	fprintf(f, "# countname %s\n", unit);
}

void stacks__fold_name(FILE *f, const char *name, size_t len, const char *suffix)
{
	esc__put(f, name, len, ESC_FOLDED);
	fputs(suffix, f);
}

void stacks__fold_user(struct stack_printer *p, FILE *f, pid_t tgid, const struct stack *us)
{
	char buf[NAME_LEN];
	int i;

	if (us->missed)
		fputs(";[missed user stack]", f);
	for (i = us->n - 1; i >= 0; i--) {
		stacks__user_name(p, tgid, us->ips[i], buf, sizeof(buf));
		fputc(';', f);
		stacks__fold_name(f, buf, strlen(buf), "");
	}
}

void stacks__fold_kernel(struct stack_printer *p, FILE *f, const struct stack *k, bool leaf_first)
{
	char buf[NAME_LEN];
	int i;

	if (k->missed)
		fputs(";[missed kernel stack]", f);
	for (i = 0; i < k->n; i++) {
		stacks__kernel_name(p, k->ips[leaf_first ? i : k->n - 1 - i], buf, sizeof(buf));
		if (stacks__is_bpf_frame(buf))
			continue;
		fputc(';', f);
		stacks__fold_name(f, buf, strlen(buf), p->kernel_suffix ? "_[k]" : "");
	}
}

static void print_folded(struct stack_printer *p, FILE *f, const char *comm, pid_t tgid,
			 const struct stack *k, const struct stack *us, unsigned long long count)
{
	stacks__fold_name(f, comm, strlen(comm), "");
	if (us)
		stacks__fold_user(p, f, tgid, us);
	/* bcc: "-" only between two stacks that were both taken */
	if (k && p->delimiter && us && us->n && !us->missed && !k->missed && k->n)
		fputs(";-", f);
	if (k)
		stacks__fold_kernel(p, f, k, false);
	fprintf(f, " %llu\n", count);
}

void stacks__print_kernel(struct stack_printer *p, FILE *f, const struct stack *k,
			  const char *indent)
{
	char buf[NAME_LEN];
	int i;

	if (k->missed)
		fprintf(f, "%s[missed kernel stack]\n", indent);
	for (i = 0; i < k->n; i++) {
		stacks__kernel_name(p, k->ips[i], buf, sizeof(buf));
		if (stacks__is_bpf_frame(buf))
			continue;
		fputs(indent, f);
		esc__put(f, buf, strlen(buf), 0);
		fputc('\n', f);
	}
}

void stacks__print_user(struct stack_printer *p, FILE *f, pid_t tgid, const struct stack *us,
			const char *indent)
{
	char buf[NAME_LEN];
	int i;

	if (us->missed)
		fprintf(f, "%s[missed user stack]\n", indent);
	for (i = 0; i < us->n; i++) {
		stacks__user_name(p, tgid, us->ips[i], buf, sizeof(buf));
		fputs(indent, f);
		esc__put(f, buf, strlen(buf), 0);
		fputc('\n', f);
	}
}

void stacks__print(struct stack_printer *p, FILE *f, const char *comm, pid_t tgid,
		   pid_t tid, const struct stack *k, const struct stack *us,
		   unsigned long long count)
{
	char c[4 * NAME_LEN];

	if (p->folded) {
		print_folded(p, f, comm, tgid, k, us, count);
		return;
	}
	/* bcc's multi-line form: leaf first, kernel then user */
	if (k)
		stacks__print_kernel(p, f, k, "    ");
	if (p->delimiter && k && us && (k->n || k->missed) && (us->n || us->missed))
		fprintf(f, "    --\n");
	if (us)
		stacks__print_user(p, f, tgid, us, "    ");
	fprintf(f, "    %-16s %s (%d)\n", "-", esc__cstr(c, sizeof(c), comm, 0), tid);
	fprintf(f, "        %llu\n\n", count);
}

void stacks__json(struct stack_printer *p, struct json *j, pid_t tgid,
		  const struct stack *k, const struct stack *us)
{
	char buf[NAME_LEN];
	int i;

	if (k) {
		json__arr(j, "kernel_stack");
		if (k->missed)
			json__str(j, NULL, "[missed kernel stack]");
		for (i = 0; i < k->n; i++) {
			stacks__kernel_name(p, k->ips[i], buf, sizeof(buf));
			if (!stacks__is_bpf_frame(buf))
				json__str(j, NULL, buf);
		}
		json__arr_end(j);
	}
	if (us) {
		json__arr(j, "user_stack");
		if (us->missed)
			json__str(j, NULL, "[missed user stack]");
		for (i = 0; i < us->n; i++)
			json__str(j, NULL, stacks__user_name(p, tgid, us->ips[i], buf, sizeof(buf)));
		json__arr_end(j);
	}
}

bool stacks__begin(struct stack *s, __s32 id, __u64 *ips)
{
	s->ips = ips;
	s->n = 0;
	/* -EFAULT: no stack to take (a kernel thread's user stack), not a loss */
	s->missed = id < 0 && id != -EFAULT;
	return id >= 0;
}

int stacks__read(int map_fd, __s32 id, __u64 *ips, int max, struct stack *s)
{
	int n = 0;

	if (!stacks__begin(s, id, ips))
		return 0;
	if (bpf_map_lookup_elem(map_fd, &id, ips)) {
		s->missed = true;
		return -errno;
	}
	while (n < max && ips[n])
		n++;
	s->n = n;
	return 0;
}

static int cmp_s32(const void *a, const void *b)
{
	__s32 x = *(const __s32 *)a, y = *(const __s32 *)b;

	return x < y ? -1 : x > y;
}

int stacks__addrs_add(struct stack_addrs *a, const struct stack *s)
{
	unsigned long *q;

	if (a->n + s->n > a->cap) {
		q = realloc(a->v, (a->n + s->n) * 2 * sizeof(*a->v));
		if (!q)
			return -ENOMEM;
		a->v = q;
		a->cap = (a->n + s->n) * 2;
	}
	for (int j = 0; j < s->n; j++)
		a->v[a->n++] = s->ips[j];
	return 0;
}

int stacks__addrs(int stack_fd, __s32 *ids, size_t n, int depth, struct stack_addrs *a)
{
	__u64 *ips = calloc(depth > 0 ? depth : 1, sizeof(*ips));
	struct stack s;
	size_t i;
	int err = 0;

	if (!ips)
		return -ENOMEM;
	qsort(ids, n, sizeof(*ids), cmp_s32);
	for (i = 0; i < n && !err; i++) {
		if (ids[i] < 0 || (i && ids[i] == ids[i - 1]))
			continue;
		if (stacks__read(stack_fd, ids[i], ips, depth, &s) || !s.n)
			continue;
		err = stacks__addrs_add(a, &s);
	}
	free(ips);
	return err;
}
