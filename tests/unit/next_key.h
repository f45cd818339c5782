/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For a test that defines bpf_map_get_next_key() itself, in place of
 * libbpf's, to watch or change the map at each step of a walk: the
 * kernel's own step, and a check that the previous key is live memory
 * (the kernel reads it, which ASan does not see; with ASan's quarantine a
 * freed key still reads right).
 */
#ifndef BPFLITE_NEXT_KEY_H
#define BPFLITE_NEXT_KEY_H

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sanitizer/asan_interface.h>
#include <linux/bpf.h>
#include "unit.h"

static inline int sys_map_get_next_key(int fd, const void *key, size_t key_size, void *next_key)
{
	union bpf_attr attr;
	long r;

	if (key && __asan_region_is_poisoned((void *)key, key_size))
		fail_msg("bpf_map_get_next_key: the previous key is freed memory");
	memset(&attr, 0, sizeof(attr));
	attr.map_fd = fd;
	attr.key = (uintptr_t)key;
	attr.next_key = (uintptr_t)next_key;
	r = syscall(__NR_bpf, BPF_MAP_GET_NEXT_KEY, &attr, sizeof(attr));
	return r < 0 ? -errno : 0;
}

#endif
