/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Symbolization for every stack tool.
 *
 * Kernel: /proc/kallsyms, loaded lazily on the first lookup (never at
 * start-up), sorted, binary search. When every address reads 0
 * (kptr_restrict) ksyms__restricted() says so and stacks__ksyms()
 * (stacks.h), the one loader of the tools, prints the hint.
 *
 * User: /proc/PID/maps plus ELF .symtab/.dynsym through libelf; PIE and
 * shared libraries by file offset; separate debug files by build-id or
 * .gnu_debuglink under /usr/lib/debug; /tmp/perf-PID.map for JIT code;
 * files read through /proc/PID/root (other mount namespaces); the vdso.
 * usyms__snapshot() captures a process's mappings (and keeps its files
 * open) while it is alive, so its frames still get names after it exits.
 * ELF data are cached by file identity (build-id, else dev+inode), with a
 * memory bound. A frame that cannot be named is "module+0xoffset" (or
 * "[unknown]" with no mapping), never dropped.
 */
#ifndef BPFLITE_SYMS_H
#define BPFLITE_SYMS_H

#include <argp.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

struct ksyms;
struct usyms;

struct ksym {
	const char *name;
	unsigned long addr;
};

struct ksyms *ksyms__load(void);			/* /proc/kallsyms */
struct ksyms *ksyms__load_file(const char *path);	/* same format (tests) */
/*
 * Only the symbols that name one of addrs (n of them, any order): the
 * whole file is read but a few KiB kept instead of ~5 MB. For a report
 * that knows every kernel address it will print.
 */
struct ksyms *ksyms__load_for(const unsigned long *addrs, size_t n);
struct ksyms *ksyms__load_file_for(const char *path, const unsigned long *addrs, size_t n);
const struct ksym *ksyms__find(const struct ksyms *k, unsigned long addr);
/*
 * The symbol called name (of several, the lowest), or NULL: not in k
 * (ksyms__load_for() keeps only the symbols it needs), or restricted.
 * A scan of the whole table: for a few names once, not per event.
 */
const struct ksym *ksyms__find_name(const struct ksyms *k, const char *name);
bool ksyms__restricted(const struct ksyms *k);
void ksyms__free(struct ksyms *k);
/*
 * The running kernel's build-id (GNU build-id note of /sys/kernel/notes)
 * in hex into buf; 0 or -errno (-ENOENT: no such note).
 */
int ksyms__build_id(char *buf, size_t len);

/* max_bytes bounds the ELF symbol cache (0: a default of 64 MiB). */
struct usyms *usyms__new(size_t max_bytes);
/* Capture tgid's mappings now (idempotent; cheap when already known). */
int usyms__snapshot(struct usyms *u, pid_t tgid);
/*
 * Re-read tgid's mappings, replacing what was known (after an exec, or a
 * PID reused by a new process). 0 or -errno (the old snapshot stays).
 */
int usyms__refresh(struct usyms *u, pid_t tgid);
/*
 * Where separate debug files live (default /usr/lib/debug): build-id
 * files under DIR/.build-id/, .gnu_debuglink files under DIR/<dir of the
 * binary>/. Tests point it elsewhere.
 */
void usyms__set_debug_dir(struct usyms *u, const char *dir);
/*
 * After every poll: a process snapshotted as its dynamic loader mapped
 * its libraries (only the program and the loader mapped as code) is read
 * again until they are in (every 10 ms, for 2 s at most).
 */
void usyms__settle(struct usyms *u);
/* Is tgid's dynamic loader still mapping its libraries (as above)? */
bool usyms__loader_at_work(pid_t tgid);
/* Forget a process (its mappings), e.g. after its stacks were printed. */
void usyms__forget(struct usyms *u, pid_t tgid);
/* Processes known (alive or not). */
size_t usyms__count(const struct usyms *u);
/* Bytes of ELF symbol tables cached now (bounded by usyms__new's max_bytes). */
size_t usyms__cache_bytes(const struct usyms *u);
/*
 * Forget every process that has exited unless keep(tgid, ctx) says its
 * frames are still to be named: bounds memory over long runs with many
 * short-lived processes.
 */
void usyms__prune(struct usyms *u, bool (*keep)(pid_t tgid, void *ctx), void *ctx);
/*
 * Name addr in tgid: "func" (with offset "func+0x1a" when with_offset),
 * else "module+0xoffset", else "[unknown]". Snapshots tgid on first use.
 * Returns buf.
 */
const char *usyms__name(struct usyms *u, pid_t tgid, __u64 addr, bool with_offset,
			char *buf, size_t len);
/*
 * usyms__name() prints C++ (Itanium) and Rust (legacy and v0) names
 * demangled, as perf and bcc do, unless --no-demangle (syms__argp, given
 * to opts__module()) cleared syms_demangle.
 */
extern bool syms_demangle;
extern const struct argp syms__argp;
/* name demangled (to free()), or NULL: not mangled, unreadable, or demangling off. */
char *syms__demangle(const char *name);
/*
 * The executable mapping addr falls in, in tgid: for profiles that list
 * modules (pprof). path is as /proc/PID/maps names it ("[vdso]" for the
 * vdso) and lives as long as the process is known; build_id is hex, ""
 * when the file has none or cannot be read. 0, or -ENOENT (no mapping,
 * or anonymous memory: JIT code).
 */
struct usyms_module {
	const char *path;
	__u64 start, end, pgoff;
	char build_id[129];
};
int usyms__module(struct usyms *u, pid_t tgid, __u64 addr, struct usyms_module *mod);
void usyms__free(struct usyms *u);

#endif
