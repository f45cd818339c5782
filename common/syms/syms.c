// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel and user symbols (syms.h). User space in three layers:
 *   uproc  one snapshot per process: its executable mappings, sorted, and
 *          an fd of its root when it lives in another mount namespace;
 *   ufile  one per mapped file (dev+inode), with an fd kept open from the
 *          snapshot on, so its symbols can be read after the process (or
 *          the file) is gone;
 *   uelf   the parsed symbols (elfsyms.h), loaded on first use, shared by
 *          files with the same build-id, evicted least recently used
 *          first above the memory bound.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <libiberty/demangle.h>
#include "syms/elfsyms.h"
#include "out/esc.h"
#include "run/msg.h"
#include "run/timefmt.h"
#include "syms/safeopen.h"
#include "syms/sorted.h"
#include "syms/syms.h"

/* ---- kernel ------------------------------------------------------------ */

#define KSYM_NAME_MAX	512

struct ksyms {
	struct ksym *syms;
	size_t nr;
	char *strs;
	bool restricted;
};

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int cmp_ulong(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/* Is one of the sorted addrs in [lo, hi)? */
static bool wanted(const unsigned long *addrs, size_t n, unsigned long lo, unsigned long hi)
{
	size_t a = 0, b = n;

	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (addrs[mid] < lo)
			a = mid + 1;
		else
			b = mid;
	}
	return a < n && addrs[a] < hi;
}

static int ksyms_add(struct ksyms *k, size_t *cap, size_t *strs_cap, size_t *strs_len,
		     unsigned long addr, const char *name, size_t len)
{
	if (k->nr == *cap) {
		size_t c = *cap ? *cap * 2 : 4096;
		void *q = realloc(k->syms, c * sizeof(*k->syms));

		if (!q)
			return -ENOMEM;
		k->syms = q;
		*cap = c;
	}
	if (*strs_len + len + 1 > *strs_cap) {
		size_t c = *strs_cap ? *strs_cap * 2 : 65536;
		void *q;

		while (c < *strs_len + len + 1)
			c *= 2;
		q = realloc(k->strs, c);
		if (!q)
			return -ENOMEM;
		k->strs = q;
		*strs_cap = c;
	}
	memcpy(k->strs + *strs_len, name, len);
	k->strs[*strs_len + len] = '\0';
	/* an offset until strs stops moving */
	k->syms[k->nr].name = (const char *)(uintptr_t)*strs_len;
	k->syms[k->nr].addr = addr;
	k->nr++;
	*strs_len += len + 1;
	return 0;
}

static struct ksyms *load_kallsyms(const char *path, const unsigned long *want, size_t nwant)
{
	size_t cap = 0, strs_cap = 0, strs_len = 0, linecap = 0, i, nonzero = 0;
	char prev_name[KSYM_NAME_MAX] = "";
	unsigned long prev_addr = 0;
	unsigned long *addrs = NULL;
	bool have_prev = false;
	struct ksyms *k;
	char *line = NULL;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return NULL;
	k = calloc(1, sizeof(*k));
	if (!k)
		goto fail;
	if (want) {
		addrs = malloc((nwant ? nwant : 1) * sizeof(*addrs));
		if (!addrs)
			goto fail;
		memcpy(addrs, want, nwant * sizeof(*addrs));
		qsort(addrs, nwant, sizeof(*addrs), cmp_ulong);
	}
	while (getline(&line, &linecap, f) > 0) {
		char *p = line, *end, *name;
		unsigned long addr;
		size_t len;
		char type;

		addr = strtoul(p, &end, 16);
		if (end == p || *end != ' ')
			continue;
		p = end + 1;
		type = *p;
		if (!type || p[1] != ' ')
			continue;
		/* text only: stacks hold code addresses */
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		name = p + 2;
		len = strcspn(name, " \t\n");
		if (!len)
			continue;
		if (addr)
			nonzero++;
		if (!addrs) {
			if (ksyms_add(k, &cap, &strs_cap, &strs_len, addr, name, len))
				goto fail;
			continue;
		}
		/*
		 * Only the symbols that name a wanted address. The file is in
		 * address order for the kernel proper, so a symbol covers up
		 * to the next one; where the order breaks (modules, BPF), the
		 * symbol is kept.
		 */
		if (have_prev && (addr <= prev_addr || wanted(addrs, nwant, prev_addr, addr)) &&
		    ksyms_add(k, &cap, &strs_cap, &strs_len, prev_addr, prev_name, strlen(prev_name)))
			goto fail;
		if (len >= sizeof(prev_name))
			len = sizeof(prev_name) - 1;
		memcpy(prev_name, name, len);
		prev_name[len] = '\0';
		prev_addr = addr;
		have_prev = true;
	}
	if (have_prev && wanted(addrs, nwant, prev_addr, ~0UL) &&
	    ksyms_add(k, &cap, &strs_cap, &strs_len, prev_addr, prev_name, strlen(prev_name)))
		goto fail;
	free(line);
	line = NULL;
	free(addrs);
	addrs = NULL;
	fclose(f);
	f = NULL;
	/* every address 0: kptr_restrict hides them from us */
	k->restricted = nonzero == 0 && (k->nr > 0 || have_prev);
	if (k->nr) {
		k->syms = realloc(k->syms, k->nr * sizeof(*k->syms)) ?: k->syms;
		k->strs = realloc(k->strs, strs_len) ?: k->strs;
	}
	for (i = 0; i < k->nr; i++)
		k->syms[i].name = k->strs + (uintptr_t)k->syms[i].name;
	if (k->nr)
		qsort(k->syms, k->nr, sizeof(*k->syms), cmp_ksym);
	return k;
fail:
	free(line);
	free(addrs);
	if (f)
		fclose(f);
	ksyms__free(k);
	return NULL;
}

struct ksyms *ksyms__load_file(const char *path)
{
	return load_kallsyms(path, NULL, 0);
}

struct ksyms *ksyms__load_for(const unsigned long *addrs, size_t n)
{
	return load_kallsyms("/proc/kallsyms", addrs ? addrs : (const unsigned long *)"", addrs ? n : 0);
}

struct ksyms *ksyms__load_file_for(const char *path, const unsigned long *addrs, size_t n)
{
	return load_kallsyms(path, addrs ? addrs : (const unsigned long *)"", addrs ? n : 0);
}

struct ksyms *ksyms__load(void)
{
	return ksyms__load_file("/proc/kallsyms");
}

const struct ksym *ksyms__find(const struct ksyms *k, unsigned long addr)
{
	if (!k || k->restricted)
		return NULL;
	return SORTED_LAST_LE(k->syms, k->nr, addr, addr);
}

const struct ksym *ksyms__find_name(const struct ksyms *k, const char *name)
{
	if (!k || k->restricted)
		return NULL;
	for (size_t i = 0; i < k->nr; i++)
		if (!strcmp(k->syms[i].name, name))
			return &k->syms[i];
	return NULL;
}

bool ksyms__restricted(const struct ksyms *k)
{
	return k && k->restricted;
}

void ksyms__free(struct ksyms *k)
{
	if (!k)
		return;
	free(k->syms);
	free(k->strs);
	free(k);
}

int ksyms__build_id(char *buf, size_t len)
{
	unsigned char notes[4096];
	size_t off = 0, o = 0, i;
	ssize_t n;
	int fd;

	if (len)
		buf[0] = '\0';
	fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, notes, sizeof(notes));
	close(fd);
	if (n < 0)
		return -errno;
	/* Elf_Nhdr: namesz, descsz, type; name and desc padded to 4 bytes */
	while (off + 12 <= (size_t)n) {
		__u32 namesz, descsz, type;
		size_t name_at = off + 12, desc_at;

		memcpy(&namesz, notes + off, 4);
		memcpy(&descsz, notes + off + 4, 4);
		memcpy(&type, notes + off + 8, 4);
		desc_at = name_at + ((namesz + 3ULL) & ~3ULL);
		if (desc_at + descsz > (size_t)n)
			break;
		if (type == 3 /* NT_GNU_BUILD_ID */ && namesz == 4 &&
		    !memcmp(notes + name_at, "GNU", 4)) {
			for (i = 0; i < descsz && o + 3 <= len; i++)
				o += snprintf(buf + o, len - o, "%02x", notes[desc_at + i]);
			return o ? 0 : -ENOENT;
		}
		off = desc_at + ((descsz + 3ULL) & ~3ULL);
	}
	return -ENOENT;
}

/* ---- user --------------------------------------------------------------- */

#define HASH_SIZE	1024
#define DEFAULT_MAX_BYTES (64u << 20)

struct uelf {
	struct elf_syms *syms;
	int refs;
};

struct ufile {
	struct ufile *next;
	dev_t dev;
	ino_t ino;
	int fd;			/* kept open; -1 when over the fd budget */
	int root_fd;		/* root it was seen through; -1: ours */
	char *path;		/* as /proc/PID/maps says, " (deleted)" cut */
	const char *base;	/* its last component, for module+0xoffset */
	struct uelf *elf;	/* NULL until used, or evicted */
	bool failed;		/* not an ELF file we can read */
	int refs;		/* mappings that use it */
	unsigned long long used;
};

enum umap_kind { UMAP_FILE, UMAP_VDSO, UMAP_ANON };

struct umap {
	__u64 start, end, pgoff;
	enum umap_kind kind;
	struct ufile *file;
};

struct perfsym {
	__u64 start, size;
	const char *name;	/* interned in the process's perf_names */
	size_t seq;		/* order in the file: the later entry wins */
};

/* A process's perf-map names, each stored once (a JIT writes a recompiled
 * function's name again at each new address). Open addressing. */
struct perf_names {
	char **v;
	size_t n, cap;
};

struct uproc {
	struct uproc *next;
	pid_t tgid;
	struct umap *maps;
	int nr;
	int perf_fd;		/* /tmp/perf-PID.map, kept open; -1 */
	struct perfsym *perf;	/* sorted by start, then seq; read on first use */
	size_t nr_perf, cap_perf;
	struct perf_names names;
	off_t perf_off;		/* bytes of the map read: a JIT appends */
	size_t perf_bytes;	/* charged to usyms' budget */
	bool perf_full;		/* the budget stopped its reading */
	bool missed_refresh;	/* re-read once for an address out of every map */
	unsigned long long loading_ns;	/* read as its loader mapped libraries: since; 0 */
	dev_t exe_dev;		/* its program (/proc/PID/exe), to tell an exec */
	ino_t exe_ino;
	struct uproc *prev;	/* the program before its last exec, for its stacks */
};

struct usyms {
	struct uproc *procs[HASH_SIZE];
	size_t nr_procs;
	size_t nr_loading;	/* procs with loading_ns: usyms__settle() reads them again */
	unsigned long long settle_ns;
	struct ufile *files[HASH_SIZE];
	size_t max_bytes, bytes;
	size_t perf_bytes;	/* of bytes: every process's perf map, <= max_bytes / 2 */
	unsigned long long tick;
	int nr_fds, max_fds;
	struct elf_syms *vdso;
	bool vdso_tried;
	char debug_dir[PATH_MAX];
};

struct usyms *usyms__new(size_t max_bytes)
{
	struct usyms *u = calloc(1, sizeof(*u));
	struct rlimit rl;

	if (!u)
		return NULL;
	u->max_bytes = max_bytes ? max_bytes : DEFAULT_MAX_BYTES;
	strcpy(u->debug_dir, "/usr/lib/debug");
	/* files are kept open from the snapshot on: use what we may have */
	u->max_fds = 960;
	if (!getrlimit(RLIMIT_NOFILE, &rl)) {
		if (rl.rlim_cur < rl.rlim_max) {
			rl.rlim_cur = rl.rlim_max;
			setrlimit(RLIMIT_NOFILE, &rl);
			getrlimit(RLIMIT_NOFILE, &rl);
		}
		if (rl.rlim_cur > 128)
			u->max_fds = rl.rlim_cur > 16384 + 64 ? 16384 : (int)rl.rlim_cur - 64;
	}
	return u;
}

void usyms__set_debug_dir(struct usyms *u, const char *dir)
{
	snprintf(u->debug_dir, sizeof(u->debug_dir), "%s", dir);
}

static unsigned int hash_pid(pid_t p)
{
	return (unsigned int)p % HASH_SIZE;
}

static unsigned int hash_file(dev_t dev, ino_t ino)
{
	return (unsigned int)((dev * 31 + ino) % HASH_SIZE);
}

static struct uproc *proc_find(struct usyms *u, pid_t tgid)
{
	struct uproc *p;

	for (p = u->procs[hash_pid(tgid)]; p; p = p->next)
		if (p->tgid == tgid)
			return p;
	return NULL;
}

static void close_fd(struct usyms *u, int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		u->nr_fds--;
		*fd = -1;
	}
}

static void elf_put(struct usyms *u, struct ufile *f)
{
	if (!f->elf)
		return;
	if (--f->elf->refs == 0) {
		u->bytes -= f->elf->syms->bytes;
		elf_syms__free(f->elf->syms);
		free(f->elf);
	}
	f->elf = NULL;
}

static void file_put(struct usyms *u, struct ufile *f)
{
	struct ufile **pp;

	if (!f || --f->refs > 0)
		return;
	for (pp = &u->files[hash_file(f->dev, f->ino)]; *pp; pp = &(*pp)->next) {
		if (*pp == f) {
			*pp = f->next;
			break;
		}
	}
	elf_put(u, f);
	close_fd(u, &f->fd);
	close_fd(u, &f->root_fd);
	free(f->path);
	free(f);
}

static void proc_free(struct usyms *u, struct uproc *p)
{
	int i;

	if (p->prev)
		proc_free(u, p->prev);

	for (i = 0; i < p->nr; i++)
		file_put(u, p->maps[i].file);
	free(p->maps);
	for (size_t j = 0; j < p->names.cap; j++)
		free(p->names.v[j]);
	free(p->names.v);
	free(p->perf);
	if (p->loading_ns)
		u->nr_loading--;
	u->bytes -= p->perf_bytes;
	u->perf_bytes -= p->perf_bytes;
	close_fd(u, &p->perf_fd);
	free(p);
}

/*
 * What may be opened (safeopen.h). Binaries and debug files: regular, not
 * empty, under a bound that only a hostile file reaches (what is read of
 * them is bounded by the symbol budget). Perf maps: a JIT may not have
 * written anything yet; owned by root or the process's user (as perf).
 */
#define MAX_ELF_FILE	(16ll << 30)
/* One table may take the whole cache budget (not less than this much). */
#define MIN_TABLE_BYTES	(1u << 20)
/* what is read of a perf map in all (its memory is bounded by the budget) */
#define MAX_PERF_MAP	(256ll << 20)

static const struct safeopen elf_open = {
	.min_size = 52,		/* an ELF header */
	.max_size = MAX_ELF_FILE,
};

/* /proc/PID/map_files/...: a magic link to the mapped file itself */
static const struct safeopen map_files_open = {
	.min_size = 52,
	.max_size = MAX_ELF_FILE,
	.follow = true,
};

/* Separate debug files found by build-id under the debug directory: a
 * distribution may make them symlinks into its tree (Fedora). */
static const struct safeopen build_id_open = {
	.min_size = 52,
	.max_size = MAX_ELF_FILE,
	.follow = true,
};

/* fd is the file dev:ino (dev 0: any device). */
static bool same_file(int fd, dev_t dev, ino_t ino)
{
	struct stat st;

	return !fstat(fd, &st) && st.st_ino == ino && (!dev || st.st_dev == dev);
}

/* The root of tgid when it is not ours, as an fd that outlives tgid. */
static int proc_root_fd(pid_t tgid)
{
	struct stat a, b;
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/root", tgid);
	fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (!fstat(fd, &a) && !stat("/", &b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
		close(fd);
		return -1;
	}
	return fd;
}

static struct ufile *file_get(struct usyms *u, pid_t tgid, int root_fd, dev_t dev,
			      ino_t ino, __u64 start, __u64 end, const char *path)
{
	unsigned int h = hash_file(dev, ino);
	struct ufile *f;
	char buf[96];
	size_t len;

	for (f = u->files[h]; f; f = f->next) {
		if (f->dev == dev && f->ino == ino) {
			f->refs++;
			return f;
		}
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->dev = dev;
	f->ino = ino;
	f->fd = f->root_fd = -1;
	f->path = strdup(path);
	if (!f->path) {
		free(f);
		return NULL;
	}
	len = strlen(f->path);
	if (len > 10 && !strcmp(f->path + len - 10, " (deleted)"))
		f->path[len - 10] = '\0';
	f->base = strrchr(f->path, '/') ? strrchr(f->path, '/') + 1 : f->path;
	f->refs = 1;
	if (u->nr_fds + 2 <= u->max_fds) {
		/* map_files: the very file mapped, even deleted or in a container */
		snprintf(buf, sizeof(buf), "/proc/%d/map_files/%llx-%llx", tgid,
			 (unsigned long long)start, (unsigned long long)end);
		f->fd = safeopen(-1, buf, &map_files_open);
		/*
		 * On overlayfs (container roots) maps names the layer's
		 * device while the file opens on the overlay's: the inode
		 * number is what both agree on. A path, which may have been
		 * replaced since, must match both.
		 */
		if (f->fd >= 0 && !same_file(f->fd, 0, ino)) {
			close(f->fd);
			f->fd = -1;
		}
		if (f->fd < 0) {
			f->fd = safeopen(root_fd, f->path, &elf_open);
			if (f->fd >= 0 && !same_file(f->fd, dev, ino)) {
				close(f->fd);
				f->fd = -1;
			}
		}
		if (f->fd >= 0)
			u->nr_fds++;
		if (root_fd >= 0) {
			f->root_fd = dup(root_fd);
			if (f->root_fd >= 0)
				u->nr_fds++;
		}
	}
	f->next = u->files[h];
	u->files[h] = f;
	return f;
}

static int cmp_umap(const void *a, const void *b)
{
	const struct umap *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * The NSpid of tgid as seen in its own namespace (for perf-PID.map) and
 * its effective uid (who may own that file). False when it is gone.
 */
static bool proc_ids(pid_t tgid, pid_t *nspid, uid_t *euid)
{
	char path[64], line[256];
	bool have_uid = false;
	FILE *f;

	*nspid = tgid;
	snprintf(path, sizeof(path), "/proc/%d/status", tgid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		unsigned int r, e;

		if (!strncmp(line, "Uid:", 4) && sscanf(line + 4, "%u %u", &r, &e) == 2) {
			*euid = e;
			have_uid = true;
		} else if (!strncmp(line, "NSpid:", 6)) {
			char *p = strrchr(line, '\t');

			if (p && atoi(p + 1) > 0)
				*nspid = atoi(p + 1);
			break;
		}
	}
	fclose(f);
	return have_uid;
}

static void open_perf_map(struct usyms *u, struct uproc *p, int root_fd)
{
	struct safeopen perf_open = { .max_size = MAX_PERF_MAP, .check_owner = true };
	char path[64];
	pid_t nspid;

	if (u->nr_fds >= u->max_fds || !proc_ids(p->tgid, &nspid, &perf_open.owner))
		return;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", nspid);
	p->perf_fd = safeopen(root_fd, path, &perf_open);
	if (p->perf_fd < 0 && root_fd >= 0) {
		snprintf(path, sizeof(path), "/tmp/perf-%d.map", p->tgid);
		p->perf_fd = safeopen(-1, path, &perf_open);
	}
	if (p->perf_fd >= 0)
		u->nr_fds++;
}

/* Read /proc/tgid/maps into a new uproc (not yet in the table). */
static struct uproc *proc_read(struct usyms *u, pid_t tgid)
{
	size_t linecap = 0, cap = 0;
	struct uproc *p;
	char *line = NULL;
	char path[64];
	struct stat st;
	int root_fd;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", tgid);
	f = fopen(path, "re");
	if (!f)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p) {
		fclose(f);
		return NULL;
	}
	p->tgid = tgid;
	p->perf_fd = -1;
	snprintf(path, sizeof(path), "/proc/%d/exe", tgid);
	if (!stat(path, &st)) {
		p->exe_dev = st.st_dev;
		p->exe_ino = st.st_ino;
	}
	root_fd = proc_root_fd(tgid);
	while (getline(&line, &linecap, f) > 0) {
		unsigned long long start, end, pgoff;
		unsigned int maj, min;
		unsigned long ino;
		char perms[8], *name;
		struct umap *m;
		int pos = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %lu %n", &start, &end, perms, &pgoff,
			   &maj, &min, &ino, &pos) < 7 || !pos)
			continue;
		if (!strchr(perms, 'x'))
			continue;
		name = line + pos;
		name[strcspn(name, "\n")] = '\0';
		if (p->nr == (int)cap) {
			size_t c = cap ? cap * 2 : 16;
			void *q = realloc(p->maps, c * sizeof(*p->maps));

			if (!q)
				break;
			p->maps = q;
			cap = c;
		}
		m = &p->maps[p->nr];
		memset(m, 0, sizeof(*m));
		m->start = start;
		m->end = end;
		m->pgoff = pgoff;
		if (!strcmp(name, "[vdso]")) {
			m->kind = UMAP_VDSO;
		} else if (name[0] == '/' && ino) {
			m->kind = UMAP_FILE;
			m->file = file_get(u, tgid, root_fd, makedev(maj, min), ino, start, end,
					   name);
			if (!m->file)
				continue;
		} else if (!strcmp(name, "[vsyscall]")) {
			continue;
		} else {
			m->kind = UMAP_ANON;	/* JIT code: /tmp/perf-PID.map */
		}
		p->nr++;
	}
	free(line);
	fclose(f);
	qsort(p->maps, p->nr, sizeof(*p->maps), cmp_umap);
	open_perf_map(u, p, root_fd);
	if (root_fd >= 0)
		close(root_fd);
	return p;
}

static void proc_insert(struct usyms *u, struct uproc *p)
{
	unsigned int h = hash_pid(p->tgid);

	p->next = u->procs[h];
	u->procs[h] = p;
	u->nr_procs++;
}

static void proc_unlink(struct usyms *u, struct uproc *p)
{
	struct uproc **pp;

	for (pp = &u->procs[hash_pid(p->tgid)]; *pp; pp = &(*pp)->next) {
		if (*pp == p) {
			*pp = p->next;
			u->nr_procs--;
			return;
		}
	}
}

/*
 * Is the process's dynamic loader still mapping its libraries? At exec
 * the kernel maps the program and its loader (AT_BASE); the loader maps
 * the libraries before main() and says when it is done where debuggers
 * read it: _r_debug.r_state goes RT_ADD (1) while it adds objects,
 * RT_CONSISTENT (0) once they are in (r_version is 0 before it starts).
 * Code from only two files (the program and its loader) is the start of
 * that, or what is read when _r_debug cannot be. A snapshot taken then
 * has no libc: read again (usyms__settle()). A static program: no.
 */
#define LOADER_FILES	2

static const struct safeopen loader_open = {
	.min_size = 52,
	.max_size = 1ll << 30,
	.follow = true,		/* /proc/PID/map_files/: the mapped file itself */
};

static bool loader_consistent(pid_t tgid, __u64 start, __u64 end, __u64 base_start,
			      dev_t dev, unsigned long ino)
{
	/* one loader for every process, as a rule: its _r_debug's place once */
	static dev_t c_dev;
	static unsigned long c_ino;
	static __u64 c_vaddr, c_first;
	static const char *const names[] = { "_r_debug" };
	struct { __s32 version, pad; __u64 map, brk; __s32 state; } r;
	struct iovec local = { &r, sizeof(r) }, remote;
	char path[80];
	int fd;

	if (c_ino != ino || c_dev != dev) {
		snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", tgid,
			 (unsigned long long)start, (unsigned long long)end);
		fd = safeopen(-1, path, &loader_open);
		if (fd < 0)
			return true;
		if (elf_syms__dynamic(fd, names, &c_vaddr, 1, &c_first) || !c_vaddr)
			c_vaddr = 0;
		close(fd);
		c_dev = dev;
		c_ino = ino;
	}
	if (!c_vaddr)
		return true;	/* not glibc's: the files' count alone */
	remote.iov_base = (void *)(uintptr_t)(base_start - (c_first & ~0xfffull) + c_vaddr);
	remote.iov_len = sizeof(r);
	if (process_vm_readv(tgid, &local, 1, &remote, 1, 0) != sizeof(r))
		return true;
	return r.version && r.state == 0;
}

bool usyms__loader_at_work(pid_t tgid)
{
	unsigned long long st = 0, en = 0, first = ~0ull, ino_base = 0;
	unsigned long inos[LOADER_FILES + 1];
	unsigned long auxv[2], base = 0, dev_base = 0;
	char path[64], line[512];
	int n = 0, fd;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/auxv", tgid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	while (read(fd, auxv, sizeof(auxv)) == sizeof(auxv) && auxv[0] != AT_NULL)
		if (auxv[0] == AT_BASE)
			base = auxv[1];
	close(fd);
	if (!base)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/maps", tgid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e;
		unsigned int maj, min;
		unsigned long ino;
		char perms[8];
		int j = 0;

		/* a long path runs over: its rest is a line that does not parse */
		if (sscanf(line, "%llx-%llx %7s %*x %x:%x %lu", &s, &e, perms, &maj, &min,
			   &ino) != 6 || !ino)
			continue;
		if (s <= base && base < e) {
			ino_base = ino;
			dev_base = makedev(maj, min);
		}
		if (ino == ino_base && s < first)
			first = s;
		if (!strchr(perms, 'x'))
			continue;
		if (ino == ino_base && !st) {
			st = s;
			en = e;
		}
		while (j < n && inos[j] != ino)
			j++;
		if (j == n && n <= LOADER_FILES)
			inos[n++] = ino;
	}
	fclose(f);
	if (n <= LOADER_FILES)
		return n == LOADER_FILES;
	return st && !loader_consistent(tgid, st, en, first, dev_base, ino_base);
}

/* p was just read: keep it for usyms__settle() if its loader was at work. */
static void mark_loading(struct usyms *u, struct uproc *p, unsigned long long since)
{
	if (!usyms__loader_at_work(p->tgid))
		return;
	p->loading_ns = since ?: timefmt__mono_ns();
	u->nr_loading++;
}

int usyms__snapshot(struct usyms *u, pid_t tgid)
{
	struct uproc *p;

	if (proc_find(u, tgid))
		return 0;
	p = proc_read(u, tgid);
	if (!p)
		return -errno ?: -ENOENT;
	mark_loading(u, p, 0);
	proc_insert(u, p);
	return 0;
}

int usyms__refresh(struct usyms *u, pid_t tgid)
{
	struct uproc *old = proc_find(u, tgid), *p;

	/* read the new one first: files both use stay open */
	p = proc_read(u, tgid);
	if (!p)
		return -errno ?: -ENOENT;
	/*
	 * No code mapped: the process is exiting (its memory gone, a zombie's
	 * maps read empty), not running another program: the snapshot taken
	 * while it ran stays, for the stacks it left.
	 */
	if (old && !p->nr) {
		proc_free(u, p);
		return -ESRCH;
	}
	mark_loading(u, p, old ? old->loading_ns : 0);
	if (old) {
		proc_unlink(u, old);
		if (old->exe_ino != p->exe_ino || old->exe_dev != p->exe_dev) {
			/* an exec: the old program's snapshot kept (one) for its stacks */
			if (old->prev)
				proc_free(u, old->prev);
			old->prev = NULL;
			if (old->loading_ns) {
				old->loading_ns = 0;
				u->nr_loading--;
			}
			p->prev = old;
		} else {
			/* read again (libraries since): the program before stays */
			p->prev = old->prev;
			old->prev = NULL;
			proc_free(u, old);
		}
	}
	proc_insert(u, p);
	return 0;
}

/*
 * Every 10 ms at most, for 2 s at most: a process read as its loader
 * mapped libraries (the first sample after an exec comes there) is read
 * again until its libraries are in, while it lives: read at the report,
 * after it exited, its libraries' frames would have no name.
 */
#define SETTLE_EVERY_NS		10000000ull
#define SETTLE_FOR_NS		2000000000ull
#define SETTLE_BATCH		32

void usyms__settle(struct usyms *u)
{
	pid_t tgids[SETTLE_BATCH];
	unsigned long long now;
	int n = 0;

	if (!u || !u->nr_loading)
		return;
	now = timefmt__mono_ns();
	if (now - u->settle_ns < SETTLE_EVERY_NS)
		return;
	u->settle_ns = now;
	for (int h = 0; h < HASH_SIZE && n < SETTLE_BATCH; h++)
		for (struct uproc *p = u->procs[h]; p && n < SETTLE_BATCH; p = p->next)
			if (p->loading_ns)
				tgids[n++] = p->tgid;
	for (int i = 0; i < n; i++) {
		struct uproc *p = proc_find(u, tgids[i]);

		/* read again; gone, or its loader still at work after 2 s: as it is */
		if (now - p->loading_ns < SETTLE_FOR_NS && !usyms__refresh(u, tgids[i]))
			continue;
		p = proc_find(u, tgids[i]);
		if (p->loading_ns) {
			p->loading_ns = 0;
			u->nr_loading--;
		}
	}
}

void usyms__forget(struct usyms *u, pid_t tgid)
{
	struct uproc *p = proc_find(u, tgid);

	if (!p)
		return;
	proc_unlink(u, p);
	proc_free(u, p);
}

size_t usyms__count(const struct usyms *u)
{
	return u->nr_procs;
}

size_t usyms__cache_bytes(const struct usyms *u)
{
	return u->bytes;
}

void usyms__prune(struct usyms *u, bool (*keep)(pid_t tgid, void *ctx), void *ctx)
{
	char path[32];
	int h;

	for (h = 0; h < HASH_SIZE; h++) {
		struct uproc **pp = &u->procs[h];

		while (*pp) {
			struct uproc *p = *pp;

			snprintf(path, sizeof(path), "/proc/%d", p->tgid);
			if (!access(path, F_OK) || (keep && keep(p->tgid, ctx))) {
				pp = &p->next;
				continue;
			}
			*pp = p->next;
			u->nr_procs--;
			proc_free(u, p);
		}
	}
}

/* The mapping that holds addr: /proc/PID/maps' ranges never overlap. */
static const struct umap *map_find(const struct uproc *p, __u64 addr)
{
	const struct umap *m = SORTED_LAST_LE(p->maps, (size_t)p->nr, start, addr);

	return m && addr < m->end ? m : NULL;
}

/* Drop least recently used symbol tables until under the bound. */
static void evict(struct usyms *u, const struct ufile *keep)
{
	while (u->bytes > u->max_bytes) {
		struct ufile *f, *lru = NULL;
		int h;

		for (h = 0; h < HASH_SIZE; h++)
			for (f = u->files[h]; f; f = f->next)
				if (f->elf && f != keep && (!lru || f->used < lru->used))
					lru = f;
		if (!lru)
			return;
		elf_put(u, lru);
	}
}

static size_t table_bound(const struct usyms *u)
{
	return u->max_bytes < MIN_TABLE_BYTES ? MIN_TABLE_BYTES : u->max_bytes;
}

/* The separate debug file of f (build-id first, then .gnu_debuglink). */
static struct elf_syms *load_debug(struct usyms *u, struct ufile *f, const struct elf_syms *e)
{
	char id[2 * ELFSYMS_BUILD_ID_MAX + 1], path[PATH_MAX * 2 + 512], dir[PATH_MAX];
	struct elf_syms *d = NULL;
	char *slash;
	int i, fd;

	elf_syms__build_id_hex(e, id, sizeof(id));
	snprintf(dir, sizeof(dir), "%s", f->path);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	for (i = 0; i < 8 && !d; i++) {
		int root = -1;

		switch (i) {
		case 0: case 1:
			if (strlen(id) < 4)
				continue;
			snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s.debug", u->debug_dir, id,
				 id + 2);
			root = i == 0 ? f->root_fd : -1;
			break;
		case 2: case 3:
			if (!e->debuglink[0])
				continue;
			snprintf(path, sizeof(path), "%s%s/%s", u->debug_dir, dir, e->debuglink);
			root = i == 2 ? f->root_fd : -1;
			break;
		case 4: case 5:
			if (!e->debuglink[0])
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, e->debuglink);
			root = i == 4 ? f->root_fd : -1;
			break;
		default:
			if (!e->debuglink[0])
				continue;
			snprintf(path, sizeof(path), "%s/.debug/%s", dir, e->debuglink);
			root = i == 6 ? f->root_fd : -1;
			break;
		}
		if (i % 2 == 0 && f->root_fd < 0)
			continue;	/* the same path twice */
		/* .gnu_debuglink names a file wherever the binary is: never a link */
		fd = safeopen(root, path, i < 2 ? &build_id_open : &elf_open);
		if (fd < 0)
			continue;
		d = elf_syms__load_fd_max(fd, table_bound(u));
		close(fd);
		/* a debug file of another build is worse than none */
		if (d && (!d->has_symtab || (e->build_id_len && d->build_id_len &&
		    (e->build_id_len != d->build_id_len ||
		     memcmp(e->build_id, d->build_id, e->build_id_len))))) {
			elf_syms__free(d);
			d = NULL;
		}
	}
	return d;
}

static struct uelf *file_elf(struct usyms *u, struct ufile *f)
{
	char path[1024];
	struct elf_syms *e, *d;
	struct ufile *o;
	int fd = f->fd, h;

	f->used = ++u->tick;
	if (f->elf || f->failed)
		return f->elf;
	if (fd < 0) {
		/* over the fd budget at snapshot: by path, if it is still that file */
		fd = safeopen(f->root_fd, f->path, &elf_open);
		if (fd >= 0 && !same_file(fd, f->dev, f->ino)) {
			close(fd);
			fd = -1;
		}
	}
	if (fd < 0) {
		f->failed = true;
		return NULL;
	}
	/* one file's table alone may take the whole budget, never more */
	e = elf_syms__load_fd_max(fd, table_bound(u));
	if (fd != f->fd)
		close(fd);
	if (!e) {
		f->failed = true;
		return NULL;
	}
	if (e->truncated)
		msg__verbose("symbols of %s: %zu kept, the table is bounded at %zu MiB",
			     esc__cstr(path, sizeof(path), f->path, 0), e->nr, table_bound(u) >> 20);
	if (!e->has_symtab) {
		d = load_debug(u, f, e);
		if (d) {
			elf_syms__merge(e, d);
			elf_syms__free(d);
		}
	}
	/*
	 * Another file with this build-id (a container's copy): share its
	 * table if it is the same table. Anyone can write any build-id, so
	 * the build-id alone must not let one file name another's symbols.
	 */
	if (e->build_id_len) {
		for (h = 0; h < HASH_SIZE; h++) {
			for (o = u->files[h]; o; o = o->next) {
				if (!o->elf || !elf_syms__same(o->elf->syms, e))
					continue;
				elf_syms__free(e);
				f->elf = o->elf;
				f->elf->refs++;
				return f->elf;
			}
		}
	}
	f->elf = calloc(1, sizeof(*f->elf));
	if (!f->elf) {
		elf_syms__free(e);
		return NULL;
	}
	f->elf->syms = e;
	f->elf->refs = 1;
	u->bytes += e->bytes;
	evict(u, f);
	return f->elf;
}

static const struct elf_syms *vdso_syms(struct usyms *u)
{
	unsigned long long start, end;
	char line[256];
	FILE *f;

	if (u->vdso_tried)
		return u->vdso;
	u->vdso_tried = true;
	/* every process maps the same vdso image: read ours */
	f = fopen("/proc/self/maps", "re");
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "[vdso]") && sscanf(line, "%llx-%llx", &start, &end) == 2 &&
		    getauxval(AT_SYSINFO_EHDR) == start) {
			u->vdso = elf_syms__load_mem((const void *)(uintptr_t)start, end - start);
			break;
		}
	}
	fclose(f);
	return u->vdso;
}

static int cmp_perfsym(const void *a, const void *b)
{
	const struct perfsym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static size_t hash_name(const char *s)
{
	size_t h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

/* name stored once in t; *cost gets the bytes it added. NULL: no memory. */
static const char *perf_intern(struct perf_names *t, const char *name, size_t *cost)
{
	size_t i, len = strlen(name);

	*cost = 0;
	if (2 * (t->n + 1) > t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;
		char **v = calloc(cap, sizeof(*v));

		if (!v)
			return NULL;
		for (i = 0; i < t->cap; i++) {
			size_t j;

			if (!t->v[i])
				continue;
			for (j = hash_name(t->v[i]) & (cap - 1); v[j]; j = (j + 1) & (cap - 1))
				;
			v[j] = t->v[i];
		}
		free(t->v);
		*cost += (cap - t->cap) * sizeof(*v);
		t->v = v;
		t->cap = cap;
	}
	for (i = hash_name(name) & (t->cap - 1); t->v[i]; i = (i + 1) & (t->cap - 1))
		if (!strcmp(t->v[i], name))
			return t->v[i];
	t->v[i] = malloc(len + 1);
	if (!t->v[i])
		return NULL;
	memcpy(t->v[i], name, len + 1);
	t->n++;
	*cost += len + 1 + 16;	/* and malloc's overhead */
	return t->v[i];
}

/*
 * What a JIT appended to p's perf map since the last read ("START SIZE
 * name" lines, hex, as perf reads them; a line not yet ended is left for
 * the next read), merged into p->perf. Its memory is charged to u's
 * budget: every process's perf maps together keep to half of it.
 */
static void perf_read(struct usyms *u, struct uproc *p)
{
	size_t first = p->nr_perf, i, j, k, used = 0, cost;
	struct perfsym *merged;
	bool stop = false;
	char buf[65536], *line, *nl;
	struct stat st;
	ssize_t got;

	if (p->perf_fd < 0 || p->perf_full || fstat(p->perf_fd, &st) || st.st_size <= p->perf_off)
		return;
	while (!stop && p->perf_off + (off_t)used < st.st_size && p->perf_off < MAX_PERF_MAP) {
		got = pread(p->perf_fd, buf + used, sizeof(buf) - 1 - used, p->perf_off + used);
		if (got <= 0)
			break;
		used += got;
		buf[used] = 0;
		line = buf;
		while (!stop && (nl = memchr(line, '\n', buf + used - line))) {
			unsigned long long start, size;
			const char *name;
			int pos = 0;

			*nl = 0;
			if (sscanf(line, "%llx %llx %n", &start, &size, &pos) >= 2 && pos && line[pos]) {
				size_t grow = p->cap_perf ? p->cap_perf : 64;
				/* at most what this entry adds: its name, the arrays' growth */
				size_t need = strlen(line + pos) + 1 + 16 +
					      (p->nr_perf == p->cap_perf ? grow * sizeof(*p->perf) : 0) +
					      (2 * (p->names.n + 1) > p->names.cap ?
					       (p->names.cap ? p->names.cap : 256) * sizeof(char *) : 0);

				if (u->perf_bytes + need > u->max_bytes / 2) {
					p->perf_full = stop = true;
					msg__verbose("pid %d: /tmp/perf-%d.map: %zu symbols read, the "
						     "rest over the symbols' memory bound", p->tgid, p->tgid,
						     p->nr_perf);
					break;
				}
				if (p->nr_perf == p->cap_perf) {
					void *q = realloc(p->perf, (p->cap_perf + grow) * sizeof(*p->perf));

					if (!q)
						break;
					cost = grow * sizeof(*p->perf);
					p->perf = q;
					p->cap_perf += grow;
					p->perf_bytes += cost;
					u->perf_bytes += cost;
					u->bytes += cost;
				}
				name = perf_intern(&p->names, line + pos, &cost);
				p->perf_bytes += cost;
				u->perf_bytes += cost;
				u->bytes += cost;
				if (!name)
					break;
				p->perf[p->nr_perf] = (struct perfsym){ start, size, name, p->nr_perf };
				p->nr_perf++;
			}
			p->perf_off += nl + 1 - line;
			line = nl + 1;
		}
		if (nl)
			break;	/* out of memory */
		used = buf + used - line;
		if (line == buf && used == sizeof(buf) - 1) {
			/* a line longer than the buffer (no JIT writes one): skipped */
			p->perf_off += used;
			used = 0;
		} else {
			memmove(buf, line, used);
		}
	}
	evict(u, NULL);
	if (p->nr_perf == first)
		return;
	qsort(p->perf + first, p->nr_perf - first, sizeof(*p->perf), cmp_perfsym);
	/* merge the new run into the sorted old one: a refresh costs O(n), not a sort */
	merged = first ? malloc(p->nr_perf * sizeof(*merged)) : NULL;
	if (!merged) {
		if (first)
			qsort(p->perf, p->nr_perf, sizeof(*p->perf), cmp_perfsym);
		return;
	}
	for (i = 0, j = first, k = 0; k < p->nr_perf; k++)
		merged[k] = j >= p->nr_perf || (i < first && cmp_perfsym(&p->perf[i], &p->perf[j]) <= 0) ?
			    p->perf[i++] : p->perf[j++];
	memcpy(p->perf, merged, p->nr_perf * sizeof(*merged));
	free(merged);
}

/* The perf-map symbol at addr: the latest entry that covers it. */
static const struct perfsym *perf_lookup(const struct uproc *p, __u64 addr)
{
	const struct perfsym *ps = SORTED_LAST_LE(p->perf, p->nr_perf, start, addr);

	return ps && addr - ps->start < ps->size ? ps : NULL;
}

/* ...read anew when the address is not there and the map has grown:
 * code a JIT compiled after the first read gets its name. */
static const struct perfsym *perf_find(struct usyms *u, struct uproc *p, __u64 addr)
{
	const struct perfsym *ps = perf_lookup(p, addr);

	if (ps)
		return ps;
	perf_read(u, p);
	return perf_lookup(p, addr);
}

bool syms_demangle = true;

enum { OPT_NO_DEMANGLE = 0x3000 };

static error_t parse_syms(int key, char *arg, struct argp_state *state)
{
	(void)arg;
	(void)state;
	if (key != OPT_NO_DEMANGLE)
		return ARGP_ERR_UNKNOWN;
	syms_demangle = false;
	return 0;
}

static const struct argp_option syms_options[] = {
	{ "no-demangle", OPT_NO_DEMANGLE, NULL, 0,
	  "Print C++ and Rust function names as the binary stores them (mangled)", 0 },
	{ 0 },
};

const struct argp syms__argp = { syms_options, parse_syms, NULL, NULL, NULL, NULL, NULL };

char *syms__demangle(const char *name)
{
	/* Itanium C++ and Rust's legacy names start _Z, Rust's v0 names _R */
	if (!syms_demangle || name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return NULL;
	/* with the parameters, as perf and bcc print them; a Rust hash left out */
	return cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI);
}

static const char *put_sym(char *buf, size_t len, const char *name, __u64 off, bool with_offset)
{
	char *d = syms__demangle(name);

	if (d)
		name = d;
	if (with_offset && off)
		snprintf(buf, len, "%s+0x%llx", name, (unsigned long long)off);
	else
		snprintf(buf, len, "%s", name);
	free(d);
	return buf;
}

const char *usyms__name(struct usyms *u, pid_t tgid, __u64 addr, bool with_offset,
			char *buf, size_t len)
{
	const struct elf_syms *es = NULL;
	const struct perfsym *ps;
	const struct umap *m;
	const char *name;
	struct uproc *p;
	__u64 off, vaddr;
	struct uelf *ue;

	if (!len)
		return buf;
	p = proc_find(u, tgid);
	if (!p && !usyms__snapshot(u, tgid))
		p = proc_find(u, tgid);
	if (!p)
		return put_sym(buf, len, "[unknown]", 0, false);
	m = map_find(p, addr);
	if (!m && !p->missed_refresh) {
		/* mapped after the snapshot (dlopen)? once per process */
		p->missed_refresh = true;
		if (!usyms__refresh(u, tgid)) {
			p = proc_find(u, tgid);
			p->missed_refresh = true;
			m = map_find(p, addr);
		}
	}
	/* a frame of the program it ran before its exec */
	if (!m && p->prev)
		m = map_find(p->prev, addr);
	if (!m || m->kind == UMAP_ANON) {
		ps = perf_find(u, p, addr);
		if (ps)
			return put_sym(buf, len, ps->name, addr - ps->start, with_offset);
		return put_sym(buf, len, "[unknown]", 0, false);
	}
	off = addr - m->start + m->pgoff;
	if (m->kind == UMAP_VDSO) {
		es = vdso_syms(u);
		off = addr - m->start;
	} else {
		ue = file_elf(u, m->file);
		es = ue ? ue->syms : NULL;
	}
	if (es && elf_syms__vaddr(es, off, &vaddr)) {
		name = elf_syms__find(es, vaddr, &off);
		if (name)
			return put_sym(buf, len, name, off, with_offset);
		off = vaddr;	/* what addr2line -e module takes */
	}
	snprintf(buf, len, "%s+0x%llx", m->kind == UMAP_VDSO ? "[vdso]" : m->file->base,
		 (unsigned long long)off);
	return buf;
}

int usyms__module(struct usyms *u, pid_t tgid, __u64 addr, struct usyms_module *mod)
{
	const struct elf_syms *es = NULL;
	const struct umap *m;
	struct uproc *p;
	struct uelf *ue;

	memset(mod, 0, sizeof(*mod));
	p = proc_find(u, tgid);
	m = p ? map_find(p, addr) : NULL;
	if (!m && p && p->prev)
		m = map_find(p->prev, addr);
	if (!m || m->kind == UMAP_ANON)
		return -ENOENT;
	mod->start = m->start;
	mod->end = m->end;
	mod->pgoff = m->pgoff;
	if (m->kind == UMAP_VDSO) {
		mod->path = "[vdso]";
		es = vdso_syms(u);
	} else {
		mod->path = m->file->path;
		ue = file_elf(u, m->file);
		es = ue ? ue->syms : NULL;
	}
	if (es && es->build_id_len)
		elf_syms__build_id_hex(es, mod->build_id, sizeof(mod->build_id));
	return 0;
}

void usyms__free(struct usyms *u)
{
	int h;

	if (!u)
		return;
	for (h = 0; h < HASH_SIZE; h++) {
		while (u->procs[h]) {
			struct uproc *p = u->procs[h];

			u->procs[h] = p->next;
			proc_free(u, p);
		}
	}
	elf_syms__free(u->vdso);
	free(u);
}
