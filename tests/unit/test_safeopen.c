// SPDX-License-Identifier: GPL-2.0
/*
 * Opening files others control (common/syms/safeopen.c): inside another
 * root, an absolute symlink in the middle of a path stays in that root,
 * and where openat2 is refused (a seccomp profile's ENOSYS) nothing is
 * opened rather than resolved against the host's root; an output file is
 * never truncated through a hard link or a symlink.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "unit.h"
#include "syms/safeopen.h"

static char dir[] = "/tmp/bpflite-safeopen.XXXXXX";
static char root[128], host[128], secret[192];

/* dir/root: the other root; dir/host/secret: a file outside it, which
 * root/a, an absolute symlink to dir/host, points at from inside. */
static int setup(void **state)
{
	char link[300];
	int fd;

	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(root, sizeof(root), "%s/root", dir);
	snprintf(host, sizeof(host), "%s/host", dir);
	snprintf(secret, sizeof(secret), "%s/secret", host);
	snprintf(link, sizeof(link), "%s/a", root);
	if (mkdir(root, 0755) || mkdir(host, 0755) || symlink(host, link))
		return -1;
	fd = open(secret, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0 || write(fd, "secret\n", 7) != 7)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) ? -1 : 0;
}

static const struct safeopen plain = { 0 };

static void test_symlink_stays_in_root(void **state)
{
	int rfd, fd;

	(void)state;
	/* the secret is reachable from the host's root */
	fd = safeopen(-1, secret, &plain);
	assert_true(fd >= 0);
	close(fd);
	/* from inside root, /a is root/a -> (root)/<dir>/host: not there */
	rfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(rfd >= 0);
	assert_int_equal(safeopen(rfd, "/a/secret", &plain), -1);
	close(rfd);
}

/* In a child: openat2 fails with ENOSYS from here on (seccomp). */
static int refuse_openat2(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

static void test_no_openat2_opens_nothing(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		int rfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC), fd;

		if (rfd < 0 || refuse_openat2())
			_exit(2);
		/* openat2 is really refused */
		if (syscall(SYS_openat2, rfd, "a", NULL, 0) != -1 || errno != ENOSYS)
			_exit(3);
		fd = safeopen(rfd, "/a/secret", &plain);
		/* 0: nothing opened; 1: the host's file, out of the root */
		_exit(fd >= 0 ? 1 : 0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_write_new_and_own(void **state)
{
	char path[300];
	struct stat st;
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/out.pb.gz", dir);
	fd = safeopen_write(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "abc", 3), 3);
	close(fd);
	/* our own file, one name: truncated */
	fd = safeopen_write(path);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, 0);
	close(fd);
	unlink(path);
}

/* PATH, a name made for the secret, is refused with ERR; the secret stays whole. */
static void write_refused(const char *path, int err)
{
	struct stat st;

	errno = 0;
	assert_int_equal(safeopen_write(path), -1);
	assert_int_equal(errno, err);
	assert_int_equal(stat(secret, &st), 0);
	assert_int_equal(st.st_size, 7);	/* not truncated */
	unlink(path);
}

static void test_write_refuses_hard_link_and_symlink(void **state)
{
	char path[300];

	(void)state;
	snprintf(path, sizeof(path), "%s/hl", dir);
	assert_int_equal(link(secret, path), 0);
	write_refused(path, EMLINK);
	snprintf(path, sizeof(path), "%s/sl", dir);
	assert_int_equal(symlink(secret, path), 0);
	write_refused(path, ELOOP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_symlink_stays_in_root),
		cmocka_unit_test(test_no_openat2_opens_nothing),
		cmocka_unit_test(test_write_new_and_own),
		cmocka_unit_test(test_write_refuses_hard_link_and_symlink),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
