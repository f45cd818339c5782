/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The errno values BPF programs compare helpers' returns with, and the
 * kernel's rule for a return that is an error: vmlinux.h carries no
 * macros, and these numbers are the stable UAPI ones
 * (include/uapi/asm-generic/errno-base.h, include/linux/err.h).
 */
#ifndef BPFLITE_ERRNO_BPF_H
#define BPFLITE_ERRNO_BPF_H

#define ENOENT		2
#define E2BIG		7
#define ENOMEM		12
#define EFAULT		14
#define EEXIST		17

#define MAX_ERRNO	4095

/* A syscall's or helper's return that is -1 .. -MAX_ERRNO. */
static __always_inline bool is_errno(long ret)
{
	return ret < 0 && ret >= -MAX_ERRNO;
}

#endif
