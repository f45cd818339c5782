#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# offcputime-lite --pprof FILE read back by real pprof readers: `go tool
# pprof` (Debian's golang-go) and `protoc --decode_raw`. The workload is
# tests/workloads/offcpu: offcpu_sleep_fn blocks in nanosleep, offcpu_pipe_fn
# on a pipe another process answers late, about 3:1, each measuring its own
# blocked time.

# bpflite: serial: the workload's sleep ratio read back from the profile (another
# file's CPU use on these 2 CPUs shifts it)

load helpers
load offcpu_helpers

setup() {
	require_root
	command -v go >/dev/null || skip "go (golang-go) not installed: scripts/deps.sh test"
	command -v protoc >/dev/null || skip "protoc (protobuf-compiler) not installed: scripts/deps.sh test"
	PROF=$BATS_TEST_TMPDIR/offcpu.pb.gz
	# go tool keeps its caches under HOME
	export HOME=$BATS_TEST_TMPDIR GOCACHE=$BATS_TEST_TMPDIR/gocache
}

# `go tool pprof` (helpers.bash's go() says go to a workload)
pprof() {
	command go tool pprof "$@"
}

# pprof_run TOOL_ARGS...: wl_run with --pprof PROF: the stacks go to the
# file, nothing to stdout.
pprof_run() {
	wl_run --pprof "$PROF" "$@"
	[ ! -s "$TOOL_OUT" ]
	[ -s "$PROF" ]
}

# pprof_cum FUNC [pprof options...]: FUNC's cumulative value in `go tool
# pprof -top` (off-CPU microseconds unless a -sample_index says otherwise).
pprof_cum() {
	local f=$1
	shift
	pprof -top -nodefraction=0 -nodecount=1000 "$@" "$PROF" 2>/dev/null |
		F=$f awk '$6 == ENVIRON["F"] { v = $4; sub(/[a-z]+$/, "", v); print v; found = 1; exit }
			  END { if (!found) print 0 }'
}

@test "pprof: go tool pprof -top shows the named sleeping functions in the workload's ratio, with their kernel frames" {
	local sleep_us pipe_us t_sleep t_pipe n top
	pprof_run
	top=$BATS_TEST_TMPDIR/top.txt
	pprof -top -nodefraction=0 -nodecount=1000 -unit=us "$PROF" >"$top"
	cat "$top" | head -30
	grep -q '^Type: off_cpu$' "$top"
	sleep_us=$(jq .sleep_us "$WLOUT")
	pipe_us=$(jq .pipe_us "$WLOUT")
	n=$(jq .n "$WLOUT")
	t_sleep=$(pprof_cum offcpu_sleep_fn -unit=us)
	t_pipe=$(pprof_cum offcpu_pipe_fn -unit=us)
	echo "workload: sleep ${sleep_us}us pipe ${pipe_us}us; pprof: sleep ${t_sleep}us pipe ${t_pipe}us"
	# each within what was asked and what the workload measured
	assert_between "sleep (us)" "$t_sleep" $((n * 75000 * 95 / 100)) $((sleep_us * 11 / 10))
	assert_between "pipe (us)" "$t_pipe" $((n * 25000 * 95 / 100)) $((pipe_us * 11 / 10))
	# the ratio the workload measured, within 10 %
	assert_between "ratio pprof/workload" \
		"$(awk -v a="$t_sleep" -v b="$t_pipe" -v c="$sleep_us" -v d="$pipe_us" 'BEGIN { print (a / b) / (c / d) }')" 0.9 1.1
	# one off-CPU episode per call: the samples/count sample type
	assert_between "sleep count" "$(pprof_cum offcpu_sleep_fn -sample_index=samples)" "$n" $((n + 2))
	assert_between "pipe count" "$(pprof_cum offcpu_pipe_fn -sample_index=samples)" "$n" $((n + 2))
	# kernel frames, named, with the sleeps under them
	grep -Eq ' do_nanosleep$' "$top"
	grep -Eq ' (__)?schedule$' "$top"
	grep -Eq ' [a-z_]*pipe_read$' "$top"
	assert_between "do_nanosleep/offcpu_sleep_fn" \
		"$(awk -v a="$(pprof_cum do_nanosleep -unit=us)" -v b="$t_sleep" 'BEGIN { print a / b }')" 0.95 1.05
	# never the tracer's own frames
	refute grep -Eq 'bpf_prog_|bpf_trace_run|__bpf_trace_' "$top"
}

@test "pprof: protoc --decode_raw parses it; sample types, comm label, mappings with build-ids" {
	local raw decoded id kid
	pprof_run
	decoded=$BATS_TEST_TMPDIR/decoded.txt
	zcat "$PROF" | protoc --decode_raw >"$decoded"
	# the string table (field 6) holds the sample types and the label key
	for s in samples count off_cpu nanoseconds comm offcpu '[kernel.kallsyms]' \
		offcpu_sleep_fn offcpu_pipe_fn main; do
		grep -qxF "6: \"$s\"" "$decoded" || { echo "no string $s" >&2; return 1; }
	done
	raw=$BATS_TEST_TMPDIR/raw.txt
	pprof -raw "$PROF" >"$raw"
	head -20 "$raw"
	# samples/count and off_cpu/nanoseconds, the latter the default
	grep -qx 'samples/count off_cpu/nanoseconds\[dflt\]' "$raw"
	grep -qx 'PeriodType: off_cpu nanoseconds' "$raw"
	# every sample of the workload carries its comm
	grep -q 'comm:\[offcpu\]' "$raw"
	refute grep -Eq 'pid:|tid:' "$raw"
	# the workload's binary: its mapping and its build-id (readelf's)
	id=$(readelf -n "$WL/offcpu" | awk '/Build ID:/ { print $3 }')
	[ -n "$id" ]
	grep -E "^ *[0-9]+: .*$WL/offcpu" "$raw" | grep -q "$id"
	# the kernel's mapping, and its build-id when the kernel publishes one
	grep -Eq '^ *[0-9]+: .*\[kernel\.kallsyms\]' "$raw"
	kid=$(od -An -tx1 -v /sys/kernel/notes 2>/dev/null | tr -d ' \n' |
		sed -n 's/.*040000001400000003000000474e5500\([0-9a-f]\{40\}\).*/\1/p')
	[ -z "$kid" ] || grep -E '\[kernel\.kallsyms\]' "$raw" | grep -q "$kid"
	# kernel locations carry kernel addresses, user ones the binary's
	grep -Eq '0xffff[0-9a-f]+ M=[0-9]+ do_nanosleep' "$raw"
}

@test "pprof: -K keeps only kernel frames, -U only user frames" {
	local top=$BATS_TEST_TMPDIR/top.txt
	pprof_run -K
	pprof -top -nodefraction=0 "$PROF" >"$top"
	grep -Eq ' do_nanosleep$' "$top"
	refute grep -Eq ' offcpu_sleep_fn$' "$top"
	rm -f "$PROF"
	pprof_run -U
	pprof -top -nodefraction=0 "$PROF" >"$top"
	grep -Eq ' offcpu_sleep_fn$' "$top"
	refute grep -Eq ' do_nanosleep$' "$top"
}

@test "pprof: the file is opened safely and bad use fails clearly" {
	local f=$BATS_TEST_TMPDIR/target
	echo keep >"$f"
	ln -s "$f" "$BATS_TEST_TMPDIR/link"
	# a symlink is not followed: the file it names stays as it was
	expect_fail 1 "failed to open profile file .*link" "$BIN/offcputime-lite" --pprof "$BATS_TEST_TMPDIR/link" 1
	[ "$(cat "$f")" = keep ]
	# nor a hard link to a file of ours (made in a shared folder)
	ln "$f" "$BATS_TEST_TMPDIR/hardlink"
	expect_fail 1 "another hard link" "$BIN/offcputime-lite" --pprof "$BATS_TEST_TMPDIR/hardlink" 1
	[ "$(cat "$f")" = keep ]
	# a FIFO would block a writer without a reader: refused at once
	mkfifo "$BATS_TEST_TMPDIR/fifo"
	expect_fail 1 "failed to open profile file" timeout 10 "$BIN/offcputime-lite" --pprof "$BATS_TEST_TMPDIR/fifo" 1
	# someone else's file (fs.protected_regular's rule)
	touch "$BATS_TEST_TMPDIR/theirs"
	chown nobody "$BATS_TEST_TMPDIR/theirs"
	expect_fail 1 "failed to open profile file" "$BIN/offcputime-lite" --pprof "$BATS_TEST_TMPDIR/theirs" 1
	expect_fail 1 "failed to open profile file" "$BIN/offcputime-lite" --pprof /nonexistent/dir/p.pb.gz 1
	expect_fail 2 "no -f or --json" "$BIN/offcputime-lite" --pprof "$PROF" -f 1
	expect_fail 2 "no -f or --json" "$BIN/offcputime-lite" --pprof "$PROF" -j 1
	expect_fail 2 "needs a file name" "$BIN/offcputime-lite" --pprof "" 1
	# an existing file of ours is replaced by the profile
	echo old >"$PROF"
	run "$BIN/offcputime-lite" --pprof "$PROF" 1
	[ "$status" = 0 ]
	gzip -t "$PROF"
	zcat "$PROF" | protoc --decode_raw >/dev/null
}

@test "pprof: SIGTERM mid-run writes the profile of the run so far and leaves no BPF behind" {
	local go ids
	go=$(make_go)
	"$WL/offcpu" -n 40 -s 50 -p 20 -g "$go" >/dev/null &
	WLPID=$!
	start_tool offcputime-lite -p "$WLPID" --pprof "$PROF"
	ids=$(proc_bpf_ids "$TOOL_PID")
	go "$go"
	sleep 1
	stop_tool TERM
	kill "$WLPID" 2>/dev/null || true
	wait "$WLPID" 2>/dev/null || true
	[ "$TOOL_RC" = 0 ]
	pprof -top -nodefraction=0 "$PROF" | grep -Eq ' offcpu_sleep_fn$'
	assert_bpf_ids_gone "$ids"
}
