// SPDX-License-Identifier: GPL-2.0
/*
 * snoopwl: known execs and opens for execsnoop-lite and opensnoop-lite.
 * After the go FIFO it does its list and prints, as one JSON line, what
 * it did: the real PIDs, arguments and return values.
 *   snoopwl -g FIFO -d DIR execs      the exec list (DIR: scratch directory)
 *   snoopwl -g FIFO -d DIR opens      the open list
 *   snoopwl -g FIFO -d DIR flagopens  opens whose flags share bits: O_DIRECTORY,
 *                                     O_TMPFILE (has O_DIRECTORY's), O_DSYNC,
 *                                     O_SYNC (has O_DSYNC's)
 *   snoopwl -g FIFO -d DIR burst N    N opens of one file, as fast as possible
 *   snoopwl -g FIFO -d DIR uid UID    one exec of /bin/true as UID
 *   snoopwl -g FIFO threadexec PROG ARGS...  one exec of PROG (argv: PROG ARGS)
 *                                     from a second thread of a child
 *   snoopwl reexec PROG ARGS...       (internal) exec PROG: a second exec in one process
 */
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/openat2.h>
#include "wl.h"

static const char *dir = "/tmp";
static int first = 1;
static volatile size_t touched;

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

static void json_argv(char *const argv[])
{
	putchar('[');
	for (int i = 0; argv[i]; i++) {
		if (i)
			putchar(',');
		json_str(argv[i]);
	}
	putchar(']');
}

static void sep(void)
{
	if (!first)
		putchar(',');
	first = 0;
}

/* exec in the calling process, which must fail: report it. */
static void exec_fail(const char *what, const char *path, char *const argv[])
{
	int ret;

	/* fault the strings in: a tracer's non-faulting read must find them */
	for (int i = 0; argv[i]; i++)
		touched += strlen(argv[i]);
	execv(path, argv);
	ret = -errno;
	sep();
	printf("{\"what\":\"%s\",\"pid\":%d,\"ppid\":%d,\"ret\":%d,\"argv\":", what, getpid(),
	       getppid(), ret);
	json_argv(argv);
	printf(",\"execs\":1}");
}

struct thread_exec {
	const char *path;
	char *const *argv;
	int errfd;
};

/* A thread that is not the leader execs: it takes over the process ID. */
static void *exec_thread(void *arg)
{
	struct thread_exec *t = arg;
	int err;

	execv(t->path, t->argv);
	err = errno;
	if (write(t->errfd, &err, sizeof(err)) < 0)
		_exit(127);
	_exit(127);
}

/*
 * exec in a child (from a second thread when what is "thread"); a
 * CLOEXEC pipe tells whether it worked. execs: how
 * many execs the child does (2 for reexec).
 */
static void exec_child(const char *what, const char *path, char *const argv[], int uid,
		       int execs)
{
	int p[2], err = 0, status;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		exit(1);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		close(p[0]);
		if (uid >= 0 && (setgid(uid) || setuid(uid)))
			_exit(126);
		/*
		 * fork() leaves file-backed pages out of the child's page
		 * tables: touch the strings so a tracer can read them (the
		 * "unread" case keeps its own untouched).
		 */
		if (strcmp(what, "unread"))
			for (int i = 0; argv[i]; i++)
				touched += strlen(argv[i]);
		if (!strcmp(what, "thread")) {
			struct thread_exec t = { path, argv, p[1] };
			pthread_t th;

			pthread_create(&th, NULL, exec_thread, &t);
			pause();	/* the exec ends this thread */
		}
		execv(path, argv);
		err = errno;
		if (write(p[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(p[1]);
	if (read(p[0], &err, sizeof(err)) != sizeof(err))
		err = 0;
	close(p[0]);
	waitpid(pid, &status, 0);
	sep();
	printf("{\"what\":\"%s\",\"pid\":%d,\"ppid\":%d,\"ret\":%d,\"argv\":", what, pid, getpid(),
	       -err);
	json_argv(argv);
	printf(",\"execs\":%d,\"exit\":%d}", execs, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

static void do_execs(void)
{
	char noexec[4096], unread_path[4096], self[4096];
	char *spaces[] = { "echo", "hello world", "x", NULL };
	char *enoent[] = { "/nonexistent/snoopwl-prog", "a", NULL };
	char *eacces[] = { noexec, "b", NULL };
	char *shell[] = { "sh", "-c", "exit 7", NULL };
	char *twice[] = { "snoopwl", "reexec", "/bin/echo", "second exec", NULL };
	char *thread[] = { "echo", "from a thread", NULL };
	char *many[32];
	char *longarg[] = { "echo", NULL, "short", NULL };
	char *unread[4];
	char big[400], nums[31][8];
	int fd;

	snprintf(noexec, sizeof(noexec), "%s/not-executable", dir);
	fd = open(noexec, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, "#!/bin/sh\n", 10) != 10)
		exit(1);
	close(fd);
	if (readlink("/proc/self/exe", self, sizeof(self) - 1) < 0)
		exit(1);
	self[sizeof(self) - 1] = 0;

	many[0] = "echo";
	for (int i = 1; i < 31; i++) {
		snprintf(nums[i], sizeof(nums[i]), "a%d", i);
		many[i] = nums[i];
	}
	many[31] = NULL;
	memset(big, 'L', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	longarg[1] = big;

	/*
	 * argv strings in a file mapping never touched: not in our page
	 * tables, so a tracer's non-faulting read fails; execve faults
	 * them in and works.
	 */
	snprintf(unread_path, sizeof(unread_path), "%s/argv-strings", dir);
	fd = open(unread_path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, "echo\0unread\0", 12) != 12)
		exit(1);
	char *m = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		exit(1);

	printf("{\"pid\":%d,\"ppid\":%d,\"execs\":[", getpid(), getppid());
	exec_child("spaces", "/bin/echo", spaces, -1, 1);
	exec_fail("enoent", enoent[0], enoent);
	exec_fail("eacces", noexec, eacces);
	exec_child("exit7", "/bin/sh", shell, -1, 1);
	exec_child("twice", self, twice, -1, 2);
	exec_child("thread", "/bin/echo", thread, -1, 1);
	exec_child("many", "/bin/echo", many, -1, 1);
	exec_child("longarg", "/bin/echo", longarg, -1, 1);
	/* the child's copy of the mapping is untouched too */
	unread[0] = m;
	unread[1] = m + 5;
	unread[2] = NULL;
	exec_child("unread", "/bin/echo", unread, -1, 1);
	printf("]}\n");
}

static void open_rec(const char *sys, const char *path, const char *full, long flags, long ret)
{
	sep();
	printf("{\"syscall\":\"%s\",\"path\":", sys);
	json_str(path);
	printf(",\"full\":");
	json_str(full);
	printf(",\"flags\":%ld,\"fd\":%ld,\"err\":%ld}", flags, ret >= 0 ? ret : -1,
	       ret >= 0 ? 0 : -ret);
}

static long sys_ret(long r)
{
	return r < 0 ? -errno : r;
}

static char a[4096], sub[4096], deep[8192], cwd[4096];
static long sub_dfd;

/* Before go: the files and directories the opens use (their opens are not in the list). */
static void prep_opens(void)
{
	char path[8300];

	snprintf(a, sizeof(a), "%s/a.txt", dir);
	close(open(a, O_WRONLY | O_CREAT, 0644));
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	mkdir(sub, 0755);
	if (chdir(dir))
		exit(1);
	if (!getcwd(cwd, sizeof(cwd)))
		exit(1);
	/* the deep directory for -F's depth limit: 40 levels below dir */
	snprintf(deep, sizeof(deep), "%s", cwd);
	for (int i = 0; i < 40; i++) {
		size_t n = strlen(deep);

		snprintf(deep + n, sizeof(deep) - n, "/d%d", i);
		mkdir(deep, 0755);
	}
	snprintf(path, sizeof(path), "%s/deep.txt", deep);
	unlink(path);
	sub_dfd = open(sub, O_RDONLY | O_DIRECTORY | O_PATH);
}

static void do_opens(void)
{
	char full[16384];
	struct open_how how = { .flags = O_RDWR | O_CREAT, .mode = 0600 };
	long r;

	printf("{\"pid\":%d,\"cwd\":", getpid());
	json_str(cwd);
	printf(",\"opens\":[");
	r = sys_ret(syscall(SYS_open, a, O_RDONLY));
	open_rec("open", a, a, O_RDONLY, r);
	close(r);
	snprintf(full, sizeof(full), "%s/rel.txt", cwd);
	r = sys_ret(syscall(SYS_openat, AT_FDCWD, "rel.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644));
	open_rec("openat", "rel.txt", full, O_WRONLY | O_CREAT | O_TRUNC, r);
	close(r);
	snprintf(full, sizeof(full), "%s/sub/two.txt", cwd);
	r = sys_ret(syscall(SYS_openat2, sub_dfd, "two.txt", &how, sizeof(how)));
	open_rec("openat2", "two.txt", full, O_RDWR | O_CREAT, r);
	close(r);
	r = sys_ret(syscall(SYS_openat, AT_FDCWD, sub, O_RDONLY | O_DIRECTORY));
	open_rec("openat", sub, sub, O_RDONLY | O_DIRECTORY, r);
	close(r);
	snprintf(full, sizeof(full), "%s/missing.txt", cwd);
	r = sys_ret(syscall(SYS_openat, AT_FDCWD, "missing.txt", O_RDONLY));
	open_rec("openat", "missing.txt", full, O_RDONLY, r);
	r = sys_ret(syscall(SYS_open, sub, O_WRONLY));
	open_rec("open", sub, sub, O_WRONLY, r);
	/* relative, from 40 directories down: -F stops at its depth limit */
	if (chdir(deep))
		exit(1);
	snprintf(full, sizeof(full), "%s/deep.txt", deep);
	r = sys_ret(syscall(SYS_openat, AT_FDCWD, "deep.txt", O_WRONLY | O_CREAT | O_EXCL, 0644));
	open_rec("openat", "deep.txt", full, O_WRONLY | O_CREAT | O_EXCL, r);
	close(r);
	printf("]}\n");
}

static void do_flagopens(void)
{
	static const long flags[] = {
		O_RDONLY | O_DIRECTORY, O_RDWR | O_TMPFILE, O_WRONLY | O_DSYNC, O_WRONLY | O_SYNC,
	};
	long r;

	printf("{\"pid\":%d,\"cwd\":", getpid());
	json_str(cwd);
	printf(",\"opens\":[");
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		/* O_TMPFILE opens an unnamed file in the directory */
		const char *path = flags[i] & O_DIRECTORY ? sub : a;

		r = sys_ret(syscall(SYS_openat, AT_FDCWD, path, flags[i], 0600));
		open_rec("openat", path, path, flags[i], r);
		if (r >= 0)
			close(r);
	}
	printf("]}\n");
}

static char burst_path[4096];

static void prep_burst(void)
{
	snprintf(burst_path, sizeof(burst_path), "%s/burst", dir);
	close(open(burst_path, O_WRONLY | O_CREAT, 0644));
}

static void do_burst(long n)
{
	const char *path = burst_path;
	unsigned long long t0, t1;
	long ok = 0;

	t0 = wl_now_ns();
	for (long i = 0; i < n; i++) {
		int fd = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY);

		if (fd >= 0) {
			ok++;
			close(fd);
		}
	}
	t1 = wl_now_ns();
	printf("{\"pid\":%d,\"issued\":%ld,\"ok\":%ld,\"seconds\":%.6f,\"rate\":%.0f}\n", getpid(), n,
	       ok, (t1 - t0) / 1e9, n / ((t1 - t0) / 1e9));
}

int main(int argc, char **argv)
{
	const char *fifo = NULL;
	int opt;

	if (argc > 2 && !strcmp(argv[1], "reexec")) {
		execv(argv[2], argv + 2);
		return 127;
	}
	while ((opt = getopt(argc, argv, "+g:d:")) != -1) {
		switch (opt) {
		case 'g': fifo = optarg; break;
		case 'd': dir = optarg; break;
		default: return 2;
		}
	}
	if (optind >= argc)
		return 2;
	if (!strcmp(argv[optind], "opens") || !strcmp(argv[optind], "flagopens"))
		prep_opens();
	else if (!strcmp(argv[optind], "burst"))
		prep_burst();
	wl_wait_go(fifo);
	if (!strcmp(argv[optind], "execs")) {
		do_execs();
	} else if (!strcmp(argv[optind], "opens")) {
		do_opens();
	} else if (!strcmp(argv[optind], "flagopens")) {
		do_flagopens();
	} else if (!strcmp(argv[optind], "burst") && optind + 1 < argc) {
		do_burst(atol(argv[optind + 1]));
	} else if (!strcmp(argv[optind], "threadexec") && optind + 1 < argc) {
		printf("{\"pid\":%d,\"execs\":[", getpid());
		exec_child("thread", argv[optind + 1], argv + optind + 1, -1, 1);
		printf("]}\n");
	} else if (!strcmp(argv[optind], "uid") && optind + 1 < argc) {
		char *t[] = { "true", "as-uid", NULL };

		printf("{\"pid\":%d,\"execs\":[", getpid());
		exec_child("uid", "/bin/true", t, atoi(argv[optind + 1]), 1);
		printf("]}\n");
	} else {
		return 2;
	}
	return 0;
}
