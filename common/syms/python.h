/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Python frames (--python): the user side of common/bpf/python.bpf.h.
 *
 * A process is a CPython we can read when one of its files (the
 * executable, or libpython3.X.so) exports _PyRuntime in .dynsym (read
 * with elfsyms.c), Py_Version (or the library's name) says a minor
 * version of the offsets table in python.c (3.10 to 3.13), and the
 * runtime checks out in its memory: the first interpreter's first thread
 * state points back at it and names a thread of the process. Then
 * py_procs gets the runtime's address and the offsets, and BPF records
 * each sample's Python frames. A process named python* that does not
 * check out is said once on stderr and gets native frames only.
 *
 * At report time a frame (code object, instruction offset) is named
 * "qualname (file.py:LINE)" from the process's memory (process_vm_readv:
 * co_qualname, co_filename, and the line from co_linetable), cached per
 * (process, code object); every read bounded; a code object that is not
 * one (freed, garbage) is "[python: code gone]", never a guess.
 *
 * Merging with the native stack (python__merge()): with tables
 * (--unwind auto|dwarf) each _PyEval_EvalFrameDefault frame gives way to
 * the run of Python frames it was evaluating (from the innermost to the
 * entry frame of that call), so C code shows between its Python caller
 * and callee. With frame pointers, whose walk does not get through the
 * eval loop, the Python stack is put above (leafward of) the native leaf.
 */
#ifndef BPFLITE_PYTHON_H
#define BPFLITE_PYTHON_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>
#include "abi/python_abi.h"

struct pyframes;
struct stack;
struct usyms;

/* A merged stack's room beyond the native depth: Python's frames and marks. */
#define PY_MERGED_EXTRA		(PY_MAX_FRAMES + 4)

/* A Python frame in a printed stack: the BPF word with bit 62 as a tag. */
#define PY_PRINT_TAG		(1ull << 62)
static inline bool python__is_frame(__u64 addr)
{
	return (addr >> 62) == 1;
}

struct pyframes *python__new(void);
void python__free(struct pyframes *py);
struct bpf_map;
/*
 * Python frames (*on; asked: --python given, not the default), before
 * load: bpf_loop() (5.17: both walks are loops) probed for programs of
 * type prog_type, else said (a warning when asked, else under -v) and *on
 * cleared; BPF's
 * py_procs and py_stacks sized (they keep one entry each when off). The
 * reader in *py, NULL when off; 0, or -ENOMEM (said).
 */
int python__open(bool *on, bool asked, int prog_type, struct bpf_map *procs,
		 struct bpf_map *stacks, struct pyframes **py);
/* After load: BPF's py_procs and py_stacks. */
void python__attach(struct pyframes *py, int procs_fd, int stacks_fd);
/*
 * Before the load of a second object that reads the same processes'
 * Python frames (profile-lite --off-cpu: offcputime's beside profile's),
 * after python__attach(): its py_procs and py_stacks are made py's
 * (bpf_map__reuse_fd()), so an interpreter is looked at once and both
 * objects' stacks are named from one store; its cfg_python is set by the
 * caller. py NULL: nothing. 0 or -errno, said.
 */
int python__share(struct pyframes *py, struct bpf_map *procs, struct bpf_map *stacks);
/*
 * Is pid a CPython we can read? Then its entry in py_procs (and -v says
 * which interpreter and offsets); 0, or -errno (-ENOENT: not a Python).
 */
int python__add_pid(struct pyframes *py, pid_t pid);
/* From a ring buffer callback: look at tgid at the next python__drain(). */
void python__queue(struct pyframes *py, pid_t tgid);
/* The queued processes looked at; ones not initialized yet again for 5 s. */
void python__drain(struct pyframes *py);
/*
 * The user stack us of tgid merged with its Python stack py_id into ips
 * (max frames), as *out: Python frames in place of the eval loop's with
 * replace_eval, else above the native leaf. usyms names the native frames.
 */
void python__merge(struct pyframes *py, struct usyms *usyms, pid_t tgid, __s32 py_id,
		   const struct stack *us, bool replace_eval, __u64 *ips, int max,
		   struct stack *out);
/*
 * From the tool's tick: the code objects of the stacks BPF stored since
 * named now, while their processes live (a short script is gone by the
 * report).
 */
void python__tick(struct pyframes *py);
/* "qualname (file.py:LINE)" of a tagged frame of tgid, or its mark, in buf. */
const char *python__name(struct pyframes *py, pid_t tgid, __u64 frame, char *buf, size_t len);
/*
 * The same in parts (pprof's fields): 0, or -ENOENT for a mark (func, and
 * file NULL). The strings are the code cache's: valid until the next call.
 */
struct python_loc {
	const char *func, *file;
	int line, first_line;
};
int python__loc(struct pyframes *py, pid_t tgid, __u64 frame, struct python_loc *loc);
/* -v: processes found, and the walk's counters c. */
void python__report(struct pyframes *py, const struct py_counts *c);

/* The line of instruction lasti (code units) in a 3.11+ location table; -1: none. */
int python__line311(const __u8 *table, size_t len, int firstlineno, __u32 lasti);
/* The same in a 3.10 line table (co_linetable's pairs). */
int python__line310(const __u8 *table, size_t len, int firstlineno, __u32 lasti);

#endif
