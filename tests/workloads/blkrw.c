// SPDX-License-Identifier: GPL-2.0
/*
 * blkrw: O_DIRECT writes then reads of a known count and size, one at a
 * time (each waits for the previous one), at distinct offsets of a block
 * device or file: one block request each on a quiet device. Prints one
 * JSON line with what it did.
 *   blkrw -f PATH [-w writes] [-r reads] [-s size] [-g go_fifo]
 *         [-C bytes (create/extend a regular file first)]
 */
#include <sys/stat.h>
#include "wl.h"

int main(int argc, char **argv)
{
	long writes = 0, reads = 0, size = 4096, create = 0, i;
	const char *path = NULL, *go = NULL;
	unsigned long long t0, t1;
	void *buf;
	int opt, fd;

	while ((opt = getopt(argc, argv, "f:w:r:s:g:C:")) != -1) {
		switch (opt) {
		case 'f': path = optarg; break;
		case 'w': writes = atol(optarg); break;
		case 'r': reads = atol(optarg); break;
		case 's': size = atol(optarg); break;
		case 'g': go = optarg; break;
		case 'C': create = atol(optarg); break;
		default: return 2;
		}
	}
	if (!path || size <= 0 || size % 512) {
		fprintf(stderr, "usage: blkrw -f PATH [-w N] [-r N] [-s SIZE (x512)] [-g FIFO] [-C BYTES]\n");
		return 2;
	}
	if (create) {
		fd = open(path, O_RDWR | O_CREAT, 0600);
		if (fd < 0 || ftruncate(fd, create)) {
			perror(path);
			return 1;
		}
		close(fd);
	}
	fd = open(path, O_RDWR | O_DIRECT);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	if (posix_memalign(&buf, 4096, size)) {
		perror("posix_memalign");
		return 1;
	}
	memset(buf, 0xa5, size);
	wl_wait_go(go);
	t0 = wl_now_ns();
	for (i = 0; i < writes; i++) {
		if (pwrite(fd, buf, size, i * size) != size) {
			perror("pwrite");
			return 1;
		}
	}
	for (i = 0; i < reads; i++) {
		if (pread(fd, buf, size, i * size) != size) {
			perror("pread");
			return 1;
		}
	}
	t1 = wl_now_ns();
	close(fd);
	printf("{\"pid\":%d,\"writes\":%ld,\"reads\":%ld,\"size\":%ld,\"elapsed_ns\":%llu,"
	       "\"ns_per_io\":%.0f}\n", getpid(), writes, reads, size, t1 - t0,
	       writes + reads ? (double)(t1 - t0) / (writes + reads) : 0.0);
	return 0;
}
