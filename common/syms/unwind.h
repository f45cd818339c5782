/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user side of common/bpf/unwind.bpf.h: one table per file (keyed by
 * device, inode, size and mtime, so libc mapped by 500 processes is built
 * and stored once), one sorted list of executable mappings per process,
 * pushed into the BPF maps; and the stacks BPF stored, read back.
 */
#ifndef BPFLITE_UNWIND_H
#define BPFLITE_UNWIND_H

#include <stdbool.h>
#include <sys/types.h>
#include "abi/unwind_abi.h"

struct bpf_map;
struct stack;
struct usyms;
struct stack_addrs;
struct unwinder;
struct pyframes;

/* Kernel memory defaults (the maps' sizes, see unwinder__start()). */
#define UNW_ROWS_DEFAULT	(256u << 10)	/* 2 MiB of rows, system-wide */
#define UNW_PROCS_DEFAULT	128		/* 256 KiB of mapping lists */
#define UNW_STACKS_DEFAULT	2048		/* 4096 parts of 16 frames: ~600 KiB */

/* --unwind: frame pointers only, tables where a file has them, tables asked for. */
enum unw_mode { UNW_MODE_FP, UNW_MODE_AUTO, UNW_MODE_DWARF };

/* Parse --unwind (fp, auto, dwarf); anything else is a usage error (exit 2). */
enum unw_mode unwinder__mode(const char *arg);
/*
 * The mode a program of prog_type (enum bpf_prog_type) can have here:
 * mode, or UNW_MODE_FP where the kernel lacks bpf_loop() (5.17) or
 * bpf_task_pt_regs() (5.15), said as a warning for dwarf and under -v
 * for auto.
 */
enum unw_mode unwinder__choose(enum unw_mode mode, int prog_type);

/*
 * A skeleton's maps and settings of common/bpf/unwind.bpf.h, by their
 * names there, and its stack map (stacks, unused with tables).
 */
struct unw_bpf_maps {
	struct bpf_map *rows, *maps, *procs, *stacks, *remap, *fp_stacks;
	bool *tables;		/* cfg_unwind_tables */
	__u32 *nrows;		/* cfg_unw_rows */
};
#define UNW_BPF_MAPS(skel)							\
	(&(struct unw_bpf_maps){ (skel)->maps.unw_rows, (skel)->maps.unw_maps,		\
				 (skel)->maps.unw_procs, (skel)->maps.unw_stacks,	\
				 (skel)->maps.unw_remap, (skel)->maps.stacks, &(skel)->rodata->cfg_unwind_tables, \
				 &(skel)->rodata->cfg_unw_rows })
/* What a tool asks of --unwind. */
struct unw_start {
	enum unw_mode mode;	/* --unwind; UNW_MODE_FP when no user stack is taken */
	int prog_type;		/* the walking programs' (enum bpf_prog_type) */
	unsigned int nstacks;	/* stacks to hold, 0: the default */
	int *depth;		/* the depth printed: the walk's unless depth_set */
	bool depth_set;
};
/*
 * Before load: the mode the kernel allows (unwinder__choose()), returned;
 * for tables, the tables of -p/-t's process's files built (system-wide:
 * built as processes are queued), the maps sized for them and for what
 * appears later, the programs told, and the unwinder in *u (NULL, and
 * said, when out of memory: the tool fails).
 */
enum unw_mode unwinder__start(const struct unw_start *s, const struct unw_bpf_maps *m,
			      struct unwinder **u);
/* After load (u may be NULL): the maps' fds, and -p/-t's process's list pushed. */
void unwinder__attach(struct unwinder *u, const struct unw_bpf_maps *m);
/*
 * Before the load of a second object that walks the same processes
 * (profile-lite --off-cpu: offcputime's beside profile's), after
 * unwinder__attach() of the first: its maps of unwind.bpf.h are made u's
 * (bpf_map__reuse_fd()), so the tables are built and held once, its
 * stacks go to u's storage (read back by unwinder__stack()) and its
 * requests for new lists reach u; its settings are u's. Such an object is
 * loaded by libbpf's skeleton (the light loader creates every map
 * itself). u NULL (frame pointers): nothing. 0 or -errno, said.
 */
int unwinder__share(struct unwinder *u, const struct unw_bpf_maps *m);
void unwinder__free(struct unwinder *u);
/* Push pid's mappings (and any table not yet pushed). 0 or -errno. */
int unwinder__add_pid(struct unwinder *u, pid_t pid);
/*
 * From a ring buffer callback: add tgid later, by unwinder__drain() once
 * the callbacks of a poll are done (building tables never delays the
 * symbolizer's snapshots of short processes). A drain works while its
 * budget lasts: about a fifth of the wall time, 20 ms at a time; what is
 * left waits for the next one.
 */
void unwinder__queue(struct unwinder *u, pid_t tgid);
/*
 * A drain also takes the processes BPF found running code mapped after
 * their list was built (a library dlopen()ed since): their lists and
 * symbols are read again (u may be NULL; usyms is told, if set).
 */
void unwinder__drain(struct unwinder *u);
void unwinder__symbolizer(struct unwinder *u, struct usyms *usyms);
/*
 * The ring buffer callback of a stack tool that unwinds by tables: ctx a
 * struct unw_procsnap. procsnap__event() for the symbolizer, and the
 * process queued for its tables.
 */
struct unw_procsnap {
	struct usyms *usyms;
	struct unwinder *u;	/* NULL: frame pointers, nothing queued */
	struct pyframes *py;	/* --python: queued for its look too (python__queue()) */
};
int unwinder__procsnap_event(void *ctx, void *data, size_t len);
/*
 * -p PID, before "Tracing": the process's mappings read and its
 * interpreter looked at, so its first events (a thread started right
 * after) have their names and Python frames.
 */
void unwinder__procsnap_pid(const struct unw_procsnap *ps, pid_t pid);
/* Read stack id from unw_stacks into ips (max frames), as stacks__read(). */
int unwinder__read(struct unwinder *u, __s32 id, __u64 *ips, int max, struct stack *s);
/* The addresses of stacks ids in unw_stacks appended to a, as stacks__addrs(). */
int unwinder__addrs(struct unwinder *u, __s32 *ids, size_t n, struct stack_addrs *a);
/*
 * A stack tool's stacks, wherever they are: in u's storage (--unwind auto
 * or dwarf), else (u NULL) in the BPF stack map map_fd, as stacks__read()
 * and stacks__addrs() read them.
 */
int unwinder__stack(struct unwinder *u, int map_fd, __s32 id, __u64 *ips, int max,
		    struct stack *s);
int unwinder__stack_addrs(struct unwinder *u, int map_fd, __s32 *ids, size_t n, int depth,
			  struct stack_addrs *a);
/* -v: tables built, rows and bytes, fallbacks, and the walk's counters c. */
void unwinder__report(struct unwinder *u, const struct unw_counts *c);
/* The process of thread tid (0: gone). */
pid_t unwinder__tgid(pid_t tid);

#endif
