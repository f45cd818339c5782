// SPDX-License-Identifier: GPL-2.0
/*
 * wchan: the reason of a sleep from its kernel stack, on a canned
 * kallsyms laid out like this kernel's (.sched.text between its markers):
 * a vfork parent, a pipe mutex waiter, the tracer's own frames, a stack of
 * nothing but primitives, missed and empty stacks, and the name list
 * alone when the markers are missing or hidden (kptr_restrict). The
 * markers come from the same ksyms that names the frames.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include "unit.h"
#include "run/msg.h"
#include "dstate/wchan.h"

static char path[] = "/tmp/bpflite-wchan.XXXXXX";

static const char kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 T kernel_clone\n"
	"ffffffff81000200 t anon_pipe_write\n"
	"ffffffff81000300 T vfs_write\n"
	"ffffffff81000400 T do_syscall_64\n"
	"ffffffff81000500 t bpf_prog_6deef7357e7b4530_sched_switch_btf\n"
	"ffffffff81000600 T bpf_trace_run4\n"
	"ffffffff81000700 t __bpf_trace_sched_switch\n"
	"ffffffff81000800 T folio_wait_bit_common\n"
	"ffffffff81000900 T filemap_fault\n"
	"ffffffff81001000 T __sched_text_start\n"
	"ffffffff81001010 t __schedule\n"
	"ffffffff81001100 T schedule\n"
	"ffffffff81001200 T schedule_timeout\n"
	"ffffffff81001300 t __wait_for_common\n"
	"ffffffff81001400 T wait_for_completion_state\n"
	"ffffffff81001500 t __mutex_lock.constprop.0\n"
	"ffffffff81001600 T schedule_preempt_disabled\n"
	"ffffffff81001700 T some_sched_helper\n"
	"ffffffff81001800 T __sched_text_end\n"
	"ffffffff81002000 T __lock_text_start\n";

#define A(off) (0xffffffff81000000ULL + (off) + 4)

static struct ksyms *ks;
static struct wchan w;

static int setup(void **state)
{
	int fd = mkstemp(path);

	(void)state;
	if (fd < 0 || write(fd, kallsyms, sizeof(kallsyms) - 1) != sizeof(kallsyms) - 1)
		return -1;
	close(fd);
	ks = ksyms__load_file(path);
	return ks && !wchan__load(&w, ks) ? 0 : -1;
}

/* wchan__load() on a kallsyms of text; its return, w as it left it. */
static int load_text(const char *text, struct wchan *wc)
{
	char p[] = "/tmp/bpflite-wchan.XXXXXX";
	int fd = mkstemp(p), err = -1;
	struct ksyms *k = NULL;

	if (fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text))
		k = ksyms__load_file(p);
	if (fd >= 0)
		close(fd);
	unlink(p);
	assert_non_null(k);
	wc->sched_start = wc->sched_end = 1;
	err = wchan__load(wc, k);
	ksyms__free(k);
	return err;
}

static int teardown(void **state)
{
	(void)state;
	ksyms__free(ks);
	unlink(path);
	return 0;
}

static const char *reason(const struct wchan *wc, const __u64 *ips, int n)
{
	static char buf[128];
	struct stack s = { .ips = ips, .n = n };

	return wchan__reason(wc, ks, &s, buf, sizeof(buf));
}

static void test_markers(void **state)
{
	(void)state;
	assert_int_equal(w.sched_start, 0xffffffff81001000UL);
	assert_int_equal(w.sched_end, 0xffffffff81001800UL);
	/* in the section, whatever the name; outside it, by name only */
	assert_true(wchan__is_primitive(&w, A(0x1700), "some_sched_helper"));
	assert_false(wchan__is_primitive(&w, A(0x900), "filemap_fault"));
	assert_true(wchan__is_primitive(&w, A(0x800), "folio_wait_bit_common"));
}

/* Without both markers, or with addresses hidden, the names alone decide. */
static void test_no_markers(void **state)
{
	struct wchan none = { 1, 1 };

	(void)state;
	assert_int_equal(wchan__load(&none, NULL), -ENOENT);
	assert_int_equal(none.sched_start, 0);
	assert_int_equal(none.sched_end, 0);
	assert_int_equal(load_text("ffffffff81001000 T __sched_text_start\n"
				   "ffffffff81001100 T schedule\n", &none), -ENOENT);
	assert_int_equal(none.sched_start, 0);
	assert_int_equal(none.sched_end, 0);
	/* kptr_restrict: every address 0 */
	assert_int_equal(load_text("0000000000000000 T __sched_text_start\n"
				   "0000000000000000 T schedule\n"
				   "0000000000000000 T __sched_text_end\n", &none), -ENOENT);
	assert_int_equal(none.sched_end, 0);
	/* an end that is not above the start */
	assert_int_equal(load_text("ffffffff81001800 T __sched_text_start\n"
				   "ffffffff81001000 T __sched_text_end\n", &none), -ENOENT);
	assert_int_equal(none.sched_start, 0);
	assert_int_equal(none.sched_end, 0);
	assert_true(wchan__is_primitive(&none, A(0x1010), "__schedule"));
	assert_false(wchan__is_primitive(&none, A(0x1700), "some_sched_helper"));
}

static void test_vfork_and_mutex(void **state)
{
	const __u64 vfork[] = { A(0x500), A(0x600), A(0x700), A(0x1010), A(0x1100), A(0x1200),
				A(0x1300), A(0x1400), A(0x100), A(0x400) };
	const __u64 mutex[] = { A(0x1010), A(0x1100), A(0x1600), A(0x1500), A(0x200), A(0x300),
				A(0x400) };
	const __u64 page[] = { A(0x1010), A(0x1100), A(0x800), A(0x900) };

	(void)state;
	assert_string_equal(reason(&w, vfork, 10), "kernel_clone");
	assert_string_equal(reason(&w, mutex, 7), "anon_pipe_write");
	assert_string_equal(reason(&w, page, 4), "filemap_fault");
}

static void test_edges(void **state)
{
	const __u64 only_prims[] = { A(0x500), A(0x1010), A(0x1100), A(0x1200) };
	const __u64 only_bpf[] = { A(0x500), A(0x600) };
	const __u64 unknown[] = { A(0x1010), 0xffffffff00000010ULL };
	struct wchan none = { 0 };
	const __u64 mutex[] = { A(0x1010), A(0x1100), A(0x1500), A(0x200) };
	struct stack missed = { .missed = true };
	char buf[64];

	(void)state;
	/* nothing but primitives: the outermost one */
	assert_string_equal(reason(&w, only_prims, 4), "schedule_timeout");
	assert_string_equal(reason(&w, only_bpf, 2), "[unknown]");
	assert_string_equal(reason(&w, only_prims, 0), "[unknown]");
	assert_string_equal(wchan__reason(&w, ks, &missed, buf, sizeof(buf)), "[missed kernel stack]");
	/* a frame without a name is not a primitive */
	assert_string_equal(reason(&w, unknown, 2), "0xffffffff00000010");
	/* without the markers the name list still knows the scheduler and mutexes */
	assert_string_equal(reason(&none, mutex, 4), "anon_pipe_write");
	/* a short buffer truncates, never overflows */
	assert_string_equal(wchan__reason(&w, ks, &(struct stack){ .ips = mutex, .n = 4 }, buf, 5),
			    "anon");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_markers),
		cmocka_unit_test(test_no_markers),
		cmocka_unit_test(test_vfork_and_mutex),
		cmocka_unit_test(test_edges),
	};

	msg__init("test");
	return cmocka_run_group_tests_name("wchan", tests, setup, teardown);
}
