/* SPDX-License-Identifier: GPL-2.0 */
/* profile-lite: kernel <-> user ABI. */
#ifndef BPFLITE_PROFILE_H
#define BPFLITE_PROFILE_H

#define PROFILE_COMM_LEN	16
/* Flags, as offcputime-lite's: the stack map is most of the memory. */
#define PROFILE_STACK_STORAGE	16384
#define PROFILE_MAX_STACK_DEPTH	64

/*
 * Aggregation key: one per process and stack pair, as bcc's profile
 * (threads come and go; processes are what a profile is read by).
 */
struct profile_key {
	__u32 tgid;
	__s32 kern_stack_id;		/* <0: -errno of bpf_get_stackid */
	__s32 user_stack_id;
	__s32 py_stack_id;		/* in py_stacks (--python); -EFAULT: none */
	char comm[PROFILE_COMM_LEN];
};

#endif
