# SPDX-License-Identifier: GPL-2.0
# Helpers of execsnoop.bats and opensnoop.bats.

# Kernel memory (bytes) of the BPF maps process $1 holds, from the
# memlock line of each map's fdinfo: exact for that process, whatever
# else is loaded on the machine.
maps_bytes() {
	grep -h '^memlock:' $(grep -l '^map_id:' /proc/"$1"/fdinfo/* 2>/dev/null) 2>/dev/null |
		awk '{s += $2} END {print s + 0}'
}

maps_count() {
	grep -l '^map_id:' /proc/"$1"/fdinfo/* 2>/dev/null | wc -l
}

# IDs of loaded programs with the names these tools use (other tools
# are loaded and unloaded on the machine meanwhile: only ours count).
my_progs() {
	bpftool prog show -j 2>/dev/null | jq -r '.[] |
		select(.name | test("^(sys_enter_(execve|execveat|open|openat|openat2)|sys_exit_(execve|execveat|open|openat|openat2)|sched_process_exe)")) |
		.id' | sort -n | tr '\n' ' '
}

# None of our programs is loaded now that was not before (RCU: wait up to 5 s).
assert_no_progs_left() {
	local before=$1 now
	for _ in $(seq 50); do
		now=$(my_progs)
		[ "$now" = "$before" ] && return 0
		sleep 0.1
	done
	echo "programs left behind: before [$before] now [$now]" >&2
	return 1
}
