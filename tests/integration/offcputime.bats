#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# offcputime-lite against tests/workloads/offcpu: offcpu_sleep_fn blocks
# in nanosleep, offcpu_pipe_fn on a pipe another process answers late,
# about 3:1; each measures its own blocked time.

# bpflite: serial: off-CPU times checked against the workload's own clock
# (another file's CPU use on these 2 CPUs preempts the workload inside its calls)

load helpers
load offcpu_helpers

# Runs even when a test fails: no cgroup or mount is left behind.
setup() {
	require_root
}

teardown() {
	cleanup_cgroup
}

# Sum of total_us over the workload's stacks whose user stack holds $1.
json_total() {
	jq -s --argjson p "$WLPID" --arg f "$1" \
		'[.[] | select(.type=="stack" and .pid==$p and ((.user_stack // []) | index($f))) | .total_us] | add // 0' "$TOOL_OUT"
}

# Waits of the workload's stacks holding $1 that the kernel traced half
# of ("unended": not timed); with no argument, those of unknown stack
# (their start untraced: the entry has empty stacks).
json_unended() {
	jq -s --argjson p "$WLPID" --arg f "${1-}" \
		'[.[] | select(.type=="stack" and .pid==$p and
			if $f == "" then (.user_stack // []) == [] and (.kernel_stack // []) == []
			else (.user_stack // []) | index($f) end) | .unended] | add // 0' "$TOOL_OUT"
}

# sleep_ratio: the tool's JSON total of offcpu_sleep_fn over the workload's
# own, the waits the tool marks "unended" (traced half, so not timed) taken
# out of the workload's side: each is one of its n equal sleeps (one of
# unknown stack may be a sleep). At most one in a run: more is the tool's.
sleep_ratio() {
	local u
	u=$(($(json_unended offcpu_sleep_fn) + $(json_unended)))
	[ "$u" -le 1 ] || { echo "$u unended sleeps in one run" >&2; return 1; }
	awk -v a="$(json_total offcpu_sleep_fn)" -v b="$(jq .sleep_us "$WLOUT")" -v n="$(jq .n "$WLOUT")" \
		-v u="$u" 'BEGIN { print a / (b * (n - u) / n) }'
}

# json_wait_total FUNC KFRAME: json_total of the stacks with a kernel frame
# that KFRAME (a regex) matches: the waits themselves (a thread preempted
# in FUNC under load is off CPU there too, for as long as the CPU is
# taken). A regex: 6.18 reads a pipe in anon_pipe_read, 6.1 in pipe_read.
json_wait_total() {
	jq -s --argjson p "$WLPID" --arg f "$1" --arg k "$2" \
		'[.[] | select(.type=="stack" and .pid==$p and ((.user_stack // []) | index($f)) and
			((.kernel_stack // []) | map(test($k)) | any)) | .total_us] | add // 0' "$TOOL_OUT"
}

check_named_stacks() {
	local sleep_us pipe_us t_sleep t_pipe n u_sleep u_pipe u_any
	assert_ndjson "$TOOL_OUT"
	sleep_us=$(jq .sleep_us "$WLOUT")
	pipe_us=$(jq .pipe_us "$WLOUT")
	t_sleep=$(json_total offcpu_sleep_fn)
	t_pipe=$(json_total offcpu_pipe_fn)
	echo "workload: sleep ${sleep_us}us pipe ${pipe_us}us; tool: sleep ${t_sleep}us pipe ${t_pipe}us"
	# shown when a check fails: the workload's records (a wait missing
	# from them, once in about a hundred runs under load, is a lead of
	# the CI issue) and the tool's loss counts
	jq -c --argjson p "$WLPID" 'select(.type == "stack" and .pid == $p) |
		{tid, count, unended, total_us, user: .user_stack[0:2], kernel: .kernel_stack[2:4]}' "$TOOL_OUT"
	grep -E 'events lost|stacks missed|updates dropped|waits not timed' "$TOOL_ERR" || true
	# Off CPU at least for what was asked (n x 75 ms, n x 25 ms), at most for
	# what the workload measured around its calls. Measured minus off-CPU
	# is the calls' on-CPU part: tiny here, ~15% of the pipe's under qemu.
	# Waits the kernel traced half of are counted, not timed ("unended"):
	# they come out of what was asked, one each.
	n=$(jq .n "$WLOUT")
	# One of unknown stack may be either.
	u_any=$(json_unended)
	u_sleep=$(($(json_unended offcpu_sleep_fn) + u_any))
	u_pipe=$(($(json_unended offcpu_pipe_fn) + u_any))
	[ $((u_sleep + u_pipe - u_any)) -le 1 ]
	assert_between "sleep tool (us)" "$t_sleep" $(((n - u_sleep) * 75000 * 95 / 100)) $((sleep_us * 11 / 10))
	assert_between "pipe tool (us)" "$t_pipe" $(((n - u_pipe) * 25000 * 95 / 100)) $((pipe_us * 11 / 10))
	# the named function is the leaf and main its caller
	jq -se --argjson p "$WLPID" 'map(select(.pid==$p and .user_stack[0:2] == ["offcpu_sleep_fn","main"])) | length > 0' "$TOOL_OUT"
	jq -se --argjson p "$WLPID" 'map(select(.pid==$p and .user_stack[0:2] == ["offcpu_pipe_fn","main"])) | length > 0' "$TOOL_OUT"
	# the kernel frames under them
	jq -se --argjson p "$WLPID" 'map(select(.pid==$p and (.user_stack | index("offcpu_sleep_fn")) and (.kernel_stack | index("do_nanosleep")))) | length > 0' "$TOOL_OUT"
	jq -se --argjson p "$WLPID" 'map(select(.pid==$p and (.user_stack | index("offcpu_pipe_fn")) and (.kernel_stack | map(test("pipe_read")) | any))) | length > 0' "$TOOL_OUT"
	# never the tracer's own frames
	refute grep -Eq 'bpf_prog_|bpf_trace_run|__bpf_trace_' "$TOOL_OUT"
}

# bats test_tags=smoke, vm
@test "offcputime: named user stacks, kernel frames, totals between what was asked and what the workload measured (tp_btf)" {
	wl_run -j -v
	grep -q "loader: light" "$TOOL_ERR"
	grep -q "attach sched_switch: tp_btf" "$TOOL_ERR"
	grep -q "per-task state: task storage" "$TOOL_ERR"
	check_named_stacks
}

# bats test_tags=vm
@test "offcputime: the same on the forced raw_tp path" {
	wl_run -j -v --force-raw-tp
	grep -q "loader: light" "$TOOL_ERR"
	grep -q "attach sched_switch: raw_tp (forced)" "$TOOL_ERR"
	grep -q "per-task state: hash by tid" "$TOOL_ERR"
	check_named_stacks
}

@test "offcputime: the same through the forced libbpf skeleton" {
	wl_run -j -v --force-libbpf
	grep -q "loader: libbpf skeleton (forced)" "$TOOL_ERR"
	grep -q "attach sched_switch: tp_btf" "$TOOL_ERR"
	check_named_stacks
}

run_deleted() {
	local go bin=$BATS_TEST_TMPDIR/offcpu-copy
	cp "$WL/offcpu" "$bin"
	go=$(make_go)
	WLOUT=$BATS_TEST_TMPDIR/wl.json
	"$bin" -n 4 -s 50 -p 20 -g "$go" >"$WLOUT" &
	WLPID=$!
	# system-wide: the snapshot comes from BPF's first sight of the process
	start_tool offcputime-lite -j
	ktrace_sched "$WLPID"
	go "$go"
	wait "$WLPID"
	rm -f "$bin"
	refute kill -0 "$WLPID" 2>/dev/null
	sleep 0.3
	stop_tool INT
	ktrace_stop
	[ "$TOOL_RC" = 0 ]
}

@test "offcputime: names resolve after the workload exited and its binary was deleted" {
	local t_sleep
	traced_run 8 run_deleted
	t_sleep=$(json_total offcpu_sleep_fn)
	echo "sleep total ${t_sleep}us after exit"
	assert_between "sleep tool/workload" "$(sleep_ratio)" 0.9 1.1
	[ "$(json_total offcpu_pipe_fn)" -gt 0 ]
}

@test "offcputime: -f folded output: root first, one line per stack, parses; -d puts '-' between" {
	local line
	wl_run -f
	cat "$TOOL_OUT" | head -5
	# first the unit, then every line: frames joined by ';', a space, a count
	[ "$(head -1 "$TOOL_OUT")" = "# countname us" ]
	refute grep -Evq '^[^ ;][^;]*(;[^;]+)* [0-9]+$|^# countname us$' "$TOOL_OUT"
	line=$(grep -E '^offcpu;.*;main;offcpu_sleep_fn;.*do_nanosleep' "$TOOL_OUT" | head -1)
	[ -n "$line" ]
	# root first: entry before do_nanosleep before __schedule
	echo "$line" | grep -Eq 'entry_SYSCALL_64[^;]*;.*do_nanosleep;.*__schedule [0-9]+$'
	grep -Eq '^offcpu;.*;main;offcpu_pipe_fn;.*pipe_read' "$TOOL_OUT"
	# the workload's totals survive the folding (us)
	assert_between "folded sleep/workload" "$(awk -v w="$(jq .sleep_us "$WLOUT")" \
		'/;offcpu_sleep_fn;/{s+=$NF} END{print s/w}' "$TOOL_OUT")" 0.9 1.1
	if [ -x "$BIN/flamegraph-lite" ] && command -v xmllint >/dev/null; then
		"$BIN/flamegraph-lite" --countname us <"$TOOL_OUT" >"$BATS_TEST_TMPDIR/f.svg"
		xmllint --noout "$BATS_TEST_TMPDIR/f.svg"
		grep -q offcpu_sleep_fn "$BATS_TEST_TMPDIR/f.svg"
	fi

	wl_run -f -d
	grep -Eq '^offcpu;.*;main;offcpu_sleep_fn;-;.*do_nanosleep' "$TOOL_OUT"
}

@test "offcputime: text output: bcc's multi-line layout, largest stack last" {
	wl_run
	cat "$TOOL_OUT" | tail -24
	grep -Eq "^    -                offcpu \($WLPID\)$" "$TOOL_OUT"
	grep -Eq '^    offcpu_sleep_fn$' "$TOOL_OUT"
	grep -Eq '^    do_nanosleep$' "$TOOL_OUT"
	grep -Eq '^        [0-9]+$' "$TOOL_OUT"
	# sorted by total time, ascending as bcc prints: the sleep stack (~600 ms) is last
	tail -12 "$TOOL_OUT" | grep -q offcpu_sleep_fn
	grep -q "Tracing off-CPU time (us) of PID $WLPID by user + kernel stack... Hit Ctrl-C to end." "$TOOL_ERR"
}

@test "offcputime: -U and -K keep only user or kernel stacks" {
	wl_run -j -U
	jq -se --argjson p "$WLPID" 'map(select(.pid==$p)) | length > 0 and all(has("kernel_stack") | not)' "$TOOL_OUT"
	[ "$(json_total offcpu_sleep_fn)" -gt 0 ]
	wl_run -j -K
	jq -se --argjson p "$WLPID" 'map(select(.pid==$p)) | length > 0 and all(has("user_stack") | not)' "$TOOL_OUT"
	jq -se --argjson p "$WLPID" 'map(select(.pid==$p and (.kernel_stack | index("do_nanosleep")))) | length > 0' "$TOOL_OUT"
}

@test "offcputime: -m and -M keep only blocks above or below a length" {
	# sleeps last 75 ms, pipe waits 25 ms (preemptions in either function,
	# shorter, are not what is measured)
	wl_run -j -m 50000
	[ "$(json_wait_total offcpu_sleep_fn "^do_nanosleep$")" -gt 0 ]
	[ "$(json_wait_total offcpu_pipe_fn "pipe_read$")" = 0 ]
	wl_run -j -M 50000
	[ "$(json_wait_total offcpu_sleep_fn "^do_nanosleep$")" = 0 ]
	[ "$(json_wait_total offcpu_pipe_fn "pipe_read$")" -gt 0 ]
}

@test "offcputime: --state is a bitmask; 2 matches the killable vfork wait, not nanosleep" {
	local go
	go=$(make_go)
	WLOUT=$BATS_TEST_TMPDIR/wl.json
	"$WL/offcpu" -n 2 -s 50 -p 20 -v 200 -g "$go" >"$WLOUT" &
	WLPID=$!
	start_tool offcputime-lite -j -p "$WLPID" --state 2
	go "$go"
	wait "$WLPID"
	stop_tool INT
	[ "$(json_total offcpu_sleep_fn)" = 0 ]
	jq -se --argjson p "$WLPID" 'map(select(.pid==$p and (.user_stack | index("offcpu_vfork_fn")) and .total_us > 150000)) | length > 0' "$TOOL_OUT"

	wl_run -j --state 1
	[ "$(json_total offcpu_sleep_fn)" -gt 0 ]
}

@test "offcputime: -k only kernel threads, -u only user threads" {
	local out=$BATS_TEST_TMPDIR/k.json
	timeout 10 "$BIN/offcputime-lite" -j -k 1 >"$out"
	assert_ndjson "$out"
	jq -se 'map(select(.type=="stack")) | length > 0 and all((.user_stack // []) == [])' "$out"
	jq -se 'map(select(.type=="stack" and (.comm | test("^(kworker|ksoftirqd|rcu_)")))) | length > 0' "$out"
	timeout 10 "$BIN/offcputime-lite" -j -u 1 >"$out"
	jq -se 'map(select(.type=="stack")) | length > 0' "$out"
	jq -se 'map(select(.type=="stack" and (.comm | test("^(kworker|ksoftirqd|rcu_)")))) | length == 0' "$out"
}

@test "offcputime: a stack map too small: missed stacks marked in-line and counted" {
	wl_run -f --stack-storage-size 1
	grep -q '\[missed kernel stack\]\|\[missed user stack\]' "$TOOL_OUT"
	grep -Eq 'warning: [0-9]+ stacks? (missed|lost)' "$TOOL_ERR"
}

# IDs of the BPF programs a process holds (from its fds: bpftool here
# has no pid column).
prog_ids_of() {
	grep -h '^prog_id:' /proc/"$1"/fdinfo/* 2>/dev/null | awk '{print $2}' | sort -u
}

@test "offcputime: duration ends the run; SIGINT mid-run reports and leaves no BPF behind" {
	local go ids left
	timeout 10 "$BIN/offcputime-lite" -f 1 >"$BATS_TEST_TMPDIR/d.txt"
	grep -Eq '^[^ ]+ [0-9]+$' "$BATS_TEST_TMPDIR/d.txt"
	go=$(make_go)
	"$WL/offcpu" -n 40 -s 50 -p 20 -g "$go" >/dev/null &
	WLPID=$!
	start_tool offcputime-lite -p "$WLPID" -f
	ids=$(prog_ids_of "$TOOL_PID")
	[ -n "$ids" ]
	go "$go"
	sleep 1
	stop_tool INT
	[ "$TOOL_RC" = 0 ]
	grep -q 'offcpu_sleep_fn' "$TOOL_OUT"
	kill "$WLPID" 2>/dev/null || true
	wait "$WLPID" 2>/dev/null || true
	# the machine is shared: check our programs, not everyone's
	for _ in $(seq 50); do
		left=$(bpftool prog show -j | jq -r '.[].id' | grep -Fxf <(echo "$ids") || true)
		[ -z "$left" ] && break
		sleep 0.1
	done
	echo "programs held while running: $(echo $ids); left: $left"
	[ -z "$left" ]
}

@test "offcputime: a process in another mount namespace, its binary on a tmpfs only it sees, gets names" {
	command -v unshare >/dev/null || skip "no unshare"
	local go dir=$BATS_TEST_TMPDIR/mnt	# mounted only in the workload's namespace, which dies with it
	go=$(make_go)
	WLOUT=$BATS_TEST_TMPDIR/wl.json
	mkdir -p "$dir"
	unshare -m sh -c "mount -t tmpfs none '$dir' && cp '$WL/offcpu' '$dir/' && exec '$dir/offcpu' -n 4 -s 50 -p 20 -g '$go'" >"$WLOUT" &
	local sh=$!
	start_tool offcputime-lite -j
	go "$go"
	wait "$sh"
	stop_tool INT
	WLPID=$(jq .pid "$WLOUT")
	[ -n "$WLPID" ]
	# the host has no such file: the names came from the process's own view
	[ ! -e "$dir/offcpu" ]
	[ "$(json_total offcpu_sleep_fn)" -gt 150000 ]
	[ "$(json_total offcpu_pipe_fn)" -gt 0 ]
}

# bats test_tags=vm
@test "offcputime: a process whose binary is on overlayfs (a container's root) gets names" {
	# maps names the lower layer's device, the file opens on the overlay's
	local dir=$BATS_TEST_TMPDIR/ovl
	WLOUT=$BATS_TEST_TMPDIR/wl.json
	mkdir -p "$dir/lower" "$dir/top"
	cp "$WL/offcpu" "$dir/lower/"
	traced_run 16 run_overlay "$dir"
	check_named_stacks
}

run_overlay() {
	local go dir=$1
	go=$(make_go)
	# the mounts live in the workload's own namespace and go with it
	unshare -m sh -c 'mount -t tmpfs none "$1/top" && mkdir "$1/top/u" "$1/top/w" "$1/top/root" &&
		mount -t overlay overlay -o "lowerdir=$1/lower,upperdir=$1/top/u,workdir=$1/top/w" "$1/top/root" &&
		exec "$1/top/root/offcpu" -n 8 -s 75 -p 25 -g "$2"' sh "$dir" "$go" >"$WLOUT" &
	WLPID=$!
	start_tool offcputime-lite -j -p "$WLPID"
	ktrace_sched "$WLPID"
	go "$go"
	wait "$WLPID"
	stop_tool INT
	ktrace_stop
	[ "$TOOL_RC" = 0 ]
}

run_prune() {
	local go n0
	go=$(make_go)
	WLOUT=$BATS_TEST_TMPDIR/wl.json
	"$WL/offcpu" -n 4 -s 50 -p 20 -g "$go" >"$WLOUT" &
	WLPID=$!
	# -m 40 -M 100 ms: the workload's 50 ms sleeps have stacks; the
	# sleepers' 300 ms sleep and short waits none, so nothing keeps those
	# in the symbolizer once they exit
	BPFLITE_PRUNE_AT=1 start_tool offcputime-lite -j -v -m 40000 -M 100000
	ktrace_sched "$WLPID"
	go "$go"
	wait "$WLPID"
	SLEEPERS=()
	for _ in $(seq 10); do /bin/sleep 0.3 & SLEEPERS+=($!); done
	wait "${SLEEPERS[@]}"
	# the pruning runs every 50 ticks of 100 ms or more: wait for one
	# that comes after the sleepers exited
	n0=$(grep -c "symbolizer: pruned" "$TOOL_ERR" || true)
	for _ in $(seq 300); do
		[ "$(grep -c "symbolizer: pruned" "$TOOL_ERR" || true)" -gt "$n0" ] && break
		sleep 0.1
	done
	stop_tool INT
	ktrace_stop
	[ "$TOOL_RC" = 0 ]
}

@test "offcputime: exited processes are pruned from the symbolizer, except those with stacks to name" {
	local t_sleep p ok=() gone=() pruned
	traced_run 8 run_prune
	grep "symbolizer: pruned" "$TOOL_ERR"
	# the sleepers it snapshotted that have no stack of their own: all pruned
	for p in "${SLEEPERS[@]}"; do
		grep -q "snapshot of process $p: ok" "$TOOL_ERR" || continue
		ok+=("$p")
		[ "$(jq -s --argjson p "$p" '[.[] | select(.type=="stack" and .pid==$p)] | length' "$TOOL_OUT")" = 0 ] && gone+=("$p")
	done
	pruned=$(sed -n 's/.*symbolizer: pruned \([0-9]*\) exited.*/\1/p' "$TOOL_ERR" | awk '{s += $1} END {print s + 0}')
	echo "sleepers snapshotted: ${#ok[@]}, without stacks: ${#gone[@]}; pruned: $pruned"
	[ "${#gone[@]}" -ge 5 ]
	[ "$pruned" -ge "${#gone[@]}" ]
	# the exited workload has stacks: kept, its frames still named
	t_sleep=$(json_total offcpu_sleep_fn)
	echo "sleep total ${t_sleep}us"
	assert_between "sleep tool/workload" "$(sleep_ratio)" 0.9 1.1
}

run_cgroup() {
	local dir=$1 go go2
	go=$(make_go)
	go2=$(make_go)
	WLOUT=$BATS_TEST_TMPDIR/wl.json
	"$WL/offcpu" -n 4 -s 50 -p 20 -g "$go" >"$WLOUT" &
	WLPID=$!
	echo "$WLPID" >"$dir/cgroup.procs"
	"$WL/offcpu" -n 4 -s 50 -p 20 -g "$go2" >/dev/null &
	OTHER=$!
	start_tool offcputime-lite -j -c "$dir"
	ktrace_sched "$WLPID"
	go "$go" & go "$go2"
	wait "$WLPID" "$OTHER"
	stop_tool INT
	ktrace_stop
}

@test "offcputime: -c CGROUP counts only tasks in that cgroup" {
	test_cgroup offcpu
	traced_run 8 run_cgroup "$TEST_CG"
	rmdir "$TEST_CG"
	assert_between "sleep tool/workload" "$(sleep_ratio)" 0.9 1.1
	jq -se --argjson p "$OTHER" 'map(select(.pid == $p)) | length == 0' "$TOOL_OUT"
}

# bats test_tags=soak
# churn_once [ARGS...]: the churn under offcputime-lite -c ARGS..., its
# maps checked after it, then offcpu's named sleeps in the same cgroup,
# their switches as the kernel traced them (ktrace_sched). Leaves WLPID,
# WLOUT, TOOL_OUT.
churn_once() {
	local go start info procs
	# -c: the churn and the workload only, so other work on the machine
	# neither fills the maps nor adds to the counts. raw_tp: switch-out
	# records in the hash by tid (tp_btf keeps them in task storage, which
	# the kernel frees with the task)
	start_tool offcputime-lite -j -v -c "$CG" --force-raw-tp "$@"
	run_churn
	[ "$(echo "$CHURN" | jq .threads)" = 50000 ]
	[ "$(echo "$CHURN" | jq .procs)" = 5000 ]
	sleep 0.3	# a tick of the tool
	start=$(map_entries "$TOOL_PID" start)
	info=$(map_entries "$TOOL_PID" info)
	echo "after the churn: start $start, info $info entries"
	# no task of the cgroup is alive: start is empty; info holds the
	# folded keys of exited threads and at most a fold step (1024) more
	[ "$start" -le 8 ]
	[ "$info" -le 2048 ]
	# --unwind: a process's list of mappings goes with it (a list pushed
	# as its process ended may stay)
	if [[ " $* " == *" --unwind "* ]]; then
		procs=$(map_entries "$TOOL_PID" unw_procs)
		echo "after the churn: unw_procs $procs entries"
		[ "$procs" -le 16 ]
	fi

	go=$(make_go)
	WLOUT=$BATS_TEST_TMPDIR/wl.json
	in_cgroup_bg "$WL/offcpu" -n 8 -s 75 -p 25 -g "$go" >"$WLOUT"
	WLPID=$BG
	ktrace_sched "$WLPID"
	go "$go"
	wait "$WLPID"
	stop_tool INT
	ktrace_stop
	[ "$TOOL_RC" = 0 ]
}

@test "offcputime: 50,000 thread and 5,000 process exits fill no map; the named sleeps stay exact" {
	make_churn_cgroup
	# run again, once, when the kernel left one of the workload's switches
	# untraced for every tracer (the sleeps' totals would lack it)
	traced_run 16 churn_once
	check_named_stacks
	# nothing dropped for a full map, no event lost; a thread's user stack
	# can be unreadable as it exits (a handful in 55,000 exits), which is
	# counted, not a leak
	refute grep -E 'events lost|updates dropped' "$TOOL_ERR"
	jq -se 'map(select(.type=="loss")) | all(.lost_events == 0 and .map_full == 0 and .lost_stacks <= 20)' "$TOOL_OUT"
	# exited threads are folded into tid 0 of their process
	jq -se --argjson p "$(echo "$CHURN" | jq .pid)" 'map(select(.type=="stack" and .pid==$p and .tid==0)) | length > 0' "$TOOL_OUT"
}

# bats test_tags=soak
@test "offcputime: --unwind dwarf: 50,000 thread and 5,000 process exits fill no map, the tables' process lists go with their processes; the named sleeps stay exact" {
	make_churn_cgroup
	traced_run 16 churn_once --unwind dwarf
	check_named_stacks
	refute grep -E 'events lost|updates dropped' "$TOOL_ERR"
	jq -se 'map(select(.type=="loss")) | all(.lost_events == 0 and .map_full == 0 and .lost_stacks <= 20)' "$TOOL_OUT"
	grep -E 'unwind: [0-9]+ stacks: [1-9][0-9]* frames by tables' "$TOOL_ERR"
}
