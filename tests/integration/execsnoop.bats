#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# execsnoop-lite against snoopwl's known list of execs: the tool's -j
# output must match what the workload did, exec by exec.

load helpers
load snoop_helpers

# Runs even when a test fails: no cgroup or mount is left behind.
setup() {
	require_root
	# tracefs may be unmounted on a fresh machine: the tool mounts it
}

teardown() {
	cleanup_cgroup
}

# run_execs TOOL_ARGS...: snoopwl's exec list under execsnoop-lite -j.
# Leaves WLP (workload PID), WLJ (its JSON file) and TOOL_OUT.
run_execs() {
	run_snoop execsnoop-lite execs "$@"
}

# What the tool must report for the workload's execs, given max-args,
# max-arg-len and whether failed execs are in (1/0). Sorted.
expected() {
	jq -c --argjson n "$1" --argjson l "$2" --argjson x "$3" '
		def show: {pid, ppid, ret,
			args: (.argv[:$n] | map(.[:$l])),
			args_truncated: ((.argv | length) > $n),
			args_cut: [.argv[:$n] | to_entries[] | select((.value | length) > $l) | .key],
			args_unread: false};
		[.execs[] | select($x == 1 or .ret == 0) |
		 if .what == "unread" then
			{pid, ppid, ret, args: ["/bin/echo"], args_truncated: true, args_cut: [], args_unread: true}
		 elif .execs == 2 then (show, (.argv = .argv[2:] | .ret = 0 | show))
		 else show end] | sort_by(.pid, .args)' "$WLJ"
}

# The tool's exec events for the workload and its children. Sorted.
reported() {
	jq -sc --argjson w "$WLP" '[.[] | select(.type == "exec" and (.pid == $w or .ppid == $w)) |
		{pid, ppid, ret, args, args_truncated, args_cut, args_unread}] | sort_by(.pid, .args)' "$TOOL_OUT"
}

assert_same() {
	local want=$1 got=$2
	if [ "$want" != "$got" ]; then
		echo "expected: $want" >&2
		echo "reported: $got" >&2
		diff <(echo "$want" | jq .) <(echo "$got" | jq .) >&2
		return 1
	fi
}

# bats test_tags=smoke, vm
@test "execsnoop: every exec matches the workload: pid, ppid, ret, argv, truncation (tp_btf)" {
	run_execs -x -v
	grep -q "loader: light" "$TOOL_ERR"
	grep -q "attach sched_process_exec: tp_btf" "$TOOL_ERR"
	assert_same "$(expected 20 256 1)" "$(reported)"
	# the resolved file name and the new comm come from sched_process_exec
	jq -se --argjson w "$WLP" '[.[] | select(.type == "exec" and .ppid == $w and .args[0] == "sh")][0] |
		.filename == "/bin/sh" and .pcomm == "sh"' "$TOOL_OUT"
	# a thread that is not the leader exec'ed: reported under the process ID it took over
	jq -se --argjson w "$WLP" '[.[] | select(.type == "exec" and .ppid == $w and .args == ["echo", "from a thread"])] |
		length == 1 and .[0].tid != .[0].pid' "$TOOL_OUT"
	# failed execs have no file name, and RET is -errno
	jq -se --argjson w "$WLP" '[.[] | select(.type == "exec" and .pid == $w) | .ret] | sort == [-13, -2]' "$TOOL_OUT"
}

# bats test_tags=vm
@test "execsnoop: the same through the forced raw_tp path" {
	run_execs -x -v --force-raw-tp
	grep -q "loader: light" "$TOOL_ERR"
	grep -q "attach sched_process_exec: raw_tp (forced)" "$TOOL_ERR"
	assert_same "$(expected 20 256 1)" "$(reported)"
}

@test "execsnoop: the same through the forced libbpf skeleton" {
	run_execs -x -v --force-libbpf
	grep -q "loader: libbpf skeleton (forced)" "$TOOL_ERR"
	grep -q "attach sched_process_exec: tp_btf" "$TOOL_ERR"
	assert_same "$(expected 20 256 1)" "$(reported)"
}

@test "execsnoop: without -x failed execs are left out" {
	run_execs
	assert_same "$(expected 20 256 0)" "$(reported)"
}

@test "execsnoop: --max-args 40 and --max-arg-len 500 show everything in full" {
	run_execs -x --max-args 40 --max-arg-len 500
	assert_same "$(expected 40 500 1)" "$(reported)"
	run_execs -x --max-args 3 --max-arg-len 8
	assert_same "$(expected 3 8 1)" "$(reported)"
}

@test "execsnoop: text output: bcc's columns, quoting, truncation and unread markers" {
	local go wp
	go=$(make_go)
	"$WL/snoopwl" -g "$go" -d "$BATS_TEST_TMPDIR" execs >/dev/null &
	wp=$!
	start_tool execsnoop-lite -x -T -t -U
	go "$go"
	wait "$wp"
	sleep 0.3
	stop_tool INT
	cat "$TOOL_OUT"
	grep -Eq '^TIME     TIME\(s\) UID   PCOMM            PID     PPID    RET ARGS$' "$TOOL_OUT"
	grep -Eq "^[0-9:]{8} +[0-9.]+ +0 +echo +[0-9]+ +$wp +0 echo \"hello world\" x$" "$TOOL_OUT"
	grep -Eq " sh +[0-9]+ +$wp +0 sh -c \"exit 7\"$" "$TOOL_OUT"
	grep -Eq " snoopwl +$wp +[0-9]+ +-2 /nonexistent/snoopwl-prog a$" "$TOOL_OUT"
	grep -Eq " -13 .*/not-executable b$" "$TOOL_OUT"
	grep -Eq " echo a1 a2 .* a19 \.\.\.$" "$TOOL_OUT"
	grep -Eq " echo L{256}\.\.\. short$" "$TOOL_OUT"
	grep -Eq " echo +[0-9]+ +$wp +0 /bin/echo \[argv unreadable\]$" "$TOOL_OUT"

	go=$(make_go)
	"$WL/snoopwl" -g "$go" -d "$BATS_TEST_TMPDIR" execs >/dev/null &
	wp=$!
	start_tool execsnoop-lite -q
	go "$go"
	wait "$wp"
	sleep 0.3
	stop_tool INT
	grep -Eq " $wp +0 \"echo\" \"hello world\" \"x\"$" "$TOOL_OUT"
	grep -Eq " $wp +0 \"/bin/echo\" \"second exec\"$" "$TOOL_OUT"
}

@test "execsnoop: -n matches the command name, -l the arguments (regex)" {
	run_execs -x -n '^ech'
	[ "$(jq -s --argjson w "$WLP" '[.[] | select(.type == "exec" and .ppid == $w)] | length' "$TOOL_OUT")" = 6 ]	# the echo execs
	jq -se '[.[] | select(.type == "exec") | .pcomm | test("^ech")] | all' "$TOOL_OUT"

	run_execs -x -l 'hello wor|second exec'
	jq -sce --argjson w "$WLP" '[.[] | select(.type == "exec" and .ppid == $w) | .args] ==
		[["echo", "hello world", "x"], ["snoopwl", "reexec", "/bin/echo", "second exec"],
		 ["/bin/echo", "second exec"]]' "$TOOL_OUT"
	# -l matches the arguments, not the command name
	run_execs -x -l '^snoopwl$'
	[ "$(jq -s --argjson w "$WLP" '[.[] | select(.type == "exec" and (.pid == $w or .ppid == $w))] | length' "$TOOL_OUT")" = 0 ]
}

@test "execsnoop: -u UID keeps only that user's execs; -U prints it" {
	local go wp other
	go=$(make_go)
	"$WL/snoopwl" -g "$go" -d "$BATS_TEST_TMPDIR" uid 65534 >"$BATS_TEST_TMPDIR/uid.json" &
	wp=$!
	local go2
	go2=$(make_go)
	"$WL/snoopwl" -g "$go2" -d "$BATS_TEST_TMPDIR" execs >/dev/null &
	other=$!
	start_tool execsnoop-lite -j -u 65534
	go "$go"; go "$go2"
	wait "$wp" "$other"
	sleep 0.3
	stop_tool INT
	local child
	child=$(jq '.execs[0].pid' "$BATS_TEST_TMPDIR/uid.json")
	jq -se --argjson c "$child" '[.[] | select(.type == "exec" and .pid == $c)] |
		length == 1 and .[0].uid == 65534 and .[0].args == ["true", "as-uid"]' "$TOOL_OUT"
	jq -se '[.[] | select(.type == "exec") | .uid] | all(. == 65534)' "$TOOL_OUT"
	[ "$(jq -s --argjson w "$other" '[.[] | select(.type == "exec" and .ppid == $w)] | length' "$TOOL_OUT")" = 0 ]
}

@test "execsnoop: -c CGROUP keeps only execs in that cgroup" {
	local dir go go2 other
	test_cgroup execsnoop
	dir=$TEST_CG
	go=$(make_go)
	"$WL/snoopwl" -g "$go" -d "$BATS_TEST_TMPDIR" execs >"$BATS_TEST_TMPDIR/wl.json" &
	WLP=$!
	WLJ=$BATS_TEST_TMPDIR/wl.json
	echo "$WLP" >"$dir/cgroup.procs"
	go2=$(make_go)
	mkdir "$BATS_TEST_TMPDIR/o"
	"$WL/snoopwl" -g "$go2" -d "$BATS_TEST_TMPDIR/o" execs >/dev/null &
	other=$!
	start_tool execsnoop-lite -j -x -c "$dir"
	go "$go"; go "$go2"
	wait "$WLP" "$other"
	sleep 0.3
	stop_tool INT
	rmdir "$dir"
	assert_same "$(expected 20 256 1)" "$(reported)"
	[ "$(jq -s --argjson w "$other" '[.[] | select(.type == "exec" and (.pid == $w or .ppid == $w))] | length' "$TOOL_OUT")" = 0 ]
}

@test "execsnoop: kernel maps take at most 4 MiB by default" {
	start_tool execsnoop-lite
	local bytes
	bytes=$(maps_bytes "$TOOL_PID")
	[ "$(maps_count "$TOOL_PID")" = 5 ]	# events, scratch, inflight, .rodata, .bss
	stop_tool INT
	echo "maps: $bytes bytes"
	assert_between "map bytes" "$bytes" 1 4194304
}

@test "execsnoop: SIGINT and SIGTERM exit 0 and leave no BPF behind" {
	local ids
	for sig in INT TERM; do
		start_tool execsnoop-lite -j
		ids=$(proc_bpf_ids "$TOOL_PID")
		/bin/true
		sleep 0.3
		stop_tool "$sig"
		[ "$TOOL_RC" = 0 ]
		jq -se '[.[] | select(.type == "exec" and .args == ["/bin/true"])] | length >= 1' "$TOOL_OUT"
		# never its own activity
		[ "$(jq -s --argjson p "$TOOL_PID" '[.[] | select(.pid == $p)] | length' "$TOOL_OUT")" = 0 ]
		assert_bpf_ids_gone "$ids"
	done
}

@test "execsnoop: mounts tracefs itself when it is not mounted (private mount namespace)" {
	command -v unshare >/dev/null || skip "no unshare"
	run unshare -m --propagation private sh -c '
		umount /sys/kernel/tracing 2>/dev/null; umount /sys/kernel/debug 2>/dev/null
		grep -q tracefs /proc/self/mounts && exit 9
		timeout --preserve-status -s INT 1 "$1" -j -v 2>"$2" >/dev/null; rc=$?
		grep -E "mounted tracefs|Hit Ctrl-C" "$2"
		exit $rc' sh "$BIN/execsnoop-lite" "$BATS_TEST_TMPDIR/err"
	echo "$output"
	[ "$status" = 0 ]
	[[ "$output" == *"mounted tracefs at /sys/kernel/tracing"* ]]
	[[ "$output" == *"Hit Ctrl-C to end."* ]]
}

# full_ring ARGV_BYTES: 5 execs of /bin/true in a cgroup, while
# execsnoop-lite -c (a one-page ring buffer) is stopped: the first exec's
# records fill the page, every other record is lost. Each argument takes
# its length + 1 bytes of the ENTER record (56 bytes + arguments rounded
# up to 8, then an 8-byte header): /bin/true, markN, 14 x 250 and the
# pad; an EXEC record takes 296 bytes, an EXIT record 24.
full_ring() {
	local pad=$1 go x
	make_churn_cgroup
	x=$(head -c 250 /dev/zero | tr '\0' x)
	go=$(make_go)
	start_tool execsnoop-lite -j -v -c "$CG" --buffer-pages 1
	in_cgroup_bg bash -c 'read -r _ <"$1"; shift; for i in 1 2 3 4 5; do /bin/true "mark$i" "$@"; done' \
		sh "$go" $x $x $x $x $x $x $x $x $x $x $x $x $x $x "$pad"
	kill -STOP "$TOOL_PID"
	go "$go"
	wait "$BG"
	kill -CONT "$TOOL_PID"
	sleep 2	# the reader drains, and drops execs a second old whose EXIT was lost
	stop_tool INT
	[ "$TOOL_RC" = 0 ]
	assert_ndjson "$TOOL_OUT"
	cat "$TOOL_ERR" | grep -v '^execsnoop-lite: map\|^libbpf' >&2 || true
}

# Execs of full_ring the tool showed: all, and those with their EXEC record.
shown() { jq -s '[.[] | select(.type == "exec" and (.args[1] // "" | startswith("mark")))] | length' "$TOOL_OUT"; }
complete() { jq -s '[.[] | select(.type == "exec" and (.args[1] // "" | startswith("mark")) and .filename != null)] | length' "$TOOL_OUT"; }
lost() { jq -s '[.[] | select(.type == "loss") | .lost_events] | add // 0' "$TOOL_OUT"; }

@test "execsnoop: a lost EXEC record is counted and the exec still shown; a lost EXIT record releases its exec" {
	# ENTER 3848 bytes (a pad of 250): the EXEC record does not fit, EXIT does
	full_ring "$(head -c 250 /dev/zero | tr '\0' y)"
	echo "shown $(shown), complete $(complete), lost $(lost)"
	[ "$(shown)" = 1 ]
	jq -se 'map(select(.type == "exec" and .args[1] == "mark1")) | .[0] | .filename == null and .ret == 0' "$TOOL_OUT"
	# every exec not shown whole is counted: 4 ENTER records and 1 EXEC
	[ "$(lost)" -ge $((5 - $(complete))) ]
	grep -q '0 execs pending at exit' "$TOOL_ERR"

	cleanup_cgroup
	# ENTER 3784 bytes (a pad of 188): EXEC fits, EXIT does not: nothing
	# shown, all five counted, and the first exec no longer kept pending
	full_ring "$(head -c 188 /dev/zero | tr '\0' y)"
	echo "shown $(shown), complete $(complete), lost $(lost)"
	[ "$(shown)" = 0 ]
	[ "$(lost)" -ge 5 ]
	grep -q 'dropped 1 execs whose exit record was lost' "$TOOL_ERR"
	grep -q '0 execs pending at exit' "$TOOL_ERR"
}

@test "execsnoop: a thread that is not the leader execs and its EXEC record is lost: still shown, counted" {
	local go x pad wl
	make_churn_cgroup
	x=$(head -c 250 /dev/zero | tr '\0' x)
	pad=$(head -c 250 /dev/zero | tr '\0' y)
	go=$(make_go)
	start_tool execsnoop-lite -j -v -c "$CG" --buffer-pages 1
	# the same ENTER size as full_ring's first case: EXEC does not fit
	in_cgroup_bg "$WL/snoopwl" -g "$go" threadexec /bin/true mark1 \
		$x $x $x $x $x $x $x $x $x $x $x $x $x $x "$pad" >"$BATS_TEST_TMPDIR/wl.json"
	kill -STOP "$TOOL_PID"
	go "$go"
	wait "$BG"
	kill -CONT "$TOOL_PID"
	sleep 2
	stop_tool INT
	[ "$TOOL_RC" = 0 ]
	wl=$(jq -c '.execs[0] | {pid, ret}' "$BATS_TEST_TMPDIR/wl.json")
	echo "workload: $wl; tool: $(jq -c 'select(.type=="exec") | {pid, tid, ret, filename}' "$TOOL_OUT")"
	# the exec comes out under the process ID it took over, without its file name
	[ "$(jq -c 'select(.type=="exec" and .args[1]=="mark1") | {pid, ret}' "$TOOL_OUT")" = "$wl" ]
	jq -se 'map(select(.type=="exec" and .args[1]=="mark1")) | .[0].filename == null' "$TOOL_OUT"
	[ "$(lost)" = 1 ]
	grep -q '0 execs pending at exit' "$TOOL_ERR"
}

# bats test_tags=soak
@test "execsnoop: 50,000 thread and 5,000 process exits, 2,000 execs, leave nothing in flight; the known execs stay exact" {
	local go inflight n
	make_churn_cgroup
	start_tool execsnoop-lite -j -c "$CG"
	run_churn
	run_churn -t 0 -p 2000 -e	# each child execs churn -x
	inflight=$(map_entries "$TOOL_PID" inflight)
	echo "after the churn: inflight $inflight entries"
	[ "$inflight" = 0 ]

	go=$(make_go)
	WLJ=$BATS_TEST_TMPDIR/wl.json
	in_cgroup_bg "$WL/snoopwl" -g "$go" -d "$BATS_TEST_TMPDIR" execs >"$WLJ"
	WLP=$BG
	go "$go"
	wait "$WLP"
	sleep 0.3
	stop_tool INT
	[ "$TOOL_RC" = 0 ]
	assert_ndjson "$TOOL_OUT"
	assert_no_loss
	# every exec of the churn, with its file
	n=$(jq -s --argjson p "$(echo "$CHURN" | jq .pid)" '[.[] | select(.type=="exec" and .ppid==$p and .args[1]=="-x" and .filename=="/proc/self/exe" and .ret==0)] | length' "$TOOL_OUT")
	echo "churn execs shown: $n"
	[ "$n" = 2000 ]
	[ "$(expected 20 256 0)" = "$(reported)" ]
}
