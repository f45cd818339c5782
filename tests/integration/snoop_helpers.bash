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

# run_snoop TOOL MODE TOOL_ARGS...: snoopwl's MODE list (execs, opens)
# under TOOL -j. Leaves WLP (workload PID), WLJ (its JSON) and TOOL_OUT.
run_snoop() {
	local tool=$1 mode=$2 go
	shift 2
	go=$(make_go)
	WLJ=$BATS_TEST_TMPDIR/wl.json
	"$WL/snoopwl" -g "$go" -d "$BATS_TEST_TMPDIR" "$mode" >"$WLJ" &
	WLP=$!
	start_tool "$tool" -j "$@"
	go "$go"
	wait "$WLP"
	sleep 0.3	# the reader polls every 100 ms
	stop_tool INT
	[ "$TOOL_RC" = 0 ]
	if [ -s "$TOOL_OUT" ]; then assert_ndjson "$TOOL_OUT"; fi
}
