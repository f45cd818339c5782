// SPDX-License-Identifier: GPL-2.0
/*
 * Unwinding tables (common/syms/unwind_tables.c) on Debian's own binaries,
 * built without frame pointers: every row readelf's frames-interp prints
 * for them must be what our table says at that address (the CFA rule, the
 * saved rbp, an undefined return address as the end of the stack). And
 * broken files: a truncated or scrambled .eh_frame gives an error or a
 * table, never a crash (the fuzz target goes further).
 * Needs readelf (binutils).
 */
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "unit.h"
#include "syms/unwind_tables.h"

struct checked {
	unsigned int rows, fdes, exprs;
};

/* Is readelf's rule text "c-N" (saved at CFA - N)? */
static bool saved_at(const char *s, int *off)
{
	return sscanf(s, "c%d", off) == 1;
}

/* Compare each row readelf interprets with our table's row at its LOC. */
static void check_file(const char *path, struct checked *c)
{
	char cmd[512], line[1024], why[128] = "";
	struct unw_table t;
	int fd, rbp_col = -1, ra_col = -1, cols = 0;
	bool in_fde = false;
	FILE *p;

	memset(c, 0, sizeof(*c));
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		print_message("# skip %s: not installed\n", path);
		return;
	}
	assert_int_equal(unw_table__build(fd, 0, &t, why, sizeof(why)), 0);
	close(fd);
	assert_false(t.capped);
	assert_true(t.n > 100);

	snprintf(cmd, sizeof(cmd), "readelf --debug-dump=frames-interp '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		char *tok[24], *save, *w;
		int n = 0;
		bool paren = false;

		if (strstr(line, " FDE ")) {
			in_fde = true;
			c->fdes++;
			continue;
		}
		if (strstr(line, " CIE")) {
			in_fde = false;
			continue;
		}
		for (w = strtok_r(line, " \t\n", &save); w && n < 24; w = strtok_r(NULL, " \t\n", &save)) {
			paren |= w[0] == '(';
			tok[n++] = w;
		}
		if (!in_fde || n < 2)
			continue;
		if (!strcmp(tok[0], "LOC")) {
			rbp_col = ra_col = -1;
			cols = n;
			for (int i = 0; i < n; i++) {
				if (!strcmp(tok[i], "rbp"))
					rbp_col = i;
				if (!strcmp(tok[i], "ra"))
					ra_col = i;
			}
			continue;
		}
		/* a row of the table (16 hex digits); rules naming a register skipped */
		if (n != cols || ra_col < 0 || paren || strlen(tok[0]) != 16 ||
		    strspn(tok[0], "0123456789abcdef") != 16)
			continue;
		{
			unsigned long long loc = strtoull(tok[0], NULL, 16);
			const struct unw_row *r = unw_table__find(&t, loc);
			int off, rbp = 0;
			char reg[8];

			assert_non_null(r);
			c->rows++;
			if (getenv("UNWIND_TEST_DEBUG"))
				print_message("# %s -> row %x kind %d cfa %d rbp %d\n", line, r->pc,
					      r->kind, r->cfa_off8 * 8, r->rbp_off8 * 8);
			if (!strcmp(tok[ra_col], "u")) {
				assert_int_equal(r->kind, UNW_END);
				continue;
			}
			if (!strcmp(tok[1], "exp")) {
				/* the lazy PLT's expression, or one BPF leaves to frame pointers */
				c->exprs++;
				assert_true(r->kind == UNW_PLT || r->kind == UNW_FP);
				continue;
			}
			assert_int_equal(sscanf(tok[1], "%3[a-z]%d", reg, &off), 2);
			if (!saved_at(tok[ra_col], &off) || off != -8) {
				assert_int_equal(r->kind, UNW_FP);
				continue;
			}
			sscanf(tok[1], "%3[a-z]%d", reg, &off);
			if (!strcmp(reg, "rsp"))
				assert_int_equal(r->kind, UNW_CFA_RSP);
			else if (!strcmp(reg, "rbp"))
				assert_int_equal(r->kind, UNW_CFA_RBP);
			else {
				assert_int_equal(r->kind, UNW_FP);
				continue;
			}
			assert_int_equal(r->cfa_off8 * 8, off);
			if (rbp_col >= 0 && saved_at(tok[rbp_col], &rbp))
				assert_int_equal(r->rbp_off8 * 8, rbp);
			else
				assert_int_equal(r->rbp_off8, 0);
		}
	}
	/* readelf exits 1 on warnings about other sections of libc: the rows count */
	assert_int_not_equal(pclose(p), -1);
	print_message("# %s: %u rows of %u FDEs agree with readelf (%u expressions); table %u rows\n",
		      path, c->rows, c->fdes, c->exprs, t.n);
	unw_table__free(&t);
}

static void test_xz(void **state)
{
	struct checked c;

	(void)state;
	check_file("/usr/bin/xz", &c);
	assert_true(c.rows > 500);
}

static void test_liblzma(void **state)
{
	struct checked c;

	(void)state;
	check_file("/usr/lib/x86_64-linux-gnu/liblzma.so.5", &c);
	assert_true(c.rows > 1000);
	/* its .plt: the lazy stubs' expression, one PLT row */
	assert_true(c.exprs >= 1);
}

static void test_libc(void **state)
{
	struct checked c;

	(void)state;
	check_file("/usr/lib/x86_64-linux-gnu/libc.so.6", &c);
	assert_true(c.rows > 10000);
}

/*
 * A file linked by lld (LLVM's own library, which bpftrace, a test
 * package, brings): its .eh_frame and .eh_frame_hdr are of type
 * SHT_X86_64_UNWIND, not SHT_PROGBITS.
 */
static void test_lld(void **state)
{
	char path[256] = "", why[128];
	struct unw_table t;
	FILE *p;
	int fd;

	(void)state;
	p = popen("ls /usr/lib/x86_64-linux-gnu/libLLVM-*.so.1 2>/dev/null | head -1", "r");
	assert_non_null(p);
	if (!fgets(path, sizeof(path), p))
		path[0] = '\0';
	pclose(p);
	path[strcspn(path, "\n")] = '\0';
	if (!path[0]) {
		skip();
		return;
	}
	/* ~950,000 rows in all (0.44 s, 7.4 MiB, built -O2): the first 5,000 here */
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(unw_table__build(fd, 5000, &t, why, sizeof(why)), 0);
	close(fd);
	assert_true(t.capped);
	assert_int_equal(t.n, 5000);
	unw_table__free(&t);
}

/*
 * The test workload built -g without unwind tables: its own functions'
 * FDEs are in .debug_frame only, the C library's in .eh_frame; readelf
 * interprets both sections, and every row of both must agree.
 */
static void test_debug_frame(void **state)
{
	struct checked c;

	(void)state;
	check_file("build/tests/workloads-debugframe/profwl", &c);
	assert_true(c.rows > 1000);
}

/*
 * lzma_code, found by its dynamic symbol: at its first instruction the
 * CFA is rsp + 8 (the return address just pushed), and a row further in
 * has pushed registers (rsp + 16 or more): xz's frames go through it.
 */
static void test_lzma_code_rows(void **state)
{
	const char *lib = "/usr/lib/x86_64-linux-gnu/liblzma.so.5";
	char cmd[256], why[128];
	unsigned long long addr = 0;
	struct unw_table t;
	const struct unw_row *r;
	bool pushed = false;
	FILE *p;
	int fd = open(lib, O_RDONLY);

	(void)state;
	if (fd < 0) {
		skip();
		return;
	}
	snprintf(cmd, sizeof(cmd), "nm -D --defined-only '%s'", lib);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(cmd, sizeof(cmd), p)) {
		char type, name[64];
		unsigned long long a;

		/* "lzma_code@@XZ_5.0": the name before its version */
		if (sscanf(cmd, "%llx %c %63[^@\n]", &a, &type, name) == 3 && !strcmp(name, "lzma_code"))
			addr = a;
	}
	pclose(p);
	assert_true(addr != 0);
	assert_int_equal(unw_table__build(fd, 0, &t, why, sizeof(why)), 0);
	close(fd);
	r = unw_table__find(&t, addr);
	assert_non_null(r);
	assert_int_equal(r->kind, UNW_CFA_RSP);
	assert_int_equal(r->cfa_off8 * 8, 8);
	for (const struct unw_row *q = r + 1; q < t.rows + t.n && q->pc < addr + 64; q++)
		pushed |= q->kind == UNW_CFA_RSP && q->cfa_off8 * 8 >= 16;
	assert_true(pushed);
	unw_table__free(&t);
}

/* Truncations and byte flips of a real file: an error or a table, no crash. */
static void test_broken(void **state)
{
	struct unw_table t;
	char why[128];
	struct stat st;
	unsigned char *buf, *copy;
	int fd = open("/usr/bin/xz", O_RDONLY);
	unsigned int seed = 21;

	(void)state;
	if (fd < 0) {
		skip();
		return;
	}
	assert_int_equal(fstat(fd, &st), 0);
	buf = malloc(st.st_size);
	copy = malloc(st.st_size);
	assert_int_equal(read(fd, buf, st.st_size), st.st_size);
	close(fd);
	for (off_t len = 0; len < st.st_size; len += st.st_size / 37 + 1) {
		if (!unw_table__build_mem(buf, len, 0, &t, why, sizeof(why)))
			unw_table__free(&t);
	}
	for (int i = 0; i < 200; i++) {
		memcpy(copy, buf, st.st_size);
		for (int k = 0; k < 64; k++)
			copy[rand_r(&seed) % st.st_size] = rand_r(&seed);
		if (!unw_table__build_mem(copy, st.st_size, 0, &t, why, sizeof(why)))
			unw_table__free(&t);
	}
	/* the row cap holds, and says so */
	assert_int_equal(unw_table__build_mem(buf, st.st_size, 100, &t, why, sizeof(why)), 0);
	assert_true(t.capped);
	assert_true(t.n <= 100);
	/* and the rest of the file is marked unknown: frame pointers there */
	assert_int_equal(t.rows[t.n - 1].kind, UNW_NONE);
	assert_ptr_equal(unw_table__find(&t, 0xfffffff0), &t.rows[t.n - 1]);
	unw_table__free(&t);
	free(buf);
	free(copy);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xz),
		cmocka_unit_test(test_liblzma),
		cmocka_unit_test(test_libc),
		cmocka_unit_test(test_debug_frame),
		cmocka_unit_test(test_lld),
		cmocka_unit_test(test_lzma_code_rows),
		cmocka_unit_test(test_broken),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
