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
