#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The symbolizer reads, as root, files that other users control. Each case
# is set up as an unprivileged user would: a FIFO or another user's file at
# /tmp/perf-PID.map, a stripped binary whose .gnu_debuglink names a FIFO
# or a symlink to /proc/kmsg. offcputime-lite (every stack tool shares the
# symbolizer) must finish on time, name what it can (kernel frames, the
# named functions, module+offset), and say under -v which file it skipped
# and why.

load helpers

setup() {
	require_root
	PERFMAP=
}

teardown() {
	[ -z "$PERFMAP" ] || rm -f "$PERFMAP"
}

# offcpu_run BIN SETUP_FN: BIN (the offcpu workload or a copy) under
# offcputime-lite -f -v -p PID 3; SETUP_FN runs with WLPID set before go.
# The tool must end by itself (no signal: a signal would interrupt a
# blocking open) within 10 s, else it is killed and the test fails.
offcpu_run() {
	local bin=$1 setup_fn=$2 go i
	go=$(make_go)
	"$bin" -n 4 -s 30 -p 10 -g "$go" >"$BATS_TEST_TMPDIR/wl.json" &
	WLPID=$!
	$setup_fn
	start_tool offcputime-lite -f -v -p "$WLPID" 3
	go "$go"
	wait "$WLPID"
	for i in $(seq 100); do
		kill -0 "$TOOL_PID" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$TOOL_PID" 2>/dev/null; then
		kill -9 "$TOOL_PID"
		wait "$TOOL_PID" || true
		echo "offcputime-lite -p PID 3 did not finish within 10 s" >&2
		tail -5 "$TOOL_ERR" >&2
		return 1
	fi
	wait_tool
	[ "$TOOL_RC" = 0 ]
	# kernel frames named whatever happened to the user side
	grep -q "do_nanosleep" "$TOOL_OUT"
}

perfmap_fifo() {
	PERFMAP=/tmp/perf-$WLPID.map
	rm -f "$PERFMAP"
	setpriv --reuid=65534 --regid=65534 --clear-groups mkfifo "$PERFMAP"
}

@test "untrusted files: a FIFO at /tmp/perf-PID.map is skipped, not opened for good" {
	offcpu_run "$WL/offcpu" perfmap_fifo
	grep -q ";offcpu_sleep_fn;" "$TOOL_OUT"
	grep -E "skipped /tmp/perf-$WLPID.map: not a regular file \(FIFO\)" "$TOOL_ERR"
}

perfmap_foreign() {
	PERFMAP=/tmp/perf-$WLPID.map
	rm -f "$PERFMAP"
	setpriv --reuid=65534 --regid=65534 --clear-groups sh -c "echo '401000 100 forged_fn' > $PERFMAP"
}

@test "untrusted files: a perf map owned by another user than the process's is skipped" {
	offcpu_run "$WL/offcpu" perfmap_foreign
	grep -q ";offcpu_sleep_fn;" "$TOOL_OUT"
	grep -E "skipped /tmp/perf-$WLPID.map: owned by uid 65534" "$TOOL_ERR"
}

# A stripped copy of offcpu whose .gnu_debuglink names offcpu.dbg beside it.
stripped_copy() {
	STRIPPED=$BATS_TEST_TMPDIR/offcpu
	cp "$WL/offcpu" "$STRIPPED"
	objcopy --only-keep-debug "$STRIPPED" "$STRIPPED.dbg"
	strip --strip-all "$STRIPPED"
	objcopy --add-gnu-debuglink="$STRIPPED.dbg" "$STRIPPED"
	rm "$STRIPPED.dbg"
}

@test "untrusted files: a .gnu_debuglink naming a FIFO is skipped" {
	stripped_copy
	mkfifo "$STRIPPED.dbg"
	offcpu_run "$STRIPPED" true
	# named what it can: the module and offset of each user frame
	grep -Eq ";offcpu\+0x[0-9a-f]+;.*do_nanosleep" "$TOOL_OUT"
	grep -E "skipped $STRIPPED.dbg: not a regular file \(FIFO\)" "$TOOL_ERR"
}

@test "untrusted files: a .gnu_debuglink naming a symlink to /proc/kmsg is skipped" {
	stripped_copy
	ln -s /proc/kmsg "$STRIPPED.dbg"
	offcpu_run "$STRIPPED" true
	grep -Eq ";offcpu\+0x[0-9a-f]+;.*do_nanosleep" "$TOOL_OUT"
	grep -E "skipped $STRIPPED.dbg: a symbolic link" "$TOOL_ERR"
}
