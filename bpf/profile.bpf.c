// SPDX-License-Identifier: GPL-2.0
/*
 * profile-lite: on-CPU stacks sampled at a fixed rate. One software
 * cpu-clock perf event per CPU runs sample(); the interrupted thread's
 * stacks are counted in a hash keyed by thread, comm and stack ids.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "profile.h"
#include "bpf/filter.bpf.h"
#include "bpf/loss.bpf.h"
#include "bpf/errno.bpf.h"
#include "bpf/procsnap.bpf.h"
#include "bpf/tp.bpf.h"
#include "bpf/unwind.bpf.h"
#include "bpf/python.bpf.h"

#define PF_EXITING	0x00000004	/* include/linux/sched.h, stable */
#define PF_KTHREAD	0x00200000

const volatile bool cfg_include_idle = false;
const volatile bool cfg_kernel_stacks = true;	/* false with -U */
const volatile bool cfg_user_stacks = true;	/* false with -K */
/* --unwind auto|dwarf: user stacks by .eh_frame tables, both stacks in unw_stacks */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PROFILE_STACK_STORAGE);	/* set by user space */
	__type(key, struct profile_key);
	__type(value, __u64);				/* samples */
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, PROFILE_STACK_STORAGE);	/* set by user space */
	__uint(key_size, sizeof(__u32));
	__uint(value_size, PROFILE_MAX_STACK_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

SEC("perf_event")
int sample(struct bpf_perf_event_data *ctx)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	__u64 id = bpf_get_current_pid_tgid();
	struct profile_key key = {};
	__u64 one = 1, *n;
	bool kthread;

	/* tid 0: this CPU's idle task, kept only with -I */
	if (!(__u32)id && !cfg_include_idle)
		return 0;
	if (!filter_current())
		return 0;
	key.tgid = id >> 32;
	bpf_get_current_comm(key.comm, sizeof(key.comm));
	kthread = BPF_CORE_READ(t, flags) & PF_KTHREAD;
	/*
	 * -EFAULT is no stack to take: a sample in user mode has no kernel
	 * stack, a kernel thread no user stack. Anything else is a loss.
	 */
	key.kern_stack_id = !cfg_kernel_stacks ? -EFAULT :
			    cfg_unwind_tables ? unw_kernel_stack(ctx) :
			    bpf_get_stackid(ctx, &stacks, 0);
	key.user_stack_id = -EFAULT;
	key.py_stack_id = -EFAULT;
	if (cfg_user_stacks && !kthread && (__u32)id) {
		key.py_stack_id = py_take_stack(key.tgid, (__u32)id);
		key.user_stack_id = cfg_unwind_tables ? unw_user_stack(key.tgid) :
				    bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);
		/* an exiting task has no mappings left to snapshot */
		if (!(BPF_CORE_READ(t, flags) & PF_EXITING))
			procsnap_note(key.tgid);
	}
	if (key.kern_stack_id < 0 && key.kern_stack_id != -EFAULT)
		loss_inc(stacks);
	if (key.user_stack_id < 0 && key.user_stack_id != -EFAULT)
		loss_inc(stacks);

	n = bpf_map_lookup_elem(&counts, &key);
	if (n) {
		__sync_fetch_and_add(n, 1);
		return 0;
	}
	if (bpf_map_update_elem(&counts, &key, &one, BPF_NOEXIST)) {
		/* another CPU added it meanwhile, or the map is full */
		n = bpf_map_lookup_elem(&counts, &key);
		if (n)
			__sync_fetch_and_add(n, 1);
		else
			loss_inc(map_full);
	}
	return 0;
}

TP_PROG(sched_process_exec, sched_process_exec, struct task_struct *p)
{
	if (cfg_unwind_tables)
		unw_exec(p);
	if (cfg_python)
		py_exec(p);
	return procsnap_exec(p);
}

TP_PROG(sched_process_exit, sched_process_exit, struct task_struct *p)
{
	if (cfg_unwind_tables)
		unw_exit(p);
	if (cfg_python)
		py_exit(p);
	return procsnap_exit(p);
}

char LICENSE[] SEC("license") = "GPL";
