// SPDX-License-Identifier: GPL-2.0
/*
 * The symbolizer on binaries this test builds (a PIE executable, a shared
 * library, a stripped binary whose debug file is found by build-id or by
 * .gnu_debuglink, JIT code in /tmp/perf-PID.map, the vdso), names that
 * survive the process and its file, kallsyms on canned files (by address
 * and by name), the one sorted-array search (sorted.h), the broken
 * ELF corpus, and the stack printer's folded and multi-line forms.
 * Runs from the top of the tree (tests/run.sh); needs cc, objcopy, strip.
 */
#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "unit.h"
#include "abi/unwind_abi.h"
#include "syms/elfsyms.h"
#include "run/msg.h"
#include "syms/sorted.h"
#include "syms/stacks.h"
#include "syms/syms.h"

static char dir[] = "/tmp/bpflite-syms.XXXXXX";

static const char lib_c[] =
	"__attribute__((noinline)) int lib_fn(int x) { return x * 3 + 1; }\n";

/* Prints the addresses the test names, then waits for a line on stdin. */
static const char prog_c[] =
	"#include <stdio.h>\n#include <sys/mman.h>\n"
	"int lib_fn(int);\n"
	"__attribute__((noinline)) int pie_fn(int x) { return lib_fn(x) + 2; }\n"
	"int main(void) {\n"
	"  void *jit = mmap(0, 4096, PROT_READ|PROT_EXEC, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0);\n"
	"  char line[8];\n"
	"  printf(\"%p %p %p\\n\", (void *)pie_fn, (void *)lib_fn, jit); fflush(stdout);\n"
	"  if (!fgets(line, sizeof(line), stdin)) return 1;\n"
	"  return pie_fn(1) == 0;\n}\n";

/* hidden_fn is static: only .symtab (the debug file) names it. */
static const char stripped_c[] =
	"#include <stdio.h>\n"
	"static __attribute__((noinline)) int hidden_fn(int x) { return x + 5; }\n"
	"int main(void) {\n"
	"  char line[8];\n"
	"  printf(\"%p\\n\", (void *)hidden_fn); fflush(stdout);\n"
	"  if (!fgets(line, sizeof(line), stdin)) return 1;\n"
	"  return hidden_fn(1) == 0;\n}\n";

/* Two programs with one build-id but different functions. */
static const char twin_c[] =
	"#include <stdio.h>\n"
	"__attribute__((noinline)) int FN(int x) { return x + 7; }\n"
	"int main(void) {\n"
	"  char line[8];\n"
	"  printf(\"%p\\n\", (void *)FN); fflush(stdout);\n"
	"  if (!fgets(line, sizeof(line), stdin)) return 1;\n"
	"  return FN(1) == 0;\n}\n";

static void write_file(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (system(cmd) != 0)
		fail_msg("command failed: %s", cmd);
}

/* A running child, its stdin (to end it) and the addresses it printed. */
struct child {
	pid_t pid;
	FILE *in;
	unsigned long long addr[3];
};

static void child_start(struct child *c, const char *prog)
{
	int in[2], out[2];
	char line[256];
	FILE *f;

	assert_int_equal(pipe(in), 0);
	assert_int_equal(pipe(out), 0);
	c->pid = fork();
	if (c->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		/* the child is not sanitized: no ASan preload for it */
		unsetenv("LD_PRELOAD");
		execl(prog, prog, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	c->in = fdopen(in[1], "w");
	f = fdopen(out[0], "r");
	assert_non_null(fgets(line, sizeof(line), f));
	fclose(f);
	memset(c->addr, 0, sizeof(c->addr));
	sscanf(line, "%llx %llx %llx", &c->addr[0], &c->addr[1], &c->addr[2]);
}

static void child_end(struct child *c)
{
	int st;

	fputs("x\n", c->in);
	fclose(c->in);
	waitpid(c->pid, &st, 0);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	write_file("lib.c", lib_c);
	write_file("prog.c", prog_c);
	write_file("stripped.c", stripped_c);
	sh("cd %s && cc -O1 -g -fPIC -shared -Wl,--build-id lib.c -o libt.so", dir);
	sh("cd %s && cc -O1 -g -fPIE -pie -Wl,--build-id prog.c -L. -lt -Wl,-rpath,%s -o pie",
	   dir, dir);
	/* stripped + debug file by build-id */
	sh("cd %s && cc -O1 -g -Wl,--build-id stripped.c -o stripped && "
	   "objcopy --only-keep-debug stripped stripped.debug && strip --strip-all stripped", dir);
	/* stripped + debug file by .gnu_debuglink only (no build-id) */
	sh("cd %s && cc -O1 -g -Wl,--build-id=none stripped.c -o linked && "
	   "objcopy --only-keep-debug linked linked.dbg && strip --strip-all linked && "
	   "objcopy --add-gnu-debuglink=linked.dbg linked", dir);
	write_file("twin.c", twin_c);
	sh("cd %s && cc -O1 -DFN=twin_alpha_fn -Wl,--build-id=0x0123456789abcdef0123456789abcdef01234567 twin.c -o twin_a && "
	   "cc -O1 -DFN=twin_beta_fn -Wl,--build-id=0x0123456789abcdef0123456789abcdef01234567 twin.c -o twin_b", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sh("rm -rf %s", dir);
	return 0;
}

static const char *name(struct usyms *u, pid_t pid, unsigned long long a, bool off)
{
	static char buf[256];

	return usyms__name(u, pid, a, off, buf, sizeof(buf));
}

static void test_pie_and_shared_lib(void **state)
{
	struct usyms *u = usyms__new(0);
	char prog[256], path[256];
	struct child c;
	FILE *f;

	(void)state;
	snprintf(prog, sizeof(prog), "%s/pie", dir);
	child_start(&c, prog);
	/* JIT code named by /tmp/perf-PID.map, read at snapshot time */
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", c.pid);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%llx 40 jitted_fn\n", c.addr[2]);
	fclose(f);
	assert_int_equal(usyms__snapshot(u, c.pid), 0);
	unlink(path);

	assert_string_equal(name(u, c.pid, c.addr[0], false), "pie_fn");
	assert_string_equal(name(u, c.pid, c.addr[0] + 3, true), "pie_fn+0x3");
	assert_string_equal(name(u, c.pid, c.addr[1], false), "lib_fn");
	assert_string_equal(name(u, c.pid, c.addr[2] + 0x10, false), "jitted_fn");
	assert_string_equal(name(u, c.pid, c.addr[2] + 0x80, false), "[unknown]");
	assert_string_equal(name(u, c.pid, 0x10, false), "[unknown]");

	/* the process exits and its files go: the names stay */
	child_end(&c);
	snprintf(path, sizeof(path), "%s/libt.so", dir);
	unlink(path);
	unlink(prog);
	assert_string_equal(name(u, c.pid, c.addr[0], false), "pie_fn");
	assert_string_equal(name(u, c.pid, c.addr[1], false), "lib_fn");
	usyms__forget(u, c.pid);
	usyms__free(u);
	/* put them back for other tests */
	sh("cd %s && cc -O1 -g -fPIC -shared -Wl,--build-id lib.c -o libt.so && "
	   "cc -O1 -g -fPIE -pie prog.c -L. -lt -Wl,-rpath,%s -o pie", dir, dir);
}

/*
 * A JIT appends to its perf map: code compiled after the first read is
 * named on a lookup that misses (the map is read again from where it was
 * left, a line not yet ended waits); the later of two entries for one
 * address wins; the memory the maps take keeps to half the budget.
 */
static void test_perf_map_grows(void **state)
{
	struct usyms *u = usyms__new(0), *small;
	char prog[256], path[256];
	unsigned long long a;
	struct child c;
	FILE *f;
	int i;

	(void)state;
	snprintf(prog, sizeof(prog), "%s/pie", dir);
	child_start(&c, prog);
	a = c.addr[2];
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", c.pid);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%llx 40 jit_early\n", a);
	fflush(f);
	assert_int_equal(usyms__snapshot(u, c.pid), 0);
	assert_string_equal(name(u, c.pid, a + 0x10, false), "jit_early");
	assert_string_equal(name(u, c.pid, a + 0x110, false), "[unknown]");
	/* compiled later: one whole line, one still being written */
	fprintf(f, "%llx 40 jit_late\n%llx 40 jit_half", a + 0x100, a + 0x200);
	fflush(f);
	assert_string_equal(name(u, c.pid, a + 0x110, false), "jit_late");
	assert_string_equal(name(u, c.pid, a + 0x210, false), "[unknown]");
	/* the line ends; the same address compiled again: the later entry wins */
	fprintf(f, "_done\n%llx 40 jit_again\n", a + 0x300);
	fprintf(f, "%llx 40 jit_again2\n", a + 0x300);
	fflush(f);
	assert_string_equal(name(u, c.pid, a + 0x210, false), "jit_half_done");
	assert_string_equal(name(u, c.pid, a + 0x310, false), "jit_again2");
	usyms__free(u);

	/* 100,000 entries against a 256 KiB budget: read up to 128 KiB, no more */
	small = usyms__new(256 << 10);
	for (i = 0; i < 100000; i++)
		fprintf(f, "%llx 10 jit_fn_number_%d\n", a + 0x1000 + 16ull * i, i);
	fclose(f);
	assert_int_equal(usyms__snapshot(small, c.pid), 0);
	assert_string_equal(name(small, c.pid, a + 0x1000, false), "jit_fn_number_0");
	assert_true(usyms__cache_bytes(small) <= (256 << 10));
	assert_string_equal(name(small, c.pid, a + 0x1000 + 16ull * 99999, false), "[unknown]");
	usyms__free(small);
	unlink(path);
	child_end(&c);
}

static bool keep_none(pid_t tgid, void *ctx)
{
	(void)tgid;
	(void)ctx;
	return false;
}

static bool keep_all(pid_t tgid, void *ctx)
{
	(void)tgid;
	(void)ctx;
	return true;
}

static void test_exited_before_lookup(void **state)
{
	struct usyms *u = usyms__new(0);
	char prog[256];
	struct child c;

	(void)state;
	snprintf(prog, sizeof(prog), "%s/pie", dir);
	child_start(&c, prog);
	assert_int_equal(usyms__snapshot(u, c.pid), 0);
	assert_int_equal(usyms__snapshot(u, getpid()), 0);
	assert_int_equal(usyms__count(u), 2);
	child_end(&c);
	/* pruning keeps the living, and the dead still wanted */
	usyms__prune(u, keep_all, NULL);
	assert_int_equal(usyms__count(u), 2);
	/* the symbols were never loaded while it lived */
	assert_string_equal(name(u, c.pid, c.addr[0], false), "pie_fn");
	usyms__prune(u, keep_none, NULL);
	assert_int_equal(usyms__count(u), 1);
	assert_string_equal(name(u, c.pid, c.addr[0], false), "[unknown]");
	/* never seen alive: nothing to go on, but no frame vanishes */
	assert_string_equal(name(u, 999999999, 0x401000, false), "[unknown]");
	usyms__free(u);
}

static void test_debug_file_by_build_id(void **state)
{
	char prog[256], id[2 * ELFSYMS_BUILD_ID_MAX + 1], dbg[256];
	struct elf_syms *e;
	struct usyms *u;
	struct child c;
	const char *n;
	int fd;

	(void)state;
	snprintf(prog, sizeof(prog), "%s/stripped", dir);
	fd = open(prog, O_RDONLY);
	assert_true(fd >= 0);
	e = elf_syms__load_fd(fd);
	close(fd);
	assert_non_null(e);
	assert_false(e->has_symtab);
	elf_syms__build_id_hex(e, id, sizeof(id));
	elf_syms__free(e);
	assert_true(strlen(id) >= 16);

	/* without the debug file: module+offset, never nothing */
	child_start(&c, prog);
	u = usyms__new(0);
	usyms__set_debug_dir(u, "/nonexistent");
	n = name(u, c.pid, c.addr[0], false);
	assert_true(!strncmp(n, "stripped+0x", 11));
	usyms__free(u);

	snprintf(dbg, sizeof(dbg), "%s/debug/.build-id/%.2s", dir, id);
	sh("mkdir -p %s && cp %s/stripped.debug %s/%s.debug", dbg, dir, dbg, id + 2);
	u = usyms__new(0);
	snprintf(dbg, sizeof(dbg), "%s/debug", dir);
	usyms__set_debug_dir(u, dbg);
	assert_string_equal(name(u, c.pid, c.addr[0], false), "hidden_fn");
	child_end(&c);
	usyms__free(u);
}

static void test_debug_file_by_debuglink(void **state)
{
	char prog[256], dbg[256];
	struct usyms *u;
	struct child c;

	(void)state;
	snprintf(prog, sizeof(prog), "%s/linked", dir);
	/* DIR/<dir of the binary>/<debuglink name> */
	snprintf(dbg, sizeof(dbg), "%s/debug2%s", dir, dir);
	sh("mkdir -p %s && mv %s/linked.dbg %s/", dbg, dir, dbg);
	child_start(&c, prog);
	u = usyms__new(0);
	snprintf(dbg, sizeof(dbg), "%s/debug2", dir);
	usyms__set_debug_dir(u, dbg);
	assert_string_equal(name(u, c.pid, c.addr[0], false), "hidden_fn");
	child_end(&c);
	usyms__free(u);
}

static void test_vdso(void **state)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	struct elf_syms *e;
	struct usyms *u;
	size_t i;

	(void)state;
	if (!base)
		skip();
	e = elf_syms__load_mem((void *)base, 8192);
	assert_non_null(e);
	assert_true(e->nr > 0);
	u = usyms__new(0);
	for (i = 0; i < e->nr; i++)
		assert_string_equal(name(u, getpid(), base + e->syms[i].addr, false),
				    e->strs + e->syms[i].name);
	usyms__free(u);
	elf_syms__free(e);
}

static void test_memory_bound(void **state)
{
	struct usyms *all = usyms__new(0), *u = usyms__new(1);	/* 1: evict all but the last */
	size_t pie, lib;
	char prog[256];
	struct child c;
	int i;

	(void)state;
	snprintf(prog, sizeof(prog), "%s/pie", dir);
	child_start(&c, prog);
	/* unbounded: the sizes of the program's and the library's tables */
	assert_string_equal(name(all, c.pid, c.addr[0], false), "pie_fn");
	pie = usyms__cache_bytes(all);
	assert_string_equal(name(all, c.pid, c.addr[1], false), "lib_fn");
	lib = usyms__cache_bytes(all) - pie;
	assert_true(pie > 0 && lib > 0);
	/* bounded: only the table in use stays, and names still come */
	for (i = 0; i < 3; i++) {
		assert_string_equal(name(u, c.pid, c.addr[0], false), "pie_fn");
		assert_int_equal(usyms__cache_bytes(u), pie);
		assert_string_equal(name(u, c.pid, c.addr[1], false), "lib_fn");
		assert_int_equal(usyms__cache_bytes(u), lib);
	}
	child_end(&c);
	usyms__free(u);
	usyms__free(all);
}

/*
 * Two different files that claim one build-id (anyone can write any
 * build-id): each process's names come from its own file.
 */
static void test_same_build_id_not_shared(void **state)
{
	struct usyms *u = usyms__new(0);
	char a[256], b[256];
	struct child ca, cb;

	(void)state;
	snprintf(a, sizeof(a), "%s/twin_a", dir);
	snprintf(b, sizeof(b), "%s/twin_b", dir);
	child_start(&ca, a);
	child_start(&cb, b);
	assert_string_equal(name(u, ca.pid, ca.addr[0], false), "twin_alpha_fn");
	assert_string_equal(name(u, cb.pid, cb.addr[0], false), "twin_beta_fn");
	child_end(&ca);
	child_end(&cb);
	usyms__free(u);
}

/*
 * A crafted ELF: nsyms function symbols that all share one name of
 * name_len bytes in .strtab (the file stays small: ~24 bytes a symbol),
 * or with distinct names ("A...A<index>", name_len bytes each).
 */
static int crafted_elf(size_t nsyms, size_t name_len, bool distinct)
{
	static const char shstr[] = "\0.text\0.symtab\0.strtab\0.shstrtab";
	size_t symoff = 4096, strsz = 1 + (name_len + 1) * (distinct ? nsyms : 1), stroff;
	size_t shstroff, shoff, i;
	Elf64_Ehdr eh = { 0 };
	Elf64_Shdr sh[5] = { { 0 } };
	char *name;
	int fd = memfd_create("crafted", 0);

	assert_true(fd >= 0);
	stroff = symoff + (nsyms + 1) * sizeof(Elf64_Sym);
	shstroff = stroff + strsz;
	shoff = (shstroff + sizeof(shstr) + 7) & ~7UL;
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_EXEC;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_ehsize = sizeof(eh);
	eh.e_shoff = shoff;
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = 5;
	eh.e_shstrndx = 4;
	sh[1] = (Elf64_Shdr){ .sh_name = 1, .sh_type = SHT_NOBITS, .sh_flags = SHF_ALLOC | SHF_EXECINSTR,
			      .sh_addr = 0x400000, .sh_size = nsyms * 16 };
	sh[2] = (Elf64_Shdr){ .sh_name = 7, .sh_type = SHT_SYMTAB, .sh_offset = symoff,
			      .sh_size = (nsyms + 1) * sizeof(Elf64_Sym), .sh_link = 3, .sh_info = 1,
			      .sh_entsize = sizeof(Elf64_Sym), .sh_addralign = 8 };
	sh[3] = (Elf64_Shdr){ .sh_name = 15, .sh_type = SHT_STRTAB, .sh_offset = stroff, .sh_size = strsz };
	sh[4] = (Elf64_Shdr){ .sh_name = 23, .sh_type = SHT_STRTAB, .sh_offset = shstroff,
			      .sh_size = sizeof(shstr) };
	assert_int_equal(pwrite(fd, &eh, sizeof(eh), 0), sizeof(eh));
	for (i = 0; i < nsyms; i++) {
		Elf64_Sym sym = { .st_name = 1 + (distinct ? i * (name_len + 1) : 0), .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
				  .st_shndx = 1, .st_value = 0x400000 + i * 16, .st_size = 16 };

		assert_int_equal(pwrite(fd, &sym, sizeof(sym), symoff + (i + 1) * sizeof(sym)),
				 sizeof(sym));
	}
	name = calloc(1, strsz);
	for (i = 0; i < (distinct ? nsyms : 1); i++) {
		char *n = name + 1 + i * (name_len + 1);

		memset(n, 'A', name_len);
		if (distinct)
			snprintf(n + name_len - 8, 9, "%08u", (unsigned int)(i % 100000000));
	}
	assert_int_equal(pwrite(fd, name, strsz, stroff), (ssize_t)strsz);
	free(name);
	assert_int_equal(pwrite(fd, shstr, sizeof(shstr), shstroff), sizeof(shstr));
	assert_int_equal(pwrite(fd, sh, sizeof(sh), shoff), sizeof(sh));
	return fd;
}

/* 200,000 symbols sharing one 1,000-byte name: names are interned. */
static void test_many_symbols_one_name(void **state)
{
	struct elf_syms *e;
	__u64 off;
	const char *n;
	int fd = crafted_elf(200000, 1000, false);

	(void)state;
	e = elf_syms__load_fd(fd);
	close(fd);
	assert_non_null(e);
	assert_int_equal(e->nr, 200000);
	n = elf_syms__find(e, 0x400000 + 1234 * 16 + 3, &off);
	assert_non_null(n);
	assert_int_equal(strlen(n), 1000);
	assert_int_equal(off, 3);
	/* 24 bytes a symbol and one copy of the name, not 200 MB */
	assert_true(e->bytes < 8u << 20);
	assert_false(e->truncated);
	elf_syms__free(e);

	/* under a smaller budget: what fits, never more */
	fd = crafted_elf(200000, 1000, false);
	e = elf_syms__load_fd_max(fd, 1u << 20);
	close(fd);
	assert_non_null(e);
	assert_true(e->truncated);
	assert_true(e->nr > 10000);
	assert_true(e->bytes <= 1u << 20);
	elf_syms__free(e);

	/* a merge into a table that already holds many names */
	struct elf_syms *dst, *src;

	fd = crafted_elf(3000, 16, true);
	dst = elf_syms__load_fd(fd);
	close(fd);
	fd = crafted_elf(10, 1000, false);
	src = elf_syms__load_fd(fd);
	close(fd);
	assert_non_null(dst);
	assert_non_null(src);
	assert_int_equal(dst->nr, 3000);
	assert_int_equal(elf_syms__merge(dst, src), 0);
	assert_int_equal(dst->nr, 3000);	/* same addresses: one symbol each */
	n = elf_syms__find(dst, 0x400000 + 2999 * 16, &off);
	assert_non_null(n);
	assert_string_equal(n, "AAAAAAAA00002999");
	elf_syms__free(src);
	elf_syms__free(dst);
}

static char *kallsyms_file(const char *text)
{
	static char path[256];

	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	write_file("kallsyms", text);
	return path;
}

static void test_kallsyms(void **state)
{
	struct ksyms *k;

	(void)state;
	k = ksyms__load_file(kallsyms_file(
		"ffffffff81000300 T schedule\n"
		"ffffffff81000100 t do_nanosleep\n"
		"ffffffff81000200 D some_data\n"
		"ffffffff81000400 t mod_fn\t[mod]\n"
		"garbage line\n"
		"ffffffff81000000 T _stext\n"));
	assert_non_null(k);
	assert_false(ksyms__restricted(k));
	assert_string_equal(ksyms__find(k, 0xffffffff81000150)->name, "do_nanosleep");
	/* data symbols are not code: do_nanosleep still covers 0x200 */
	assert_string_equal(ksyms__find(k, 0xffffffff81000200)->name, "do_nanosleep");
	assert_string_equal(ksyms__find(k, 0xffffffff81000300)->name, "schedule");
	assert_string_equal(ksyms__find(k, 0xffffffff81000500)->name, "mod_fn");
	assert_null(ksyms__find(k, 0xffffffff80000000));
	/* by name: code only, as by address */
	assert_int_equal(ksyms__find_name(k, "schedule")->addr, 0xffffffff81000300);
	assert_int_equal(ksyms__find_name(k, "mod_fn")->addr, 0xffffffff81000400);
	assert_null(ksyms__find_name(k, "some_data"));
	assert_null(ksyms__find_name(k, "sched"));
	assert_null(ksyms__find_name(NULL, "schedule"));
	ksyms__free(k);

	/* only the symbols naming the addresses asked for */
	{
		unsigned long want[] = { 0xffffffff81000550, 0xffffffff81000150, 0xffffffff80000000 };

		k = ksyms__load_file_for(kallsyms_file(
			"ffffffff81000000 T _stext\n"
			"ffffffff81000100 t do_nanosleep\n"
			"ffffffff81000300 T schedule\n"
			"ffffffff81000400 t mod_fn\t[mod]\n"
			"ffffffff81000500 t last_fn\n"), want, 3);
		assert_non_null(k);
		assert_string_equal(ksyms__find(k, 0xffffffff81000150)->name, "do_nanosleep");
		assert_string_equal(ksyms__find(k, 0xffffffff81000550)->name, "last_fn");
		assert_null(ksyms__find(k, 0xffffffff80000000));
		/* schedule was not asked for: do_nanosleep now covers its address */
		assert_string_equal(ksyms__find(k, 0xffffffff81000300)->name, "do_nanosleep");
		ksyms__free(k);
		k = ksyms__load_file_for(kallsyms_file("ffffffff81000000 T _stext\n"), NULL, 0);
		assert_non_null(k);
		assert_null(ksyms__find(k, 0xffffffff81000010));
		ksyms__free(k);
	}

	k = ksyms__load_file(kallsyms_file(
		"0000000000000000 T schedule\n0000000000000000 t do_nanosleep\n"));
	assert_non_null(k);
	assert_true(ksyms__restricted(k));
	assert_null(ksyms__find(k, 0xffffffff81000150));
	assert_null(ksyms__find_name(k, "schedule"));
	ksyms__free(k);
	assert_null(ksyms__load_file("/nonexistent"));
}

struct row64 { __u32 tag; __u64 addr; };
struct row32 { __s16 a; __u16 b; __u32 pc; __u8 kind; };

/* The last index whose key is <= key, or -1: what every caller means. */
static long last_le_ref(const __u64 *keys, size_t n, __u64 key)
{
	long r = -1;

	for (size_t i = 0; i < n && keys[i] <= key; i++)
		r = i;
	return r;
}

/*
 * sorted.h's one search: empty, below the first, ties (the last of them),
 * past the last, 32- and 64-bit keys not first in their struct, against a
 * linear scan on random sorted arrays with runs of equal keys.
 */
static void test_sorted(void **state)
{
	struct row64 r64[64] = {
		{ 0, 10 }, { 1, 20 }, { 2, 20 }, { 3, 20 }, { 4, 30 }, { 5, ~0ULL },
	};
	struct row32 r32[64];
	__u64 keys[64];

	(void)state;
	assert_null(SORTED_LAST_LE((struct row64 *)NULL, 0, addr, 5));
	assert_null(SORTED_LAST_LE(r64, 0, addr, 100));
	assert_null(SORTED_LAST_LE(r64, 5, addr, 9));
	assert_int_equal(SORTED_LAST_LE(r64, 5, addr, 10)->tag, 0);
	assert_int_equal(SORTED_LAST_LE(r64, 5, addr, 19)->tag, 0);
	assert_int_equal(SORTED_LAST_LE(r64, 5, addr, 20)->tag, 3);
	assert_int_equal(SORTED_LAST_LE(r64, 5, addr, 29)->tag, 3);
	assert_int_equal(SORTED_LAST_LE(r64, 5, addr, ~0ULL)->tag, 4);
	assert_int_equal(SORTED_LAST_LE(r64, 6, addr, ~0ULL)->tag, 5);
	assert_int_equal(SORTED_LAST_LE(r64, 6, addr, ~0ULL - 1)->tag, 4);
	assert_int_equal(SORTED_LAST_LE(r64, 1, addr, 10)->tag, 0);

	srand(7);
	for (int round = 0; round < 2000; round++) {
		size_t n = rand() % 64, i;
		__u64 k = rand() % 4;

		for (i = 0; i < n; i++) {
			k += rand() % 3 ? rand() % 4 : 0;	/* runs of equal keys */
			keys[i] = k;
			r64[i] = (struct row64){ i, k };
			r32[i] = (struct row32){ -1, 0xffff, k, i };
		}
		for (__u64 key = 0; key < k + 3; key++) {
			long want = last_le_ref(keys, n, key);
			const struct row64 *a = SORTED_LAST_LE(r64, n, addr, key);
			const struct row32 *b = SORTED_LAST_LE(r32, n, pc, key);

			assert_int_equal(a ? (long)(a - r64) : -1, want);
			assert_int_equal(b ? (long)(b - r32) : -1, want);
		}
		/* a 64-bit key above every 32-bit field: the last row */
		assert_int_equal(n ? (long)(SORTED_LAST_LE(r32, n, pc, 1ULL << 32) - r32) : -1,
				 (long)n - 1);
	}
}

/* Every file of the broken-ELF corpus: an error or symbols, no crash. */
static void test_corpus(void **state)
{
	struct dirent *de;
	int n = 0;
	DIR *d;

	(void)state;
	d = opendir("tests/unit/corpus");
	assert_non_null(d);
	while ((de = readdir(d))) {
		char path[512], buf[65536];
		struct elf_syms *e;
		__u64 off, va, symoff;
		ssize_t len;
		int fd;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "tests/unit/corpus/%s", de->d_name);
		fd = open(path, O_RDONLY);
		assert_true(fd >= 0);
		e = elf_syms__load_fd(fd);
		if (e) {
			for (off = 0; off < 0x3000; off += 0x100)
				if (elf_syms__vaddr(e, off, &va))
					elf_syms__find(e, va, &symoff);
			elf_syms__free(e);
		}
		len = pread(fd, buf, sizeof(buf), 0);
		close(fd);
		assert_true(len >= 0);
		e = elf_syms__load_mem(buf, len);
		elf_syms__free(e);
		n++;
	}
	closedir(d);
	assert_true(n >= 10);
}

static void test_folded_and_multiline(void **state)
{
	static const __u64 kips[] = { 0xffffffff81000010, 0xffffffff81000110, 0xffffffff81000210,
				      0xffffffff81000310, 0xffffffff81000410 };
	struct stack_printer p = { 0 };
	struct stack k = { kips, 5, false }, none = { NULL, 0, false }, missed = { NULL, 0, true };
	struct usyms *u = usyms__new(0);
	char prog[256], expect[1024];
	struct capture cap;
	struct child c;
	__u64 uips[2];

	(void)state;
	p.ksyms = ksyms__load_file(kallsyms_file(
		"ffffffff81000000 t bpf_prog_6deef7357e7b4530_sched_switch_btf\n"
		"ffffffff81000100 T bpf_trace_run4\n"
		"ffffffff81000200 t __bpf_trace_sched_switch\n"
		"ffffffff81000300 T __schedule\n"
		"ffffffff81000400 T do_nanosleep\n"
		"ffffffff81000500 T evil;\x1b[2J\xff\n"));
	p.usyms = u;
	snprintf(prog, sizeof(prog), "%s/pie", dir);
	child_start(&c, prog);
	uips[0] = c.addr[1] + 1;	/* leaf: lib_fn, called by pie_fn */
	uips[1] = c.addr[0] + 1;
	struct stack us = { uips, 2, false };

	capture_open(&cap);
	p.folded = true;
	stacks__print(&p, cap.f, "a;b", c.pid, c.pid, &k, &us, 1234);
	p.delimiter = true;
	p.kernel_suffix = true;
	stacks__print(&p, cap.f, "wl", c.pid, c.pid, &k, &us, 5);
	stacks__print(&p, cap.f, "wl", c.pid, c.pid, &missed, &missed, 6);
	stacks__print(&p, cap.f, "kthread", c.pid, c.pid, &k, &none, 7);
	stacks__print(&p, cap.f, "wl", c.pid, c.pid, NULL, &us, 8);
	/* the unwinder's marks print as marks, not as the frame before them */
	struct stack cut = { (const __u64[]){ uips[0], uips[1], UNW_MARK_ERROR }, 3, false };
	struct stack deep = { (const __u64[]){ uips[0], UNW_MARK_TRUNCATED }, 2, false };

	stacks__print(&p, cap.f, "wl", c.pid, c.pid, NULL, &cut, 10);
	stacks__print(&p, cap.f, "wl", c.pid, c.pid, NULL, &deep, 11);
	assert_string_equal(capture_text(&cap),
		"a\\x3bb;pie_fn;lib_fn;do_nanosleep;__schedule 1234\n"
		"wl;pie_fn;lib_fn;-;do_nanosleep_[k];__schedule_[k] 5\n"
		"wl;[missed user stack];[missed kernel stack] 6\n"
		"kthread;do_nanosleep_[k];__schedule_[k] 7\n"
		"wl;pie_fn;lib_fn 8\n"
		"wl;[unwind error];pie_fn;lib_fn 10\n"
		"wl;[truncated];lib_fn 11\n");
	capture_close(&cap);

	capture_open(&cap);
	p.folded = false;
	p.delimiter = false;
	stacks__print(&p, cap.f, "wl", c.pid, c.pid + 1, &k, &us, 1234);
	p.delimiter = true;
	stacks__print(&p, cap.f, "wl", c.pid, c.pid, &missed, &us, 9);
	snprintf(expect, sizeof(expect),
		 "    __schedule\n    do_nanosleep\n    lib_fn\n    pie_fn\n"
		 "    -                wl (%d)\n        1234\n\n"
		 "    [missed kernel stack]\n    --\n    lib_fn\n    pie_fn\n"
		 "    -                wl (%d)\n        9\n\n", c.pid + 1, c.pid);
	assert_string_equal(capture_text(&cap), expect);
	capture_close(&cap);

	/* untrusted comm and frame names: escaped, a line stays a line */
	struct stack evil = { (const __u64[]){ 0xffffffff81000510 }, 1, false };

	capture_open(&cap);
	p.folded = true;
	p.kernel_suffix = false;
	stacks__print(&p, cap.f, "x\n;y", c.pid, c.pid, &evil, NULL, 3);
	p.folded = false;
	stacks__print(&p, cap.f, "x\n;y", c.pid, c.pid, &evil, NULL, 3);
	snprintf(expect, sizeof(expect),
		 "x\\n\\x3by;evil\\x3b\\x1b[2J\\xff 3\n"
		 "    evil;\\x1b[2J\\xff\n    -                x\\n;y (%d)\n        3\n\n", c.pid);
	assert_string_equal(capture_text(&cap), expect);
	capture_close(&cap);
	child_end(&c);
	ksyms__free(p.ksyms);
	usyms__free(u);
}

/* C++ and Rust names as c++filt prints them; anything else untouched */
static void test_demangle(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "_ZN8pkgCache7FindGrpEN3APT10StringViewE", "pkgCache::FindGrp(APT::StringView)" },
		{ "_ZN7bpflite6BurnerIiE4spinEm", "bpflite::Burner<int>::spin(unsigned long)" },
		{ "_ZNKSt6vectorIiSaIiEE4sizeEv", "std::vector<int, std::allocator<int> >::size() const" },
		/* Rust's legacy mangling: the hash left out, as perf and bcc print it */
		{ "_ZN3std2rt10lang_start17h0123456789abcdefE", "std::rt::lang_start" },
		/* Rust's v0 mangling */
		{ "_RNvNtCs1234_7mycrate3foo3bar", "mycrate::foo::bar" },
		/* not mangled, or not validly: as they are */
		{ "main", NULL },
		{ "_start", NULL },
		{ "_Zfoo", NULL },
		{ "_R", NULL },
		{ "", NULL },
	};
	char *d;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		d = syms__demangle(cases[i].in);
		if (cases[i].out) {
			assert_non_null(d);
			assert_string_equal(d, cases[i].out);
		} else {
			assert_null(d);
		}
		free(d);
	}
	syms_demangle = false;
	assert_null(syms__demangle("_ZN7bpflite6BurnerIiE4spinEm"));
	syms_demangle = true;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pie_and_shared_lib),
		cmocka_unit_test(test_perf_map_grows),
		cmocka_unit_test(test_exited_before_lookup),
		cmocka_unit_test(test_debug_file_by_build_id),
		cmocka_unit_test(test_debug_file_by_debuglink),
		cmocka_unit_test(test_vdso),
		cmocka_unit_test(test_memory_bound),
		cmocka_unit_test(test_kallsyms),
		cmocka_unit_test(test_sorted),
		cmocka_unit_test(test_corpus),
		cmocka_unit_test(test_folded_and_multiline),
		cmocka_unit_test(test_same_build_id_not_shared),
		cmocka_unit_test(test_many_symbols_one_name),
		cmocka_unit_test(test_demangle),
	};

	msg__init("test");
	return cmocka_run_group_tests_name("syms", tests, setup, teardown);
}
