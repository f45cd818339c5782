// SPDX-License-Identifier: GPL-2.0
/*
 * strace-lite: trace system calls and signals of a command or of running
 * processes, with strace's interface, from raw_syscalls tracepoints: the
 * filtering, copying and -c counting happen in BPF, so the traced
 * process is never stopped. The user side of bpf/strace.bpf.c, split as
 * strace splits its own: this file controls the processes (the command,
 * -p, -u) and the BPF side; tools/strace/ holds the options (opts.c),
 * the joining and printing of events (print.c), the fd paths of -y
 * (fds.c) and the -c summary (summary.c).
 */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include "load/maps.h"
#include "load/tool.h"
#include "out/json.h"
#include "run/loop.h"
#include "serve/prom.h"
#include "serve/serve.h"
#include "strace/decode/syscalls.h"
#include "strace/strace_lite.h"
#include "strace.skel.h"

#define TOOL "strace-lite"

static struct strace_bpf *skel;

/* ---- targets -------------------------------------------------------------- */

static pid_t child = -1;
static int child_status = -1;
static struct ring_buffer *rb;

/* Threads were added to the traced set: on tp_btf each checks it again at its next call. */
static void traced_changed(void)
{
	__atomic_fetch_add(&skel->data->set_gen, 1, __ATOMIC_RELEASE);
}

static int trace_tid(pid_t tid, __u32 flags)
{
	struct strace_task t = { .slot = STRACE_SLOT_NONE, .flags = flags };
	int err = bpf_map_update_elem(bpf_map__fd(skel->maps.traced), &tid, &t, BPF_ANY);

	if (!err)
		traced_changed();
	return err;
}

/*
 * A thread's start time in clock ticks (field 22 of /proc/TID/stat), 0
 * when it is gone or a zombie. /proc/TID works for any thread.
 */
static unsigned long long task_start(pid_t tid)
{
	char path[64], buf[512], *p, state;
	unsigned long long start;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	/* after the comm, which may hold spaces and parentheses */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
			 "%*d %*d %*d %*d %llu", &state, &start) != 2)
		return 0;
	if (state == 'Z' || state == 'X')
		return 0;
	return start ? start : 1;	/* 1 tick apart from the first: never 0 */
}

/*
 * -p: the call a thread is blocked in, from /proc/TID/syscall: its number
 * and six argument registers ("running", or -1 outside a call, else).
 * 0 when it is in one.
 */
static int blocked_call(pid_t tid, long *nr, __u64 args[6])
{
	char path[64], buf[256];
	unsigned long long a[6];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/syscall", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	if (sscanf(buf, "%ld %llx %llx %llx %llx %llx %llx", nr, &a[0], &a[1], &a[2], &a[3], &a[4],
		   &a[5]) != 7 || *nr < 0 || *nr >= STRACE_NR)
		return -1;
	for (int i = 0; i < 6; i++)
		args[i] = a[i];
	return 0;
}

/* Is the process 64-bit code? /proc/TID/syscall gives no hint of an ia32 call's table. */
static bool is_64bit(pid_t pid)
{
	unsigned char ident[5];
	char path[64];
	int fd;
	bool ok;

	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ok = read(fd, ident, sizeof(ident)) == sizeof(ident) && !memcmp(ident, "\177ELF", 4) &&
	     ident[4] == 2;	/* ELFCLASS64 */
	close(fd);
	return ok;
}

/*
 * -p in trace mode: threads blocked in a traced call when we attach are
 * shown in it at once (strace shows the call it catches them in). Their
 * entry half is printed from the registers, after the banner; the call's
 * slot goes in the set with the thread, so its return completes the line.
 */
static struct strace_enter *attached;
static int nattached;

static bool slot_wanted(__u32 slot)
{
	return skel->rodata->cfg_mask[slot / 64] & (1ULL << (slot % 64));
}

/* The call tid is in, set in t for its return; false: none to show. */
static bool catch_call(pid_t pid, pid_t tid, bool wide, struct strace_task *t,
		       struct strace_enter *e)
{
	struct timespec now;
	__u64 cap;
	long nr;
	int out;

	if (!skel->rodata->cfg_trace || !wide || blocked_call(tid, &nr, e->args) ||
	    !slot_wanted(nr) ||
	    (print__slot_info(nr) && print__slot_info(nr)->ret == 'n'))
		return false;
	clock_gettime(CLOCK_MONOTONIC, &now);
	memset(&e->h, 0, sizeof(e->h));
	e->h.type = EV_BLOCKED;
	e->h.slot = nr;
	e->h.tgid = pid;
	e->h.tid = tid;
	e->h.ts = now.tv_sec * 1000000000ULL + now.tv_nsec;
	e->cap_len[0] = e->cap_len[1] = 0;
	e->cap_arg[0] = e->cap_arg[1] = 0xff;
	/* as sys_enter sets up a call with nothing copied at entry: the output at exit */
	cap = skel->rodata->cfg_capture[nr];
	out = STRACE_CAP_OSTRUCT(cap) ?: STRACE_CAP_OUT(cap);
	if (cap & STRACE_CAP_IOV_EXIT)
		out = STRACE_CAP_IOV(cap);
	t->slot = nr;
	t->flags = TASK_WHOLE | TASK_SHOWN;
	t->retry_arg = out <= 6 ? out : 0;
	t->enter_ns = e->h.ts;
	t->enter_stime = ~0ULL;	/* -C: its system time so far is not the call's */
	return true;
}

/*
 * -p: every thread of the process. A thread that exits between the
 * listing and its entry in the traced set would stay there for good: its
 * exit, the only thing that removes it, has happened. So each entry
 * carries the start time listed; BPF checks it at the thread's first
 * call (a new task with that tid is not traced), and prune_traced()
 * drops the entries of threads that are gone before making one. The
 * listing is read again until it has nothing new, for threads created
 * meanwhile by threads not yet traced.
 */
static int attach_pid(pid_t pid)
{
	int fd = bpf_map__fd(skel->maps.traced), n = 0, fresh;
	bool wide = is_64bit(pid);
	char path[64];
	struct dirent *d;
	DIR *dir;

	fds__snapshot(pid);
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	for (int round = 0; round < 10; round++) {
		fresh = 0;
		dir = opendir(path);
		if (!dir)
			break;
		while ((d = readdir(dir))) {
			struct strace_task t = { .slot = STRACE_SLOT_NONE };
			struct strace_task t2;
			struct strace_enter e, again;
			bool caught;
			pid_t tid;

			if (d->d_name[0] < '0' || d->d_name[0] > '9')
				continue;
			tid = atoi(d->d_name);
			if (!bpf_map_lookup_elem(fd, &tid, &t))
				continue;	/* traced already */
			t.start_ticks = task_start(tid);
			if (!t.start_ticks)
				continue;
			caught = catch_call(pid, tid, wide, &t, &e);
			print__live_add(tid);
			if (bpf_map_update_elem(fd, &tid, &t, BPF_NOEXIST)) {
				int err = -errno;

				if (err != -EEXIST) {
					closedir(dir);
					return err;
				}
				caught = false;	/* in the set already, without our call */
			}
			fresh++;
			/*
			 * Still in that call once in the set: its return is ours
			 * to see, so its half is shown. Otherwise it returned in
			 * between: after the insert, its return shows the call
			 * whole; before, nothing shows it (its next call resets
			 * the slot).
			 */
			if (caught && catch_call(pid, tid, wide, &t2, &again) &&
			    again.h.slot == e.h.slot && !memcmp(again.args, e.args, sizeof(e.args))) {
				struct strace_enter *a = realloc(attached, (nattached + 1) * sizeof(*a));

				if (a) {
					attached = a;
					attached[nattached++] = e;
				}
			}
		}
		closedir(dir);
		if (fresh)
			traced_changed();
		n += fresh;
		if (!fresh)
			break;
	}
	return n ? 0 : -ESRCH;
}

/* -p: drop the entries of listed threads that ended before their first call. */
static void prune_traced(void)
{
	struct bpf_map *m = skel->maps.traced;
	int fd = bpf_map__fd(m);
	struct strace_task t;
	__u32 *tids, n, i;

	if (map__keys(fd, sizeof(*tids), bpf_map__max_entries(m), (void **)&tids, &n))
		return;
	for (i = 0; i < n; i++)
		if (!bpf_map_lookup_elem(fd, &tids[i], &t) && t.start_ticks &&
		    task_start(tids[i]) != t.start_ticks)
			bpf_map_delete_elem(fd, &tids[i]);
	free(tids);
}

/*
 * Command mode: the child waits on a pipe until the tool has attached and
 * put it in the traced set, then execs; a failed exec reports its errno
 * through a close-on-exec pipe.
 */
static int go_pipe[2] = { -1, -1 }, err_pipe[2] = { -1, -1 };

/* Supplementary groups of user name from /etc/group (as initgroups does). */
static int set_groups(const char *name, gid_t gid)
{
	gid_t groups[256];
	int n = 0;
	FILE *f;
	struct group *g;

	groups[n++] = gid;
	f = name ? fopen("/etc/group", "re") : NULL;
	while (f && (g = fgetgrent(f)) && n < 256) {
		for (char **m = g->gr_mem; m && *m; m++) {
			if (!strcmp(*m, name) && g->gr_gid != gid) {
				groups[n++] = g->gr_gid;
				break;
			}
		}
	}
	if (f)
		fclose(f);
	return setgroups(n, groups);
}

/*
 * The command's file, found in PATH before it starts, as strace does: its
 * trace begins at the one execve of that file.
 */
static char cmd_path[PATH_MAX];

static int resolve_cmd(void)
{
	const char *name = cfg.cmd[0], *path = getenv("PATH");
	struct stat st;
	int err = ENOENT;

	if (strchr(name, '/')) {
		if (snprintf(cmd_path, sizeof(cmd_path), "%s", name) >= (int)sizeof(cmd_path))
			return errno = ENAMETOOLONG, -1;
		return stat(cmd_path, &st) ? -1 : 0;
	}
	if (!path)
		path = "/bin:/usr/bin";
	while (*path) {
		const char *end = strchrnul(path, ':');
		int len = end - path;

		/* an empty entry is the current directory */
		if (snprintf(cmd_path, sizeof(cmd_path), "%.*s%s%s", len, path, len ? "/" : "",
			     name) < (int)sizeof(cmd_path) &&
		    !stat(cmd_path, &st) && S_ISREG(st.st_mode)) {
			if (!access(cmd_path, X_OK))
				return 0;
			err = EACCES;
		}
		path = *end ? end + 1 : end;
	}
	errno = err;
	return -1;
}

static int start_child(void)
{
	uid_t uid = 0;
	gid_t gid = 0;
	const char *uname = NULL;

	if (cfg.user)
		opts__resolve_user(&uid, &gid, &uname);
	if (pipe(go_pipe) || pipe2(err_pipe, O_CLOEXEC))
		return -errno;
	fflush(NULL);
	child = fork();
	if (child < 0)
		return -errno;
	if (child == 0) {
		char c;
		int e;

		close(go_pipe[1]);
		close(err_pipe[0]);
		while (read(go_pipe[0], &c, 1) < 0 && errno == EINTR)
			;
		close(go_pipe[0]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		if (cfg.user) {
			if (set_groups(uname, gid) || setgid(gid) || setuid(uid))
				goto fail;
		}
		signal(SIGHUP, SIG_DFL);
		/* the path resolve_cmd() found: no PATH search to trace */
		execv(cmd_path, cfg.cmd);
fail:
		e = errno;
		if (write(err_pipe[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go_pipe[0]);
	close(err_pipe[1]);
	return 0;
}

/*
 * SIGINT, SIGTERM, SIGHUP: stop, and pass the signal on to a command we
 * started (strace kills the tracees it started).
 */
static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
	stop_signal = sig;
	loop_exiting = 1;
}

static void stop_signals(void)
{
	struct sigaction sa = { .sa_handler = on_stop_signal };

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static void stop_child(int sig)
{
	long long end = loop__now_ms() + 1000;

	if (child <= 0 || child_status >= 0)
		return;
	kill(child, sig);
	/* its "+++ killed by" line; a command that ignores sig is left be */
	while (loop__now_ms() < end) {
		if (waitpid(child, &child_status, WNOHANG) == child)
			break;
		child_status = -1;
		ring_buffer__consume(rb);
		usleep(10000);
	}
	ring_buffer__consume(rb);
}

/* Release the child; 0 when its exec went through. */
static int release_child(void)
{
	int e = 0;
	ssize_t n;

	if (trace_tid(child, TASK_WAIT_EXEC))
		return -errno;
	print__live_add(child);
	/* what it inherits from us, less the go pipe it closes before exec */
	fds__snapshot_exec(child);
	fds__forget(child, go_pipe[0]);
	if (write(go_pipe[1], "g", 1) != 1)
		return -errno;
	close(go_pipe[1]);
	do {
		n = read(err_pipe[0], &e, sizeof(e));
	} while (n < 0 && errno == EINTR);
	close(err_pipe[0]);
	if (n == sizeof(e)) {
		msg__fail(e, "run '%s'", cfg.cmd[0]);
		waitpid(child, NULL, 0);
		child = -1;
		return -e;
	}
	return 0;
}

/* Done when no traced thread is left (and the child is reaped). */
static bool targets_gone(void *ctx)
{
	__u32 key;

	static long long last, last_prune;
	long long now = loop__now_ms();

	(void)ctx;
	if (!cfg.cmd && !cfg.npids)	/* -u USER, or -c alone: until Ctrl-C */
		return false;
	/* called after every poll: look at most every 20 ms */
	if (now - last < 20)
		return false;
	last = now;
	if (child > 0 && child_status < 0) {
		int st;

		if (waitpid(child, &st, WNOHANG) == child)
			child_status = st;
	}
	if (cfg.npids && now - last_prune >= 200) {
		last_prune = now;
		prune_traced();
	}
	return bpf_map_get_next_key(bpf_map__fd(skel->maps.traced), NULL, &key) != 0;
}

static int tick(void *ctx)
{
	(void)ctx;
	/* the BPF side wakes us only past a backlog: drain on time too */
	int err = ring_buffer__consume(rb);

	return err < 0 && err != -EINTR ? err : 0;
}

static void report_lost(void)
{
	struct bpf_map *m = skel->maps.lost;
	int fd = bpf_map__fd(m);
	__u32 *pids, n, i;
	__u64 v;

	if (map__keys(fd, sizeof(*pids), bpf_map__max_entries(m), (void **)&pids, &n))
		return;
	for (i = 0; i < n; i++)
		if (!bpf_map_lookup_elem(fd, &pids[i], &v) && v)
			msg__warn("pid %u: %llu events lost", pids[i], (unsigned long long)v);
	free(pids);
}

/* -y: calls besides those that return an fd that change the fd table or the cwd */
static bool fd_call(const char *name)
{
	static const char *const calls[] = { "close", "close_range", "fcntl", "pipe", "pipe2",
					     "socketpair", "execve", "execveat", "chdir", "fchdir" };

	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		if (!strcmp(name, calls[i]))
			return true;
	return false;
}

static void set_rodata(void)
{
	size_t n;
	const struct sysdecode_info *t = sysdecode__table(&n);
	int nr;

	skel->rodata->cfg_trace = !cfg.summary_only;
	skel->rodata->cfg_summary = cfg.summary_only || cfg.summary;
	skel->rodata->cfg_hist = cfg.hist;
	skel->rodata->cfg_wall = cfg.wall;
	skel->rodata->cfg_follow = cfg.follow;
	skel->rodata->cfg_all = !cfg.cmd && !cfg.npids && !cfg.user;
	if (cfg.user && !cfg.cmd) {	/* every task of the user */
		uid_t uid;
		gid_t gid;
		const char *name;

		opts__resolve_user(&uid, &gid, &name);
		skel->rodata->cfg_uid = uid;
	}
	skel->rodata->cfg_status = cfg.status;
	skel->rodata->cfg_strsize = cfg.strsize;
	skel->rodata->cfg_noabbrev = sysdecode__verbose;
	if (!cfg.mask_set)
		memset(cfg.mask, 0xff, sizeof(cfg.mask));
	memcpy((void *)skel->rodata->cfg_mask, cfg.mask, sizeof(cfg.mask));
	if (TRACK_FDS && !skel->rodata->cfg_summary) {
		/*
		 * -y: follow the calls that make and close fds even when -e
		 * trace= leaves them out (they are not shown), so that fds are
		 * named from the calls, not from /proc when the line is printed
		 * (by then the fd may be another file's).
		 */
		__u64 *m = (__u64 *)skel->rodata->cfg_mask;

		for (size_t i = 0; i < n; i++) {
			if (t[i].ret != 'f' && !fd_call(t[i].name))
				continue;
			nr = syscall__nr(t[i].name, false);
			if (nr >= 0)
				m[nr / 64] |= 1ULL << (nr % 64);
		}
		skel->rodata->cfg_fd_info = true;
	}
	for (size_t i = 0; i < n; i++) {
		nr = syscall__nr(t[i].name, false);
		if (nr < 0)
			continue;
		skel->rodata->cfg_capture[nr] = sysdecode__capture_mask(&t[i]);
		if (!skel->rodata->cfg_fd_info)
			continue;
		/* -y: BPF reads the files of the fds these make (EV_FDS); dups copy ours */
		if (!strcmp(t[i].name, "pipe") || !strcmp(t[i].name, "pipe2") ||
		    !strcmp(t[i].name, "socketpair"))
			skel->rodata->cfg_capture[nr] |= STRACE_CAP_NEWFD_PAIR;
		else if (t[i].ret == 'f' && strncmp(t[i].name, "dup", 3))
			skel->rodata->cfg_capture[nr] |= STRACE_CAP_NEWFD;
	}
	const char *execs[4][2] = { { "execve", "" }, { "execveat", "" },
				    { "execve", "ia32" }, { "execveat", "ia32" } };
	const char *noret[4][2] = { { "exit", "" }, { "exit_group", "" },
				    { "exit", "ia32" }, { "exit_group", "ia32" } };
	for (int i = 0; i < 4; i++) {
		nr = syscall__nr(execs[i][0], *execs[i][1]);
		((__u32 *)skel->rodata->cfg_exec_slots)[i] =
			nr < 0 ? STRACE_SLOT_NONE : (__u32)((*execs[i][1] ? STRACE_IA32 : 0) + nr);
		nr = syscall__nr(noret[i][0], *noret[i][1]);
		((__u32 *)skel->rodata->cfg_noreturn_slots)[i] =
			nr < 0 ? STRACE_SLOT_NONE : (__u32)((*noret[i][1] ? STRACE_IA32 : 0) + nr);
	}
}

int main(int argc, char **argv)
{
	struct timespec rt, mt;
	int err = 0, rc = EXIT_OK;

	msg__init(TOOL);
	strace__parse_opts(argc, argv);

	print__init();
	if (cfg.cmd && resolve_cmd()) {
		msg__fail(-errno, "run '%s'", cfg.cmd[0]);
		return EXIT_FAIL;
	}
	if (cfg.output && !cfg.ff) {
		trace_out = fopen(cfg.output, "we");	/* close-on-exec: not the command's */
		if (!trace_out) {
			msg__fail(-errno, "open output file '%s'", cfg.output);
			return EXIT_FAIL;
		}
		setvbuf(trace_out, NULL, _IOFBF, OUT_BUF);
	} else if (env.json && !cfg.ff) {
		trace_out = stdout;
	} else {
		trace_out = stderr;
		setvbuf(trace_out, NULL, _IOLBF, OUT_BUF);
	}
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mt);
	trace_mono_to_real_ns = (rt.tv_sec - mt.tv_sec) * 1000000000LL + (rt.tv_nsec - mt.tv_nsec);

	skel = TOOL_OPEN(strace_bpf);
	if (!skel)
		return EXIT_FAIL;
	set_rodata();
	/* maps of features that are off: one entry, one page */
	if (!skel->rodata->cfg_summary)
		bpf_map__set_max_entries(skel->maps.stats, 1);
	if (!cfg.hist)
		bpf_map__set_max_entries(skel->maps.hists, 1);
	if (!skel->rodata->cfg_trace) {
		bpf_map__set_max_entries(skel->maps.events, getpagesize());
		/* -c: no lines, no blocked calls to show */
		bpf_program__set_autoload(skel->progs.sched_switch_btf, false);
		bpf_program__set_autoload(skel->progs.sched_switch_raw, false);
	}
	/* the traced set stays on both paths: user space fills and reads it */
	err = tool__task_storage(skel->obj, skel->maps.tasks, NULL);
	if (err)
		goto out;

	err = tool__load_attach(skel->skeleton);
	if (err)
		goto out;
	rb = tool__ringbuf(skel->maps.events, print__event, NULL);
	if (!rb) {
		err = -errno;
		goto out;
	}

	loop__signals();
	stop_signals();
	if (cfg.cmd) {
		err = start_child();
		if (err) {
			msg__fail(err, "start '%s'", cfg.cmd[0]);
			goto out;
		}
	} else {
		for (int i = 0; i < cfg.npids; i++) {
			err = attach_pid(cfg.pids[i]);
			if (err) {
				msg__fail(err, "attach to process %d", cfg.pids[i]);
				goto out;
			}
		}
	}
	if (serve__spec()) {
		static int fds[2];

		fds[0] = bpf_map__fd(skel->maps.stats);
		fds[1] = bpf_map__fd(skel->maps.hists);
		err = prom__serve_start(summary__metrics, fds, &skel->bss->loss);
		if (err)
			goto out;
	}
	/* strace says nothing before a command's trace, nor into a file */
	if (!cfg.cmd && !cfg.output && !cfg.quiet)
		tool__tracing("system calls");
	/* -p: the calls the threads were blocked in, after the banner */
	for (int i = 0; i < nattached; i++)
		print__event(NULL, &attached[i], STRACE_ENTER_SMALL);
	free(attached);
	attached = NULL;
	if (cfg.cmd) {
		err = release_child();
		if (err)
			goto out;
	}
	err = loop__ringbuf(rb, 0, 50, targets_gone, tick, NULL);
	if (stop_signal)
		stop_child(stop_signal);
	/* a last look: events of the final exits */
	ring_buffer__consume(rb);
	print__detach();
	fflush(trace_out);
	prom__serve_stop();
	if (!err && (cfg.summary_only || cfg.summary) && !serve__spec())
		err = summary__print(bpf_map__fd(skel->maps.stats), bpf_map__fd(skel->maps.hists));
	report_lost();
	/* -o: the loss record belongs with the events it is about */
	loss__report_to(&skel->bss->loss, env.json ? trace_out : NULL);
	if (child > 0) {
		if (child_status < 0 && !stop_signal)
			waitpid(child, &child_status, 0);
		if (child_status >= 0)
			rc = WIFEXITED(child_status) ? WEXITSTATUS(child_status) :
			     128 + WTERMSIG(child_status);
	}
out:
	free(attached);
	prom__serve_stop();
	print__close();
	ring_buffer__free(rb);
	strace_bpf__destroy(skel);
	if (trace_out && trace_out != stdout && trace_out != stderr)
		fclose(trace_out);
	if (err)
		return EXIT_FAIL;
	return rc;
}
