# SPDX-License-Identifier: GPL-2.0
# Helpers of offcputime.bats and pprof.bats.

# wl_run TOOL_ARGS...: offcpu (8 x 75 ms sleep, 8 x 25 ms pipe) under
# offcputime-lite -p. Leaves WLPID, WLOUT (the workload's JSON), TOOL_OUT.
# The kernel's own trace of the workload's switches (ktrace_*) says whether
# the kernel traced every one: a host kernel that packs vCPUs leaves about
# one wait in 500 untraced, half or whole, for every tracer. Then the run
# lacks what the checks compare with the workload's clock: it is run again,
# once, and says so. A wait the kernel traced half of is one the tool must
# have reported ("waits not timed").
wl_run() {
	traced_run 16 wl_once "$@"
}

wl_once() {
	local go
	go=$(make_go)
	WLOUT=$BATS_TEST_TMPDIR/wl.json
	"$WL/offcpu" -n 8 -s 75 -p 25 -g "$go" >"$WLOUT" &
	WLPID=$!
	rm -f "$BATS_TEST_TMPDIR/offcputime-lite.err"	# a stale banner would start the work early
	start_tool offcputime-lite -p "$WLPID" "$@"
	ktrace_sched "$WLPID"
	go "$go"
	wait "$WLPID"
	stop_tool INT
	ktrace_stop
	[ "$TOOL_RC" = 0 ]
}

# traced_run N CMD...: ktrace_twice over N blocking waits; after an
# incomplete trace, the tool must have reported the waits it shows half.
traced_run() {
	local need=$1
	shift
	KTRACE_CHECK=tool_reported_half ktrace_twice "$need" "S|D" "$@"
}

# The waits the kernel's trace shows half (two switch-outs in a row), the
# tool reported as not timed, once it has ended (its report is out).
tool_reported_half() {
	echo "# tool: $(grep 'waits not timed' "$TOOL_ERR" || echo nothing lost)" | tee /dev/fd/3
	[ -n "${TOOL_RC:-}" ] || return 0
	[ "$(tool_unended)" -ge "$KTRACE_HALF" ]
}

# Waits the kernel traced half of, from the tool's warning (0 when none).
tool_unended() { tool_err_count "waits not timed"; }
