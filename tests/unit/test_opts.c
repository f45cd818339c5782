// SPDX-License-Identifier: GPL-2.0
/* Shared option parsing: numbers, intervals, PIDs, cgroups, bad input. */
#include <limits.h>
#include <string.h>
#include <unistd.h>
#include "unit.h"
#include "run/msg.h"
#include "run/opts.h"

static int parse_in_child(const char **argv_in, int argc, unsigned int mask);

static error_t no_parser(int key, char *arg, struct argp_state *state)
{
	(void)key; (void)arg; (void)state;
	return ARGP_ERR_UNKNOWN;
}

static void parse(const char **argv_in, int argc, unsigned int mask)
{
	struct argp a = { NULL, no_parser, "", "", NULL, NULL, NULL };
	char *argv[16];

	memset(&env, 0, sizeof(env));
	for (int i = 0; i < argc; i++)
		argv[i] = (char *)argv_in[i];
	argv[argc] = NULL;
	a.children = opts__children(mask);
	opts__parse(&a, argc, argv, NULL);
}

struct pargs { const char **argv; int argc; unsigned int mask; };

static void parse_fn(void *p)
{
	struct pargs *a = p;

	parse(a->argv, a->argc, a->mask);
}

static int parse_in_child(const char **argv, int argc, unsigned int mask)
{
	struct pargs a = { argv, argc, mask };

	return exit_status_of(parse_fn, &a);
}

#define ALL (OPTS_PID | OPTS_TID | OPTS_CGROUP | OPTS_TIMESTAMP | OPTS_MS | OPTS_INTERVAL)
#define ARGS(...) (const char *[]){ "t", __VA_ARGS__ }, (int)(sizeof((const char *[]){ "t", __VA_ARGS__ }) / sizeof(char *))

static void test_good(void **state)
{
	char pid[16];

	(void)state;
	snprintf(pid, sizeof(pid), "%d", getpid());
	parse(ARGS("-T", "-m", "-j", "-p", pid, "5", "3"), ALL);
	assert_true(env.timestamp);
	assert_true(env.milliseconds);
	assert_true(env.json);
	assert_int_equal(env.pid, getpid());
	assert_int_equal(env.interval, 5);
	assert_int_equal(env.count, 3);
	parse(ARGS("--force-raw-tp", "2"), ALL);
	assert_true(env.force_raw_tp);
	assert_int_equal(env.interval, 2);
	assert_int_equal(env.count, 0);
	assert_false(env.force_libbpf);
	parse(ARGS("--force-libbpf"), ALL);
	assert_true(env.force_libbpf);
}

static void test_bad_usage_exits_2(void **state)
{
	(void)state;
	assert_int_equal(parse_in_child(ARGS("--no-such-flag"), ALL), 2);
	assert_int_equal(parse_in_child(ARGS("abc"), ALL), 2);
	assert_int_equal(parse_in_child(ARGS("0"), ALL), 2);
	assert_int_equal(parse_in_child(ARGS("-1"), ALL), 2);
	assert_int_equal(parse_in_child(ARGS("1", "0"), ALL), 2);
	assert_int_equal(parse_in_child(ARGS("1", "2", "3"), ALL), 2);
	assert_int_equal(parse_in_child(ARGS("1x"), ALL), 2);
	assert_int_equal(parse_in_child(ARGS("-p", "999999999"), ALL), 2);
	assert_int_equal(parse_in_child(ARGS("-p", "12abc"), ALL), 2);
	assert_int_equal(parse_in_child(ARGS("-p"), ALL), 2);
	assert_int_equal(parse_in_child(ARGS("-c", "/no/such/cgroup"), ALL), 2);
	assert_int_equal(parse_in_child(ARGS("-c", "/tmp"), ALL), 2);
	assert_int_equal(parse_in_child(ARGS("--btf", "/no/such/file"), ALL), 2);
	/* an option the tool did not choose is unknown */
	assert_int_equal(parse_in_child(ARGS("-m"), OPTS_PID), 2);
	/* good input exits 0 in the child too: the harness itself works */
	assert_int_equal(parse_in_child(ARGS("-T"), ALL), 0);
}

/* Two modules' own options (opts__module()), as syms__argp and prom__argp. */
static bool alpha, beta;
static int nr_ends;

static error_t parse_module(int key, char *arg, struct argp_state *state)
{
	(void)arg; (void)state;
	if (key == 0x5000)
		alpha = true;
	else if (key == 0x5001)
		beta = true;
	else if (key == ARGP_KEY_END)
		nr_ends++;
	else
		return ARGP_ERR_UNKNOWN;
	return 0;
}

static const struct argp_option alpha_options[] = { { "alpha", 0x5000, NULL, 0, "a", 0 }, { 0 } };
static const struct argp_option beta_options[] = { { "beta", 0x5001, NULL, 0, "b", 0 }, { 0 } };
static const struct argp alpha_argp = { alpha_options, parse_module, NULL, NULL, NULL, NULL, NULL };
static const struct argp beta_argp = { beta_options, parse_module, NULL, NULL, NULL, NULL, NULL };

static void modules_fn(void *p)
{
	struct pargs *a = p;

	opts__module(&alpha_argp);
	opts__module(&beta_argp);
	opts__module(&alpha_argp);	/* twice: once */
	parse(a->argv, a->argc, a->mask);
	/* 0: both modules' options parsed, each module ended once */
	_exit(alpha && beta && nr_ends == 2 ? 0 : 1);
}

static void test_modules(void **state)
{
	struct pargs both = { ARGS("--alpha", "--beta", "-T"), ALL };
	struct pargs bad = { ARGS("--gamma"), ALL };

	(void)state;
	/* every module registered offers its options, not only the last one */
	assert_int_equal(exit_status_of(modules_fn, &both), 0);
	assert_int_equal(exit_status_of(modules_fn, &bad), 2);
	/* a module not registered offers nothing (this process registered none) */
	assert_int_equal(parse_in_child(ARGS("--alpha"), ALL), 2);
}

static void test_num(void **state)
{
	long long out[4];

	(void)state;
	assert_int_equal(opts__num("42", "n", 0, 100), 42);
	assert_int_equal(opts__num("0x10", "n", 0, 100), 16);
	assert_int_equal(opts__num_list("1,2,3", "n", 0, 10, out, 4), 3);
	assert_int_equal(out[2], 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad_usage_exits_2),
		cmocka_unit_test(test_num),
		cmocka_unit_test(test_modules),
	};

	msg__init("t");
	return cmocka_run_group_tests_name("opts", tests, NULL, NULL);
}
