// SPDX-License-Identifier: GPL-2.0
/*
 * floor: attach the empty programs of floor.bpf.o to one group of
 * tracepoints and wait for SIGINT/SIGTERM (benchmarks only).
 *   floor OBJECT sys|sched|switch [raw]
 * sys: raw_syscalls sys_enter + sys_exit; sched: sched_switch +
 * sched_wakeup + sched_wakeup_new; switch: sched_switch alone. tp_btf unless "raw" is given or
 * tp_btf does not load.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>

static volatile sig_atomic_t stop;
static void on_signal(int sig) { (void)sig; stop = 1; }

static const char *const groups[][4] = {
	{ "sys", "sys_enter", "sys_exit", NULL },
	{ "sched", "sched_switch", "sched_wakeup", "sched_wakeup_new" },
	{ "switch", "sched_switch", NULL, NULL },
};

static int run(const char *path, const char *const *tps, const char *form)
{
	struct bpf_object *obj = bpf_object__open_file(path, NULL);
	struct bpf_program *prog;
	char name[64];
	int i, n = 0;

	if (!obj) {
		fprintf(stderr, "floor: failed to open %s\n", path);
		return -1;
	}
	/* keep the programs of the group in the chosen form only */
	bpf_object__for_each_program(prog, obj) {
		bool keep = false;

		for (i = 1; i < 4 && tps[i]; i++) {
			snprintf(name, sizeof(name), "%s_%s", tps[i], form);
			keep |= !strcmp(bpf_program__name(prog), name);
		}
		bpf_program__set_autoload(prog, keep);
	}
	if (bpf_object__load(obj))
		goto fail;
	bpf_object__for_each_program(prog, obj) {
		if (!bpf_program__autoload(prog))
			continue;
		if (!bpf_program__attach(prog))
			goto fail;
		n++;
	}
	fprintf(stderr, "floor: %d empty %s programs attached. Hit Ctrl-C to end.\n", n, form);
	while (!stop)
		pause();
	bpf_object__close(obj);
	return 0;
fail:
	bpf_object__close(obj);
	return -1;
}

int main(int argc, char **argv)
{
	const char *const *tps = NULL;
	size_t g;

	for (g = 0; argc >= 3 && g < sizeof(groups) / sizeof(groups[0]); g++)
		if (!strcmp(argv[2], groups[g][0]))
			tps = groups[g];
	if (!tps) {
		fprintf(stderr, "usage: floor OBJECT sys|sched|switch [raw]\n");
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	libbpf_set_print(NULL);
	if ((argc < 4 || strcmp(argv[3], "raw")) && !run(argv[1], tps, "btf"))
		return 0;
	if (stop)
		return 0;
	return run(argv[1], tps, "raw") ? 1 : 0;
}
