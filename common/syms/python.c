// SPDX-License-Identifier: GPL-2.0
/*
 * Python frames (python.h): finding CPython in a process, the offsets
 * table, naming code objects from the process's memory, and merging
 * Python frames into native stacks.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/uio.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "abi/unwind_abi.h"
#include "load/maps.h"
#include "run/msg.h"
#include "run/timefmt.h"
#include "syms/elfsyms.h"
#include "syms/python.h"
#include "syms/safeopen.h"
#include "syms/stackopts.h"
#include "syms/stacks.h"
#include "syms/syms.h"

/*
 * One minor version's layout. BPF's part (struct py_offsets) walks thread
 * states and frames; the rest is read here to name code objects.
 */
struct py_layout {
	int minor;
	struct py_offsets o;
	/* _PyRuntime starts with _Py_DebugOffsets (3.13) */
	bool debug_offsets;
	/* PyCodeObject */
	__u32 code_filename, code_qualname, code_firstlineno, code_linetable;
	/* PyObject, PyTypeObject, PyVarObject (bytes), PyASCIIObject */
	__u32 ob_type, tp_name, bytes_size, bytes_data;
	__u32 str_length, str_state, str_ascii_data, str_compact_data;
	const char *source;
};

/*
 * x86_64, release builds (no Py_DEBUG, not free-threaded). Each minor
 * version's offsets are offsetof()/sizeof() of its own headers, compiled
 * with Py_BUILD_CORE against pyenv's builds (3.10.13, 3.11.7, 3.12.1,
 * 3.13.0). 3.10: pycore_interp.h's tstate_head, cpython/pystate.h's
 * frame and thread_id, cpython/frameobject.h (PyFrameObject: f_back,
 * f_code, f_lasti); its code objects have no co_qualname (the name is
 * co_name's) and the older line table. 3.11+:
 * Include/internal/pycore_runtime.h (_PyRuntimeState.interpreters.head),
 * pycore_interp.h (threads.head),
 * cpython/pystate.h (struct _ts: next, interp, native_thread_id, cframe
 * or 3.13's current_frame; _PyCFrame.current_frame), pycore_frame.h
 * (_PyInterpreterFrame: f_code or 3.13's f_executable, previous,
 * prev_instr or 3.13's instr_ptr, 3.11's is_entry, 3.12+'s owner),
 * cpython/code.h (PyCodeObject: co_firstlineno, co_filename, co_qualname,
 * co_linetable, co_code_adaptive), cpython/unicodeobject.h
 * (PyASCIIObject, PyCompactUnicodeObject: 3.12 dropped wstr). The fields
 * do not move within a minor version (Debian's 3.11.2 checks out at
 * attach); 3.13's _Py_DebugOffsets, the interpreter's own word, is read
 * and must agree.
 */
static const struct py_layout layouts[] = {
	{
		.minor = 10,
		.o = {
			.runtime_interp_head = 32,
			.interp_threads_head = 8,
			.tstate_next = 8,
			.tstate_interp = 16,
			.tstate_native_tid = 176,
			.tstate_frame = 24,
			.cframe_current = PY_OFF_NONE,
			.frame_code = 32,
			.frame_previous = 24,
			.frame_prev_instr = 96,
			.frame_is_entry = PY_OFF_NONE,
			.frame_owner = PY_OFF_NONE,
			.code_units = 0,
			.flags = PY_O_PTHREAD_ID | PY_O_FRAME_OBJECTS,
		},
		.code_filename = 104, .code_qualname = 112, .code_firstlineno = 40,
		.code_linetable = 120,
		.ob_type = 8, .tp_name = 24, .bytes_size = 16, .bytes_data = 32,
		.str_length = 16, .str_state = 32, .str_ascii_data = 48, .str_compact_data = 72,
		.source = "CPython v3.10.x headers",
	},
	{
		.minor = 11,
		.o = {
			.runtime_interp_head = 40,
			.interp_threads_head = 16,
			.tstate_next = 8,
			.tstate_interp = 16,
			.tstate_native_tid = 160,
			.tstate_frame = 56,
			.cframe_current = 8,
			.frame_code = 32,
			.frame_previous = 48,
			.frame_prev_instr = 56,
			.frame_is_entry = 68,
			.frame_owner = PY_OFF_NONE,
			.code_units = 184,
		},
		.code_filename = 112, .code_qualname = 128, .code_firstlineno = 72,
		.code_linetable = 136,
		.ob_type = 8, .tp_name = 24, .bytes_size = 16, .bytes_data = 32,
		.str_length = 16, .str_state = 32, .str_ascii_data = 48, .str_compact_data = 72,
		.source = "CPython v3.11.x headers",
	},
	{
		.minor = 12,
		.o = {
			.runtime_interp_head = 40,
			.interp_threads_head = 72,
			.tstate_next = 8,
			.tstate_interp = 16,
			.tstate_native_tid = 144,
			.tstate_frame = 56,
			.cframe_current = 0,
			.frame_code = 0,
			.frame_previous = 8,
			.frame_prev_instr = 56,
			.frame_is_entry = PY_OFF_NONE,
			.frame_owner = 70,
			.code_units = 192,
		},
		.code_filename = 112, .code_qualname = 128, .code_firstlineno = 68,
		.code_linetable = 136,
		.ob_type = 8, .tp_name = 24, .bytes_size = 16, .bytes_data = 32,
		.str_length = 16, .str_state = 32, .str_ascii_data = 40, .str_compact_data = 56,
		.source = "CPython v3.12.x headers",
	},
	{
		.minor = 13,
		.o = {
			.runtime_interp_head = 632,
			.interp_threads_head = 7344,
			.tstate_next = 8,
			.tstate_interp = 16,
			.tstate_native_tid = 160,
			.tstate_frame = 72,
			.cframe_current = PY_OFF_NONE,
			.frame_code = 0,
			.frame_previous = 8,
			.frame_prev_instr = 56,
			.frame_is_entry = PY_OFF_NONE,
			.frame_owner = 70,
			.code_units = 200,
		},
		.debug_offsets = true,
		.code_filename = 112, .code_qualname = 128, .code_firstlineno = 68,
		.code_linetable = 136,
		.ob_type = 8, .tp_name = 24, .bytes_size = 16, .bytes_data = 32,
		.str_length = 16, .str_state = 32, .str_ascii_data = 40, .str_compact_data = 56,
		.source = "CPython v3.13.x headers, checked against its _Py_DebugOffsets",
	},
};

/* Bounds on what one process's memory may cost us. */
#define NAME_MAX_CHARS		256
#define LINETABLE_MAX		(64u << 10)
#define CODE_CACHE_MAX		65536	/* code objects named; then the cache starts again */
#define PENDING_NS		5000000000ull	/* an interpreter not yet initialized: looked at again */

enum py_state { PY_NONE, PY_OK, PY_PENDING };

struct py_procinfo {
	pid_t pid;
	enum py_state state;
	struct py_layout l;		/* has_l: the table's, or 3.13's own (_Py_DebugOffsets) */
	bool has_l;
	__u64 runtime;
	__u64 code_type;		/* the type "code" once seen: PyCode_Type */
	unsigned long long first_ns;	/* PY_PENDING: since */
	char path[256];
	int micro;			/* from Py_Version, -1 unknown */
	bool looked;			/* exe: what it ran when looked at */
	char exe[256];
};

struct py_code {
	pid_t pid;
	__u64 addr;
	bool bad;
	int firstlineno;
	char *qualname, *filename;
	__u8 *linetable;
	size_t lt_len;
};

struct pyframes {
	int procs_fd, stacks_fd;
	struct py_procinfo *procs;
	size_t nprocs, procs_cap;
	pid_t *queue;
	size_t nqueue, queue_cap;
	struct py_code *codes;		/* open addressing, CODE_CACHE_MAX * 2 slots */
	size_t ncodes;
	__u32 *named;			/* py_stacks ids whose code objects are cached */
	size_t nnamed;			/* open addressing, NAMED_SLOTS; id + 1, 0 empty */
	unsigned long long tick_at;
};
#define NAMED_SLOTS		(PY_STACKS_DEFAULT * 4)

/* len bytes of pid's memory at addr, all of them: 0, else -1. */
static int rd(pid_t pid, __u64 addr, void *buf, size_t len)
{
	struct iovec l = { buf, len }, r = { (void *)(uintptr_t)addr, len };

	if (!addr || addr + len < addr)
		return -1;
	return process_vm_readv(pid, &l, 1, &r, 1, 0) == (ssize_t)len ? 0 : -1;
}

static int rd64(pid_t pid, __u64 addr, __u64 *v)
{
	return rd(pid, addr, v, sizeof(*v));
}

struct pyframes *python__new(void)
{
	struct pyframes *py = calloc(1, sizeof(*py));

	if (!py)
		return NULL;
	py->procs_fd = py->stacks_fd = -1;
	py->codes = calloc(CODE_CACHE_MAX * 2, sizeof(*py->codes));
	py->named = calloc(NAMED_SLOTS, sizeof(*py->named));
	if (!py->codes || !py->named) {
		free(py->codes);
		free(py->named);
		free(py);
		return NULL;
	}
	return py;
}

static void code_clear(struct py_code *c)
{
	free(c->qualname);
	free(c->filename);
	free(c->linetable);
	memset(c, 0, sizeof(*c));
}

static void code_flush(struct pyframes *py)
{
	for (size_t i = 0; i < CODE_CACHE_MAX * 2; i++)
		code_clear(&py->codes[i]);
	py->ncodes = 0;
	memset(py->named, 0, NAMED_SLOTS * sizeof(*py->named));
	py->nnamed = 0;
}

void python__free(struct pyframes *py)
{
	if (!py)
		return;
	for (size_t i = 0; i < CODE_CACHE_MAX * 2; i++)
		code_clear(&py->codes[i]);
	free(py->codes);
	free(py->named);
	free(py->procs);
	free(py->queue);
	free(py);
}

int python__open(bool *on, bool asked, int prog_type, struct bpf_map *procs,
		 struct bpf_map *stacks, struct pyframes **py)
{
	*py = NULL;
	if (*on && libbpf_probe_bpf_helper(prog_type, BPF_FUNC_loop, NULL) != 1) {
		if (asked)
			msg__warn("--python needs bpf_loop() (Linux 5.17): no Python frames");
		else
			msg__verbose("python: no Python frames (no bpf_loop() before Linux 5.17)");
		*on = false;
	}
	if (!*on)
		return 0;
	bpf_map__set_max_entries(procs, PY_PROCS_DEFAULT);
	bpf_map__set_max_entries(stacks, PY_STACKS_DEFAULT);
	*py = python__new();
	if (!*py) {
		msg__fail(-ENOMEM, "set up --python");
		return -ENOMEM;
	}
	return 0;
}

void python__attach(struct pyframes *py, int procs_fd, int stacks_fd)
{
	py->procs_fd = procs_fd;
	py->stacks_fd = stacks_fd;
}

int python__share(struct pyframes *py, struct bpf_map *procs, struct bpf_map *stacks)
{
	if (!py)
		return 0;
	return map__share(procs, py->procs_fd, "Python") ?:
	       map__share(stacks, py->stacks_fd, "Python");
}

static struct py_procinfo *proc_find(struct pyframes *py, pid_t pid)
{
	for (size_t i = 0; i < py->nprocs; i++)
		if (py->procs[i].pid == pid)
			return &py->procs[i];
	return NULL;
}

static struct py_procinfo *proc_get(struct pyframes *py, pid_t pid)
{
	struct py_procinfo *p = proc_find(py, pid);

	if (p)
		return p;
	if (py->nprocs == py->procs_cap) {
		size_t cap = py->procs_cap ? py->procs_cap * 2 : 16;

		p = realloc(py->procs, cap * sizeof(*p));
		if (!p)
			return NULL;
		py->procs = p;
		py->procs_cap = cap;
	}
	p = &py->procs[py->nprocs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->micro = -1;
	return p;
}

static bool is_thread_of(pid_t pid, __u64 tid)
{
	char path[64];

	if (!tid || tid > 0x7fffffff)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/task/%llu", pid, (unsigned long long)tid);
	return access(path, F_OK) == 0;
}

static const struct safeopen map_files_open = {
	.min_size = 52,
	.max_size = 16ll << 30,
	.follow = true,
};

/* A file of the process that may hold the interpreter. */
struct py_candidate {
	unsigned long long start, end;
	char path[4096];
	int lib_minor;		/* from libpython3.X.so's name, -1 */
};

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/*
 * The process's executable and libpython3.X.so mappings at file offset
 * 0 (up to max), libpython first. *named: its executable or comm is
 * python*.
 */
static int candidates(pid_t pid, struct py_candidate *c, int max, bool *named)
{
	char path[64], exe[4096] = "", line[4096], comm[32] = "";
	ssize_t n;
	FILE *f;
	int nr = 0;

	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "re");
	if (f) {
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = '\0';
		fclose(f);
	}
	*named = !strncmp(base_name(exe), "python", 6) || !strncmp(comm, "python", 6);
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f) && nr < max) {
		unsigned long long start, end, off;
		char file[4096];
		const char *b;
		int minor = -1, k = 0;

		if (sscanf(line, "%llx-%llx %*s %llx %*s %*u %n", &start, &end, &off, &k) < 3 ||
		    off || k <= 0 || line[k] != '/')
			continue;
		snprintf(file, sizeof(file), "%s", line + k);
		file[strcspn(file, "\n")] = '\0';
		b = base_name(file);
		if (sscanf(b, "libpython3.%d", &minor) != 1 && strcmp(file, exe))
			continue;
		/* one entry per file: its first mapping */
		for (int i = 0; i < nr; i++)
			if (!strncmp(c[i].path, file, sizeof(c[i].path) - 1))
				goto next;
		c[nr].start = start;
		c[nr].end = end;
		snprintf(c[nr].path, sizeof(c[nr].path), "%s", file);
		c[nr].lib_minor = minor;
		if (minor >= 0 && nr) {
			/* libpython before the executable that links it */
			struct py_candidate t = c[0];

			c[0] = c[nr];
			c[nr] = t;
		}
		nr++;
next:;
	}
	fclose(f);
	return nr;
}

/* Does the runtime at rt check out in pid's memory with layout l? 1 yes, 0 not yet, <0 no. */
static int check_runtime(pid_t pid, const struct py_layout *l, __u64 rt, const char **why)
{
	__u64 interp = 0, ts = 0, back = 0, tid = 0;

	if (rd64(pid, rt + l->o.runtime_interp_head, &interp)) {
		*why = "_PyRuntime unreadable";
		return -EFAULT;
	}
	if (!interp)
		return 0;	/* not initialized yet */
	if (rd64(pid, interp + l->o.interp_threads_head, &ts)) {
		*why = "the interpreter unreadable";
		return -EFAULT;
	}
	if (!ts)
		return 0;
	if (rd64(pid, ts + l->o.tstate_interp, &back) || back != interp) {
		*why = "the thread state does not point back at its interpreter";
		return -EINVAL;
	}
	if (l->o.flags & PY_O_PTHREAD_ID) {
		/* 3.10's thread_id is pthread_self(): glibc's TCB, whose first word is itself */
		if (rd64(pid, ts + l->o.tstate_native_tid, &tid) || rd64(pid, tid, &back) ||
		    back != tid) {
			*why = "the thread state's thread_id is no thread of the process";
			return -EINVAL;
		}
	} else if (rd64(pid, ts + l->o.tstate_native_tid, &tid) || !is_thread_of(pid, tid)) {
		*why = "the thread state's native_thread_id is no thread of the process";
		return -EINVAL;
	}
	return 1;
}

/*
 * CPython 3.13's _Py_DebugOffsets (Include/internal/pycore_runtime.h of
 * v3.13.0), the first member of _PyRuntime: the interpreter's own word on
 * where its fields are, all uint64_t after the cookie. The groups hold
 * (size, then the fields in the header's order); only those named are used.
 */
struct py_debug_offsets {
	char cookie[8];			/* "xdebugpy" */
	__u64 version;			/* PY_VERSION_HEX */
	__u64 free_threaded;
	__u64 runtime[3];		/* size, finalizing, interpreters_head */
	__u64 interp[13];		/* size, id, next, threads_head, ... */
	__u64 tstate[9];		/* size, prev, next, interp, current_frame, thread_id, native_thread_id, ... */
	__u64 frame[6];			/* size, previous, executable, instr_ptr, localsplus, owner */
	__u64 code[10];			/* size, filename, name, qualname, linetable, firstlineno, ..., co_code_adaptive */
	__u64 object[2];		/* size, ob_type */
	__u64 type[4];			/* size, tp_name, ... */
	__u64 tuple[3], list[3], dict[3], flt[2], lng[3];
	__u64 bytes[3];			/* size, ob_size, ob_sval */
	__u64 unicode[4];		/* size, state, length, asciiobject_size */
};

/*
 * 3.13: the layout from the process's _Py_DebugOffsets at rt, the table's
 * l as the check: *differ names the first field where they part (NULL:
 * none). 0, or -EINVAL with *why.
 */
static int debug_layout(pid_t pid, __u64 rt, int minor, const struct py_layout *l,
			struct py_layout *out, const char **differ, const char **why)
{
	struct py_debug_offsets d;
	struct {
		const char *name;
		__u64 v;
		__u32 *field;
	} f[] = {
		{ "runtime_state.interpreters_head", 0, &out->o.runtime_interp_head },
		{ "interpreter_state.threads_head", 0, &out->o.interp_threads_head },
		{ "thread_state.next", 0, &out->o.tstate_next },
		{ "thread_state.interp", 0, &out->o.tstate_interp },
		{ "thread_state.current_frame", 0, &out->o.tstate_frame },
		{ "thread_state.native_thread_id", 0, &out->o.tstate_native_tid },
		{ "interpreter_frame.previous", 0, &out->o.frame_previous },
		{ "interpreter_frame.executable", 0, &out->o.frame_code },
		{ "interpreter_frame.instr_ptr", 0, &out->o.frame_prev_instr },
		{ "interpreter_frame.owner", 0, &out->o.frame_owner },
		{ "code_object.filename", 0, &out->code_filename },
		{ "code_object.qualname", 0, &out->code_qualname },
		{ "code_object.linetable", 0, &out->code_linetable },
		{ "code_object.firstlineno", 0, &out->code_firstlineno },
		{ "code_object.co_code_adaptive", 0, &out->o.code_units },
		{ "pyobject.ob_type", 0, &out->ob_type },
		{ "type_object.tp_name", 0, &out->tp_name },
		{ "bytes_object.ob_size", 0, &out->bytes_size },
		{ "bytes_object.ob_sval", 0, &out->bytes_data },
		{ "unicode_object.state", 0, &out->str_state },
		{ "unicode_object.length", 0, &out->str_length },
		{ "unicode_object.asciiobject_size", 0, &out->str_ascii_data },
	};

	*out = *l;
	*differ = NULL;
	if (rd(pid, rt, &d, sizeof(d))) {
		*why = "_PyRuntime unreadable";
		return -EFAULT;
	}
	if (memcmp(d.cookie, "xdebugpy", 8) || (d.version >> 24) != 3 ||
	    (int)((d.version >> 16) & 0xff) != minor) {
		*why = "_PyRuntime does not start with its _Py_DebugOffsets";
		return -EINVAL;
	}
	if (d.free_threaded) {
		*why = "a free-threaded build (not yet)";
		return -ENOTSUP;
	}
	f[0].v = d.runtime[2];
	f[1].v = d.interp[3];
	f[2].v = d.tstate[2];
	f[3].v = d.tstate[3];
	f[4].v = d.tstate[4];
	f[5].v = d.tstate[6];
	f[6].v = d.frame[1];
	f[7].v = d.frame[2];
	f[8].v = d.frame[3];
	f[9].v = d.frame[5];
	f[10].v = d.code[1];
	f[11].v = d.code[3];
	f[12].v = d.code[4];
	f[13].v = d.code[5];
	f[14].v = d.code[9];
	f[15].v = d.object[1];
	f[16].v = d.type[1];
	f[17].v = d.bytes[1];
	f[18].v = d.bytes[2];
	f[19].v = d.unicode[1];
	f[20].v = d.unicode[2];
	f[21].v = d.unicode[3];
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		/* the structures these are in are a few kB at most (interp: 8 kB in 3.13.0) */
		if (f[i].v >= (1u << 16)) {
			*why = "_Py_DebugOffsets out of range";
			return -EINVAL;
		}
		if (!*differ && f[i].v != *f[i].field)
			*differ = f[i].name;
		*f[i].field = f[i].v;
	}
	/* PyCompactUnicodeObject: the ASCII header, utf8_length and utf8 */
	out->str_compact_data = out->str_ascii_data + 16;
	if (out->str_compact_data > 80 || out->str_state >= out->str_ascii_data ||
	    out->str_length + 8 > out->str_ascii_data) {
		*why = "_Py_DebugOffsets' str layout out of range";
		return -EINVAL;
	}
	return 0;
}

static int push(struct pyframes *py, struct py_procinfo *p)
{
	struct py_proc v = { .runtime = p->runtime, .o = p->l.o };
	__u32 k = p->pid;

	if (py->procs_fd < 0)
		return 0;
	if (bpf_map_update_elem(py->procs_fd, &k, &v, BPF_ANY))
		return -errno;
	return 0;
}

static int look(struct pyframes *py, pid_t pid, bool again)
{
	static const char *const names[] = { "_PyRuntime", "Py_Version" };
	struct py_candidate c[4];
	struct py_procinfo *p = proc_get(py, pid);
	const struct py_layout *l = NULL;
	struct py_layout lay;
	const char *why = "no _PyRuntime in .dynsym", *differ = NULL;
	bool named = false;
	__u64 rt = 0, ver = 0;
	int nr, minor = -1, err = -ENOENT;

	if (!p)
		return -ENOMEM;
	if (!again) {
		__u32 k = pid;
		struct py_proc v;

		char link[64], exe[256];
		ssize_t n;

		/* named again by BPF: still in py_procs, unless it exec'd since */
		if (p->state == PY_OK && py->procs_fd >= 0 &&
		    !bpf_map_lookup_elem(py->procs_fd, &k, &v))
			return 0;
		/* not a Python and still the same program: said once is enough */
		snprintf(link, sizeof(link), "/proc/%d/exe", pid);
		n = readlink(link, exe, sizeof(exe) - 1);
		/*
		 * Gone or exiting (a zombie has no exe; its py_procs entry
		 * went at its exit): no exec, the code objects named stay
		 */
		if (n <= 0 && p->state == PY_OK)
			return -ESRCH;
		exe[n > 0 ? n : 0] = '\0';
		if (p->looked && p->state == PY_NONE && !strcmp(p->exe, exe))
			return -ENOENT;
		p->looked = true;
		memcpy(p->exe, exe, sizeof(exe));
		/* an exec: the code objects named are another program's */
		if (p->state == PY_OK)
			code_flush(py);
		p->state = PY_NONE;
		p->first_ns = timefmt__mono_ns();
	}
	nr = candidates(pid, c, 4, &named);
	for (int i = 0; i < nr && !rt; i++) {
		__u64 vaddr[2], first = 0;
		char path[96];
		int fd;

		snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", pid, c[i].start,
			 c[i].end);
		fd = safeopen(-1, path, &map_files_open);
		if (fd < 0)
			continue;
		err = elf_syms__dynamic(fd, names, vaddr, 2, &first);
		close(fd);
		if (err || !vaddr[0])
			continue;
		/* the file's first segment is mapped at the start of its first mapping */
		rt = c[i].start - (first & ~0xfffull) + vaddr[0];
		snprintf(p->path, sizeof(p->path), "%.250s", c[i].path);
		minor = c[i].lib_minor;
		/* Py_Version (3.11+): PY_VERSION_HEX */
		if (vaddr[1] && !rd64(pid, c[i].start - (first & ~0xfffull) + vaddr[1], &ver) &&
		    (ver >> 24) == 3) {
			minor = (ver >> 16) & 0xff;
			p->micro = (ver >> 8) & 0xff;
		}
	}
	if (!rt) {
		/* libpython not mapped yet (looked at as the loader maps it): again for a while */
		if (usyms__loader_at_work(pid) && timefmt__mono_ns() - p->first_ns < PENDING_NS) {
			p->state = PY_PENDING;
			return -EAGAIN;
		}
		/* again: it was the loader's (above), said once now */
		p->state = PY_NONE;
		if (named)
			msg__warn("PID %d is named python but %s: native frames only",
				  pid, nr > 0 ? why : "no Python executable or libpython is mapped");
		return -ENOENT;
	}
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (layouts[i].minor == minor)
			l = &layouts[i];
	if (!l) {
		p->state = PY_NONE;
		if (minor >= 0)
			msg__warn("PID %d: CPython 3.%d: no Python frames for it yet (3.10 to 3.13): native frames only",
				  pid, minor);
		else
			msg__warn("PID %d: a CPython of unknown version (%s): native frames only",
				  pid, p->path);
		return -ENOTSUP;
	}
	lay = *l;
	err = l->debug_offsets ? debug_layout(pid, rt, minor, l, &lay, &differ, &why) : 0;
	if (!err)
		err = check_runtime(pid, &lay, rt, &why);
	if (err == 0) {
		/* before Py_Initialize(): looked at again for a while */
		if (timefmt__mono_ns() - p->first_ns < PENDING_NS) {
			p->state = PY_PENDING;
			return -EAGAIN;
		}
		why = "its interpreter did not start within 5 s";
		err = -ETIMEDOUT;
	}
	if (err < 0) {
		p->state = PY_NONE;
		msg__warn("PID %d: CPython 3.%d (%s), _PyRuntime at 0x%llx: %s: native frames only",
			  pid, minor, p->path, (unsigned long long)rt, why);
		return err;
	}
	p->l = lay;
	p->has_l = true;
	p->runtime = rt;
	p->code_type = 0;
	p->state = PY_OK;
	err = push(py, p);
	if (err) {
		p->state = PY_NONE;
		msg__warn("PID %d: Python frames not recorded (%s)", pid, strerror(-err));
		return err;
	}
	if (p->micro >= 0)
		msg__verbose("python: PID %d: CPython 3.%d.%d (%s), _PyRuntime at 0x%llx; offsets of 3.%d (%s)",
			     pid, minor, p->micro, p->path, (unsigned long long)rt, l->minor,
			     l->source);
	else
		msg__verbose("python: PID %d: CPython 3.%d (%s), _PyRuntime at 0x%llx; offsets of 3.%d (%s)",
			     pid, minor, p->path, (unsigned long long)rt, l->minor, l->source);
	if (l->debug_offsets)
		msg__verbose("python: PID %d: offsets from its _Py_DebugOffsets: %s%s", pid,
			     differ ? "they differ from the table at " : "as the table's",
			     differ ? differ : "");
	return 0;
}

int python__add_pid(struct pyframes *py, pid_t pid)
{
	return look(py, pid, false);
}

void python__queue(struct pyframes *py, pid_t tgid)
{
	if (py->nqueue == py->queue_cap) {
		size_t cap = py->queue_cap ? py->queue_cap * 2 : 64;
		pid_t *q = realloc(py->queue, cap * sizeof(*q));

		if (!q)
			return;
		py->queue = q;
		py->queue_cap = cap;
	}
	py->queue[py->nqueue++] = tgid;
}

void python__drain(struct pyframes *py)
{
	if (!py)
		return;
	for (size_t i = 0; i < py->nqueue; i++)
		look(py, py->queue[i], false);
	py->nqueue = 0;
	for (size_t i = 0; i < py->nprocs; i++)
		if (py->procs[i].state == PY_PENDING)
			look(py, py->procs[i].pid, true);
}

/* A str object's text as UTF-8, at most NAME_MAX_CHARS characters; NULL: not one. */
static char *read_str(pid_t pid, const struct py_layout *l, __u64 addr)
{
	__u8 hdr[80];
	__u64 len, n;
	unsigned state, kind;
	char *out;

	if (rd(pid, addr, hdr, l->str_compact_data))
		return NULL;
	memcpy(&len, hdr + l->str_length, sizeof(len));
	state = hdr[l->str_state];
	/* PyASCIIObject.state: interned:2, kind:3, compact:1, ascii:1, ready:1 */
	kind = (state >> 2) & 7;
	if (!(state & 0x20) || len > (1u << 20))
		return NULL;
	n = len < NAME_MAX_CHARS ? len : NAME_MAX_CHARS;
	out = malloc(n * 4 + 1);
	if (!out)
		return NULL;
	if (state & 0x40) {
		/* compact ASCII: the characters follow the header */
		if (rd(pid, addr + l->str_ascii_data, out, n))
			goto bad;
		out[n] = '\0';
	} else if (kind == 1 || kind == 2 || kind == 4) {
		__u8 raw[NAME_MAX_CHARS * 4];
		size_t o = 0;

		if (rd(pid, addr + l->str_compact_data, raw, n * kind))
			goto bad;
		for (size_t i = 0; i < n; i++) {
			__u32 ch = kind == 1 ? raw[i] : kind == 2 ? (__u32)raw[2 * i] | raw[2 * i + 1] << 8 :
				   (__u32)raw[4 * i] | raw[4 * i + 1] << 8 | raw[4 * i + 2] << 16 |
				   (__u32)raw[4 * i + 3] << 24;

			if (!ch) {
				goto bad;
			} else if (ch < 0x80) {
				out[o++] = ch;
			} else if (ch < 0x800) {
				out[o++] = 0xc0 | ch >> 6;
				out[o++] = 0x80 | (ch & 0x3f);
			} else if (ch < 0x10000) {
				out[o++] = 0xe0 | ch >> 12;
				out[o++] = 0x80 | ((ch >> 6) & 0x3f);
				out[o++] = 0x80 | (ch & 0x3f);
			} else if (ch < 0x110000) {
				out[o++] = 0xf0 | ch >> 18;
				out[o++] = 0x80 | ((ch >> 12) & 0x3f);
				out[o++] = 0x80 | ((ch >> 6) & 0x3f);
				out[o++] = 0x80 | (ch & 0x3f);
			} else {
				out[o++] = '?';
			}
		}
		out[o] = '\0';
	} else {
		goto bad;
	}
	/* a NUL inside is no name of ours: the printer would cut there */
	if (strlen(out) != n && (state & 0x40))
		goto bad;
	return out;
bad:
	free(out);
	return NULL;
}

/*
 * The 3.11 location table (Objects/locations.md): entries of a first byte
 * 1CCCCLLL (code C, L + 1 code units) and what the code adds: 0-9 a
 * column byte (same line), 10-12 the line + C - 10 and two column bytes,
 * 13 a signed varint line delta, 14 that and three varints (end line,
 * columns), 15 no location. Varints are 6 bits a byte, 0x40 continues;
 * signed ones keep the sign in their lowest bit.
 */
static bool varint(const __u8 *t, size_t len, size_t *i, __u32 *v)
{
	unsigned shift = 0;
	__u8 b;

	*v = 0;
	do {
		if (*i >= len || shift > 28)
			return false;
		b = t[(*i)++];
		*v |= (__u32)(b & 63) << shift;
		shift += 6;
	} while (b & 64);
	return true;
}

int python__line311(const __u8 *t, size_t len, int firstlineno, __u32 lasti)
{
	long line = firstlineno;
	__u32 addr = 0, v, skip;
	size_t i = 0;

	while (i < len) {
		__u8 b = t[i++];
		unsigned code = (b >> 3) & 15, units = (b & 7) + 1;
		long delta = 0;

		if (!(b & 0x80))
			return -1;	/* not an entry's first byte: garbage */
		switch (code) {
		case 15:
			break;
		case 14:
		case 13:
			if (!varint(t, len, &i, &v))
				return -1;
			delta = v & 1 ? -(long)(v >> 1) : (long)(v >> 1);
			for (skip = 0; code == 14 && skip < 3; skip++)
				if (!varint(t, len, &i, &v))
					return -1;
			break;
		case 12:
		case 11:
		case 10:
			delta = code - 10;
			i += 2;
			break;
		default:
			i += 1;
			break;
		}
		if (i > len)
			return -1;
		line += delta;
		if (lasti < addr + units)
			return code == 15 || line < 0 || line > 0x7fffffff ? -1 : (int)line;
		addr += units;
	}
	return -1;
}

/*
 * The 3.10 line table (Objects/lnotab_notes.txt of v3.10.x): pairs of an
 * unsigned byte, the range's length in bytes, and a signed byte, its
 * line's delta (-128: the range has no line). A range of length 0 only
 * moves the line.
 */
int python__line310(const __u8 *t, size_t len, int firstlineno, __u32 lasti)
{
	long line = firstlineno, addr = (long)lasti * 2, end = 0;

	for (size_t i = 0; i + 1 < len; i += 2) {
		long start = end;
		__s8 delta = (__s8)t[i + 1];

		end += t[i];
		if (delta != -128)
			line += delta;
		if (addr >= start && addr < end)
			return delta == -128 || line < 0 || line > 0x7fffffff ? -1 : (int)line;
	}
	return -1;
}

static size_t code_slot(pid_t pid, __u64 addr)
{
	__u64 h = (addr ^ ((__u64)pid << 32)) * 0x9e3779b97f4a7c15ull;

	return (h >> 20) & (CODE_CACHE_MAX * 2 - 1);
}

/* Is addr a code object (its type named "code")? */
static bool is_code(pid_t pid, struct py_procinfo *p, __u64 addr)
{
	const struct py_layout *l = &p->l;
	__u64 type, name;
	char s[8];

	if (rd64(pid, addr + l->ob_type, &type) || !type)
		return false;
	if (p->code_type)
		return type == p->code_type;
	if (rd64(pid, type + l->tp_name, &name) || rd(pid, name, s, 5) || memcmp(s, "code", 5))
		return false;
	p->code_type = type;
	return true;
}

static struct py_code *code_get(struct pyframes *py, struct py_procinfo *p, __u64 addr)
{
	const struct py_layout *l = &p->l;
	struct py_code *c;
	size_t i = code_slot(p->pid, addr);
	__u64 qn, fn, lt, ltlen;
	__s32 first;

	for (;; i = (i + 1) & (CODE_CACHE_MAX * 2 - 1)) {
		c = &py->codes[i];
		if (!c->addr)
			break;
		if (c->addr == addr && c->pid == p->pid)
			return c;
	}
	if (py->ncodes >= CODE_CACHE_MAX) {
		/* full: start again (bounded memory over long runs) */
		code_flush(py);
		c = &py->codes[code_slot(p->pid, addr)];
	}
	py->ncodes++;
	c->pid = p->pid;
	c->addr = addr;
	if (!is_code(p->pid, p, addr) ||
	    rd64(p->pid, addr + l->code_qualname, &qn) ||
	    rd64(p->pid, addr + l->code_filename, &fn) ||
	    rd64(p->pid, addr + l->code_linetable, &lt) ||
	    rd(p->pid, addr + l->code_firstlineno, &first, sizeof(first)) ||
	    !(c->qualname = read_str(p->pid, l, qn)) ||
	    !(c->filename = read_str(p->pid, l, fn))) {
		c->bad = true;
		return c;
	}
	c->firstlineno = first;
	/* the line table is optional: without it, the first line */
	if (!rd64(p->pid, lt + l->bytes_size, &ltlen) && ltlen && ltlen <= LINETABLE_MAX) {
		c->linetable = malloc(ltlen);
		if (c->linetable && !rd(p->pid, lt + l->bytes_data, c->linetable, ltlen)) {
			c->lt_len = ltlen;
		} else {
			free(c->linetable);
			c->linetable = NULL;
		}
	}
	return c;
}

/* Marks in place of Python frames (code 0, the mark in lasti's bits). */
#define PY_MARK(m)		(PY_PRINT_TAG | ((__u64)(m) << PY_LASTI_SHIFT))
#define PY_MARK_TRUNCATED	1	/* more than PY_MAX_FRAMES frames */
#define PY_MARK_ERROR		2	/* a read failed mid-walk */
#define PY_MARK_MISSED		3	/* the Python stack was lost (storage) */
#define PY_MARK_UNMATCHED	4	/* Python frames of no eval frame of the native stack */

static const char *mark_name(__u64 frame, struct pyframes *py, pid_t tgid)
{
	__u64 code = frame & PY_CODE_MASK;
	__u32 lasti = (frame >> PY_LASTI_SHIFT) & PY_LASTI_NONE;
	struct py_procinfo *p = py ? proc_find(py, tgid) : NULL;

	if (code && (!p || !p->has_l))
		return "[python: unknown process]";
	if (code)
		return NULL;
	switch (lasti) {
	case PY_MARK_TRUNCATED:
		return "[python truncated]";
	case PY_MARK_ERROR:
		return "[python error]";
	case PY_MARK_MISSED:
		return "[missed python stack]";
	default:
		return "[python unmatched]";
	}
}

/* The code object of frame, named (NULL: gone), and the line its instruction is on. */
static struct py_code *code_line(struct pyframes *py, struct py_procinfo *p, __u64 frame,
				 int *line)
{
	__u32 lasti = (frame >> PY_LASTI_SHIFT) & PY_LASTI_NONE;
	struct py_code *c = code_get(py, p, frame & PY_CODE_MASK);

	if (c->bad)
		return NULL;
	*line = -1;
	if (lasti != PY_LASTI_NONE && c->linetable)
		*line = p->l.minor == 10 ?
			python__line310(c->linetable, c->lt_len, c->firstlineno, lasti) :
			python__line311(c->linetable, c->lt_len, c->firstlineno, lasti);
	/* no line for the instruction: the function's first */
	if (*line < 0)
		*line = c->firstlineno;
	return c;
}

int python__loc(struct pyframes *py, pid_t tgid, __u64 frame, struct python_loc *loc)
{
	const char *mark = mark_name(frame, py, tgid);
	struct py_code *c;

	memset(loc, 0, sizeof(*loc));
	if (!mark) {
		c = code_line(py, proc_find(py, tgid), frame, &loc->line);
		if (c) {
			loc->func = c->qualname;
			loc->file = c->filename;
			loc->first_line = c->firstlineno;
			return 0;
		}
		mark = "[python: code gone]";
	}
	loc->func = mark;
	return -ENOENT;
}

const char *python__name(struct pyframes *py, pid_t tgid, __u64 frame, char *buf, size_t len)
{
	struct python_loc loc;

	/* into buf, always: the printers print buf */
	if (python__loc(py, tgid, frame, &loc))
		snprintf(buf, len, "%s", loc.func);
	else
		snprintf(buf, len, "%s (%s:%d)", loc.func, loc.file, loc.line);
	return buf;
}

static bool is_eval(struct usyms *usyms, pid_t tgid, __u64 ip)
{
	char buf[256];

	if (!usyms || python__is_frame(ip) || ip >= UNW_MARK_TRUNCATED)
		return false;
	return !strcmp(usyms__name(usyms, tgid, ip, false, buf, sizeof(buf)),
		       "_PyEval_EvalFrameDefault");
}

void python__merge(struct pyframes *py, struct usyms *usyms, pid_t tgid, __s32 py_id,
		   const struct stack *us, bool replace_eval, __u64 *ips, int max,
		   struct stack *out)
{
	struct py_stack rec = { 0 };
	struct stack native = *us;	/* out may be us */
	__u64 tail = 0;
	int n = 0, j = 0, i, runs, evals, skip;
	bool ev[STACK_DEPTH_MAX];	/* native frame i is the eval loop's */

	us = &native;
#define PUT(v)	do { if (n < max) ips[n++] = (v); } while (0)
	if (py_id < 0 && py_id != -EFAULT) {
		PUT(PY_MARK(PY_MARK_MISSED));
		py_id = -EFAULT;
	}
	if (py_id >= 0 && (!py || bpf_map_lookup_elem(py->stacks_fd, &py_id, &rec) ||
			   rec.n > PY_MAX_FRAMES)) {
		PUT(PY_MARK(PY_MARK_MISSED));
		rec.n = 0;
	}
	if (rec.flags & PY_STACK_TRUNCATED)
		tail = PY_MARK(PY_MARK_TRUNCATED);
	else if (rec.flags & PY_STACK_ERROR)
		tail = PY_MARK(PY_MARK_ERROR);
	if (!replace_eval) {
		for (j = 0; j < (int)rec.n; j++)
			PUT(rec.frames[j] | PY_PRINT_TAG);
		if (rec.n && tail)
			PUT(tail);
		for (i = 0; i < us->n; i++)
			PUT(us->ips[i]);
		goto done;
	}
	/*
	 * An eval call being entered or left (its frame not linked yet, or
	 * already unlinked) has no run: more eval frames than runs. That is
	 * the innermost call, so the innermost extra ones keep their native
	 * name and the runs go to the calls that own them.
	 */
	for (i = 0, runs = 0, evals = 0; i < (int)rec.n; i++)
		runs += !!(rec.frames[i] & PY_ENTRY);
	if (rec.n && !(rec.frames[rec.n - 1] & PY_ENTRY))
		runs++;		/* the walk stopped inside a run */
	/* stacks are at most STACK_DEPTH_MAX frames (--perf-max-stack-depth) */
	if (native.n > STACK_DEPTH_MAX)
		native.n = STACK_DEPTH_MAX;
	for (i = 0; i < us->n; i++) {
		ev[i] = is_eval(usyms, tgid, us->ips[i]);
		evals += ev[i];
	}
	skip = evals > runs ? evals - runs : 0;
	for (i = 0; i < us->n; i++) {
		if (skip && ev[i]) {
			skip--;
			PUT(us->ips[i]);
			continue;
		}
		if (j < (int)rec.n && ev[i]) {
			/* the frames this eval call ran: to its entry frame */
			do {
				PUT(rec.frames[j] | PY_PRINT_TAG);
			} while (!(rec.frames[j++] & PY_ENTRY) && j < (int)rec.n);
			if (j == (int)rec.n && tail) {
				PUT(tail);
				tail = 0;
			}
			continue;
		}
		PUT(us->ips[i]);
	}
	if (j < (int)rec.n) {
		/* more runs than eval frames: the native stack was cut, or is out of step */
		if (!us->n || us->ips[us->n - 1] < UNW_MARK_TRUNCATED)
			PUT(PY_MARK(PY_MARK_UNMATCHED));
		for (; j < (int)rec.n; j++)
			PUT(rec.frames[j] | PY_PRINT_TAG);
	}
	if (tail && rec.n)
		PUT(tail);
done:
#undef PUT
	*out = native;
	out->ips = ips;
	out->n = n;
}

/* Was stack id seen before? It is now. */
static bool named_before(struct pyframes *py, __u32 id)
{
	size_t i = (id * 0x9e3779b1u) & (NAMED_SLOTS - 1);

	if (py->nnamed >= NAMED_SLOTS / 2) {
		memset(py->named, 0, NAMED_SLOTS * sizeof(*py->named));
		py->nnamed = 0;
	}
	for (;; i = (i + 1) & (NAMED_SLOTS - 1)) {
		if (py->named[i] == id + 1)
			return true;
		if (!py->named[i])
			break;
	}
	py->named[i] = id + 1;
	py->nnamed++;
	return false;
}

void python__tick(struct pyframes *py)
{
	unsigned long long now = timefmt__mono_ns();
	struct py_stack rec;
	__u32 *ids = NULL, n = 0;

	/* 4 times a second: a process that lives 250 ms gets its names */
	if (!py || py->stacks_fd < 0 || now - py->tick_at < 250000000ull)
		return;
	py->tick_at = now;
	if (map__keys(py->stacks_fd, sizeof(*ids), 0, (void **)&ids, &n))
		return;
	for (__u32 i = 0; i < n; i++) {
		struct py_procinfo *p;

		if (named_before(py, ids[i]) ||
		    bpf_map_lookup_elem(py->stacks_fd, &ids[i], &rec) || rec.n > PY_MAX_FRAMES)
			continue;
		p = proc_find(py, rec.tgid);
		if (!p || !p->has_l)
			continue;
		for (__u32 j = 0; j < rec.n; j++)
			code_get(py, p, rec.frames[j] & PY_CODE_MASK);
	}
	free(ids);
}

void python__report(struct pyframes *py, const struct py_counts *c)
{
	size_t ok = 0;

	for (size_t i = 0; i < py->nprocs; i++)
		ok += py->procs[i].state == PY_OK;
	msg__verbose("python: %zu processes with Python frames; %llu samples: %llu stacks, %llu not a Python thread, %llu idle, %llu truncated at %d frames, %llu stopped early; %llu collisions, %llu dropped",
		     ok, (unsigned long long)c->samples, (unsigned long long)c->stacks,
		     (unsigned long long)c->no_thread, (unsigned long long)c->idle,
		     (unsigned long long)c->truncated, PY_MAX_FRAMES,
		     (unsigned long long)c->errors, (unsigned long long)c->collisions,
		     (unsigned long long)c->dropped);
}
