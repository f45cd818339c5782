# SPDX-License-Identifier: GPL-2.0
# Helpers of offcputime.bats and pprof.bats.

# wl_run TOOL_ARGS...: offcpu (8 x 75 ms sleep, 8 x 25 ms pipe) under
# offcputime-lite -p. Leaves WLPID, WLOUT (the workload's JSON), TOOL_OUT.
wl_run() {
	local go
	go=$(make_go)
	WLOUT=$BATS_TEST_TMPDIR/wl.json
	"$WL/offcpu" -n 8 -s 75 -p 25 -g "$go" >"$WLOUT" &
	WLPID=$!
	rm -f "$BATS_TEST_TMPDIR/offcputime-lite.err"	# a stale banner would start the work early
	start_tool offcputime-lite -p "$WLPID" "$@"
	go "$go"
	wait "$WLPID"
	stop_tool INT
	[ "$TOOL_RC" = 0 ]
}
