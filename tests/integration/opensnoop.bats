#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# opensnoop-lite against snoopwl's known list of opens (open, openat,
# openat2; created, directory, failing) and a burst of opens whose count
# the tool must account for exactly: seen + reported lost = issued.

load helpers
load snoop_helpers

setup() {
	require_root
}

# run_opens TOOL_ARGS...: snoopwl's open list under opensnoop-lite -j.
# Leaves WLP, WLJ and TOOL_OUT.
run_opens() {
	run_snoop opensnoop-lite opens "$@"
}

# The workload's opens as the tool must show them, filtered by a jq condition.
expected() {
	jq -c "[.opens[] | select(${1:-true}) | {syscall, path, flags, fd, err}]" "$WLJ"
}

# The tool's events for the workload, in order, without the loader's opens
# (the workload is static: it opens only what it was told to), and without
# what it opened up to its go FIFO: a tool that attaches quickly sees those.
reported() {
	jq -sc --argjson w "$WLP" '[.[] | select(.type == "open" and .pid == $w) | {syscall, path, flags, fd, err}] |
		([to_entries[] | select(.value.path | test("/go\\.[0-9]+$")) | .key][0]) as $g |
		if $g == null then . else .[$g + 1:] end' "$TOOL_OUT"
}

assert_same() {
	if [ "$1" != "$2" ]; then
		echo "expected: $1" >&2
		echo "reported: $2" >&2
		diff <(echo "$1" | jq .) <(echo "$2" | jq .) >&2
		return 1
	fi
}

# bats test_tags=smoke, vm
@test "opensnoop: every open matches the workload: syscall, path, flags, fd or errno" {
	# -p of another live process is accepted, and hides the workload
	run_opens -p "$$"
	[ "$(reported | jq length)" = 0 ]
	run_opens
	assert_same "$(expected)" "$(reported)"
	# the names of the flags, and the comm
	jq -se --argjson w "$WLP" '[.[] | select(.type == "open" and .pid == $w)] |
		(.[1].flag_names == ["O_WRONLY", "O_CREAT", "O_TRUNC"]) and (.[3].flag_names == ["O_RDONLY", "O_DIRECTORY"])
		and all(.comm == "snoopwl") and (.[4].err == 2) and (.[5].err == 21)' "$TOOL_OUT"
}

@test "opensnoop: every open matches the workload on both loaders (light, forced libbpf skeleton)" {
	run_opens -v
	grep -q "loader: light" "$TOOL_ERR"
	assert_same "$(expected)" "$(reported)"
	run_opens -v --force-libbpf
	grep -q "loader: libbpf skeleton (forced)" "$TOOL_ERR"
	assert_same "$(expected)" "$(reported)"
}

@test "opensnoop: -p and -t keep only that process or thread" {
	local go other
	go=$(make_go)
	mkdir "$BATS_TEST_TMPDIR/o"
	"$WL/snoopwl" -g "$go" -d "$BATS_TEST_TMPDIR/o" opens >/dev/null &
	other=$!
	run_opens_p() {
		local g
		g=$(make_go)
		"$WL/snoopwl" -g "$g" -d "$BATS_TEST_TMPDIR" opens >"$BATS_TEST_TMPDIR/wl.json" &
		WLP=$!
		WLJ=$BATS_TEST_TMPDIR/wl.json
		start_tool opensnoop-lite -j "$1" "$WLP"
		go "$g"; go "$go"
		wait "$WLP" "$other"
		sleep 0.3
		stop_tool INT
	}
	run_opens_p -p
	assert_same "$(expected)" "$(reported)"
	jq -se --argjson w "$WLP" '[.[] | select(.type == "open") | .pid] | all(. == $w)' "$TOOL_OUT"

	go=$(make_go)
	"$WL/snoopwl" -g "$go" -d "$BATS_TEST_TMPDIR/o" opens >/dev/null &
	other=$!
	run_opens_p -t
	assert_same "$(expected)" "$(reported)"
	jq -se --argjson w "$WLP" '[.[] | select(.type == "open") | .tid] | all(. == $w)' "$TOOL_OUT"
}

@test "opensnoop: -x keeps only the failed opens (ENOENT, EISDIR)" {
	run_opens -x
	assert_same "$(expected '.err != 0')" "$(reported)"
	[ "$(reported | jq length)" = 2 ]
	jq -se '[.[] | select(.type == "open") | .fd] | all(. == -1)' "$TOOL_OUT"
}

@test "opensnoop: -f FLAG keeps opens with that flag; access modes by value" {
	run_opens -f O_CREAT
	assert_same "$(expected '(.flags % 128) >= 64')" "$(reported)"
	[ "$(reported | jq length)" = 3 ]
	run_opens -f O_DIRECTORY
	assert_same "$(expected '.flags == 65536')" "$(reported)"
	run_opens -f O_WRONLY -f rdwr
	assert_same "$(expected '(.flags % 4) == 1 or (.flags % 4) == 2')" "$(reported)"
	[ "$(reported | jq length)" = 4 ]
	run_opens -f O_RDONLY
	assert_same "$(expected '(.flags % 4) == 0')" "$(reported)"
	[ "$(reported | jq length)" = 3 ]
}

@test "opensnoop: -f of a flag with several bits (O_TMPFILE, O_SYNC) needs all of them" {
	# O_TMPFILE is __O_TMPFILE|O_DIRECTORY (0x410000), O_SYNC
	# __O_SYNC|O_DSYNC (0x101000); the workload opens O_RDWR|O_TMPFILE
	# and O_WRONLY|O_SYNC besides O_DIRECTORY and O_DSYNC
	run_snoop opensnoop-lite flagopens -f O_TMPFILE
	cat "$WLJ"
	[ "$(jq '[.opens[] | select(.err == 0)] | length' "$WLJ")" = 4 ]
	assert_same "$(expected ".flags == $((0x410002))")" "$(reported)"
	[ "$(reported | jq length)" = 1 ]
	run_snoop opensnoop-lite flagopens -f O_SYNC
	assert_same "$(expected ".flags == $((0x101001))")" "$(reported)"
	[ "$(reported | jq length)" = 1 ]
	# a flag's own bit matches, whatever else is set: O_SYNC opens have O_DSYNC's bit
	run_snoop opensnoop-lite flagopens -f O_DSYNC
	[ "$(reported | jq length)" = 2 ]
	jq -se --argjson w "$WLP" '[.[] | select(.type == "open" and .pid == $w) | .flag_names | index("O_DSYNC") != null] | all' "$TOOL_OUT"
	run_snoop opensnoop-lite flagopens -f O_DIRECTORY
	[ "$(reported | jq length)" = 2 ]
	# -f O_TMPFILE -f O_SYNC: either
	run_snoop opensnoop-lite flagopens -f O_TMPFILE -f O_SYNC
	[ "$(reported | jq length)" = 2 ]
}

@test "opensnoop: -n NAME skips other processes and never ends the tool" {
	run_opens -n nomatch
	[ "$(reported | jq length)" = 0 ]
	run_opens -n oopw
	assert_same "$(expected)" "$(reported)"
	jq -se '[.[] | select(.type == "open") | .comm] | all(test("oopw"))' "$TOOL_OUT"
}

@test "opensnoop: -u UID keeps only that user's opens" {
	command -v setpriv >/dev/null || skip "no setpriv"
	local go wp
	go=$(make_go)
	"$WL/snoopwl" -g "$go" -d "$BATS_TEST_TMPDIR" opens >/dev/null &
	wp=$!
	start_tool opensnoop-lite -j -u 65534
	go "$go"
	setpriv --reuid 65534 --regid 65534 --clear-groups cat /etc/hostname >/dev/null
	wait "$wp"
	sleep 0.3
	stop_tool INT
	jq -se '[.[] | select(.type == "open" and .comm == "cat" and .path == "/etc/hostname" and .uid == 65534)] | length == 1' "$TOOL_OUT"
	jq -se '[.[] | select(.type == "open") | .uid] | all(. == 65534)' "$TOOL_OUT"
	[ "$(jq -s --argjson w "$wp" '[.[] | select(.pid == $w)] | length' "$TOOL_OUT")" = 0 ]
}

@test "opensnoop: -F resolves relative paths against the cwd or the dirfd, marks a cut one" {
	run_opens -F
	jq -sce --slurpfile wl "$WLJ" --argjson w "$WLP" '
		[.[] | select(.type == "open" and .pid == $w)] as $r |
		($wl[0].opens | map(.full)[:6]) == ($r | map(.path)[:6]) and
		($r[:6] | all(.path_cut == false))' "$TOOL_OUT"
	# 40 directories deep: the last 32 names, marked as cut
	local deep want
	deep=$(jq -sr --argjson w "$WLP" '[.[] | select(.type == "open" and .pid == $w)][6] | "\(.path) \(.path_cut)"' "$TOOL_OUT")
	want=$(seq 8 39 | sed 's/^/d/' | paste -sd/)
	echo "deep: $deep"
	[ "$deep" = ".../$want/deep.txt true" ]
}

@test "opensnoop: text output: bcc's columns with -T -U -e, TID with -t" {
	local go wp
	go=$(make_go)
	"$WL/snoopwl" -g "$go" -d "$BATS_TEST_TMPDIR" opens >/dev/null &
	wp=$!
	start_tool opensnoop-lite -T -U -e -p "$wp"
	go "$go"
	wait "$wp"
	sleep 0.3
	stop_tool INT
	cat "$TOOL_OUT"
	grep -Eq '^TIME\(s\)       UID   PID    COMM               FD ERR FLAGS    PATH$' "$TOOL_OUT"
	grep -Eq "^[0-9]+\.[0-9]{9} +0 +$wp +snoopwl +[0-9]+ +0 00001101 rel.txt$" "$TOOL_OUT"
	grep -Eq "^[0-9.]+ +0 +$wp +snoopwl +-1 +2 00000000 missing.txt$" "$TOOL_OUT"
	grep -Eq " +-1 +21 00000001 .*/sub$" "$TOOL_OUT"
	start_tool opensnoop-lite -t "$$"
	stop_tool INT
	grep -Eq '^TID +COMM +FD ERR PATH$' "$TOOL_OUT"
}

@test "opensnoop: -d DURATION ends the run by itself with exit 0" {
	local t0 t1
	t0=$(date +%s%N)
	start_tool opensnoop-lite -d 2 -j
	cat /etc/hostname >/dev/null
	wait_tool
	t1=$(date +%s%N)
	[ "$TOOL_RC" = 0 ]
	assert_between "seconds" "$(( (t1 - t0) / 1000000 ))" 1500 6000
	jq -se '[.[] | select(.type == "open" and .path == "/etc/hostname")] | length >= 1' "$TOOL_OUT"
}

# burst N TOOL_ARGS...: N opens under opensnoop-lite -j -p; leaves BURST (workload JSON).
burst() {
	local n=$1 go
	shift
	go=$(make_go)
	"$WL/snoopwl" -g "$go" -d "$BATS_TEST_TMPDIR" burst "$n" >"$BATS_TEST_TMPDIR/burst.json" &
	WLP=$!
	start_tool opensnoop-lite -j -p "$WLP" "$@"
	go "$go"
	wait "$WLP"
	sleep 0.5
	stop_tool INT
	[ "$TOOL_RC" = 0 ]
	BURST=$(cat "$BATS_TEST_TMPDIR/burst.json")
}

seen() { jq -s --argjson w "$WLP" '[.[] | select(.type == "open" and .pid == $w and (.path | endswith("/burst")))] | length' "$TOOL_OUT"; }
lost() { jq -s '[.[] | select(.type == "loss") | .lost_events] | add // 0' "$TOOL_OUT"; }

@test "opensnoop: burst of 100000 opens: seen + reported lost = issued" {
	burst 100000
	local issued s l
	issued=$(echo "$BURST" | jq .issued)
	s=$(seen)
	l=$(lost)
	echo "$BURST; seen $s lost $l"
	[ "$issued" = 100000 ]
	[ $((s + l)) = "$issued" ]
	# the default buffer is sized to lose nothing here (make bench: 0);
	# a loaded machine may stall the reader, so only a bound is asserted
	[ $((l * 20)) -le "$issued" ]
}

@test "opensnoop: a 1-page buffer loses events, counts them exactly, SIGINT prints the loss summary" {
	burst 100000 -b 1
	local issued s l
	issued=$(echo "$BURST" | jq .issued)
	s=$(seen)
	l=$(lost)
	echo "$BURST; seen $s lost $l"
	[ "$l" -gt 0 ]
	[ $((s + l)) = "$issued" ]
	grep -q "warning: $l events lost (ring buffer full)" "$TOOL_ERR"
	tail -1 "$TOOL_OUT" | jq -e '.type == "loss"'
}

@test "opensnoop: never reports its own opens; SIGINT and SIGTERM leave no BPF behind" {
	local ids
	for sig in INT TERM; do
		start_tool opensnoop-lite -j
		ids=$(proc_bpf_ids "$TOOL_PID")
		cat /etc/hostname >/dev/null
		sleep 0.3
		stop_tool "$sig"
		[ "$TOOL_RC" = 0 ]
		jq -se '[.[] | select(.type == "open" and .path == "/etc/hostname")] | length >= 1' "$TOOL_OUT"
		[ "$(jq -s --argjson p "$TOOL_PID" '[.[] | select(.pid == $p)] | length' "$TOOL_OUT")" = 0 ]
		assert_bpf_ids_gone "$ids"
	done
}

@test "opensnoop: kernel maps take at most 4 MiB by default" {
	start_tool opensnoop-lite
	local total
	total=$(maps_bytes "$TOOL_PID")
	[ "$(maps_count "$TOOL_PID")" = 5 ]	# events, inflight, scratch, .rodata, .bss
	stop_tool INT
	echo "maps: $total bytes"
	assert_between "map bytes" "$total" 1 4194304
}

@test "opensnoop: mounts tracefs itself when it is not mounted (private mount namespace)" {
	command -v unshare >/dev/null || skip "no unshare"
	run unshare -m --propagation private sh -c '
		umount /sys/kernel/tracing 2>/dev/null; umount /sys/kernel/debug 2>/dev/null
		grep -q tracefs /proc/self/mounts && exit 9
		"$1" -d 1 -j -v 2>"$2" >/dev/null; rc=$?
		grep -E "mounted tracefs|Hit Ctrl-C" "$2"
		exit $rc' sh "$BIN/opensnoop-lite" "$BATS_TEST_TMPDIR/err"
	echo "$output"
	[ "$status" = 0 ]
	[[ "$output" == *"mounted tracefs at /sys/kernel/tracing"* ]]
	[[ "$output" == *"Hit Ctrl-C to end."* ]]
}

@test "opensnoop: agrees with a bpftrace reference on the workload's opens" {
	command -v bpftrace >/dev/null || skip "no bpftrace"
	ensure_tracefs
	local go bt btp
	go=$(make_go)
	"$WL/snoopwl" -g "$go" -d "$BATS_TEST_TMPDIR" opens >"$BATS_TEST_TMPDIR/wl.json" &
	WLP=$!
	WLJ=$BATS_TEST_TMPDIR/wl.json
	bt=$BATS_TEST_TMPDIR/bt.out
	bpftrace -e "
tracepoint:syscalls:sys_enter_open,tracepoint:syscalls:sys_enter_openat,tracepoint:syscalls:sys_enter_openat2
/pid == $WLP/ { @p[tid] = args->filename; }
tracepoint:syscalls:sys_exit_open,tracepoint:syscalls:sys_exit_openat,tracepoint:syscalls:sys_exit_openat2
/@p[tid]/ { printf(\"%d %s\\n\", args->ret, str(@p[tid])); delete(@p[tid]); }" >"$bt" 2>/dev/null &
	btp=$!
	# its six probes attached, as the kernel lists them: its first start
	# may take long, and its banner comes before the attaching
	wait_attached "$btp" 6
	start_tool opensnoop-lite -j -p "$WLP"
	go "$go"
	wait "$WLP"
	sleep 0.5
	stop_tool INT
	[ "$TOOL_RC" = 0 ]
	stop_reference "$btp"
	local want got
	want=$(grep -E '^-?[0-9]+ ' "$bt")
	got=$(jq -r 'select(.type == "open") | "\(if .fd >= 0 then .fd else -.err end) \(.path)"' "$TOOL_OUT")
	echo "bpftrace: $want"
	echo "opensnoop: $got"
	[ "$(echo "$want" | wc -l)" = 7 ]
	[ "$want" = "$got" ]
}
