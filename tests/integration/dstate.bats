#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# dstate-lite against D sleeps of known length (tests/workloads/dwait.c):
# vfork parents waiting killable for a child that sleeps, a thread blocked
# on a pipe mutex held across a userfaultfd fault, and an interruptible
# sleeper that must never show.

# bpflite: serial: CPU hogs pinned to each CPU (the interrupt-waker test), the
# cgroup v1 freezer, TASK_IDLE kthreads counted machine-wide

load helpers

N=5		# episodes per run: odd, so a doubled or halved count shows
D=300		# ms per episode: +-5% is +-15 ms, room for a busy machine

setup() {
	require_root
}

# The freezer test's spinner, the hogs, the tests' cgroups and mounts,
# even when a test fails half-way.
teardown() {
	local h
	for h in ${HOGS:-}; do kill "$h" 2>/dev/null; wait "$h" 2>/dev/null; done
	if [ -n "${FZ_PID:-}" ]; then
		[ -n "${FZ_DIR:-}" ] && echo THAWED >"$FZ_DIR/freezer.state" 2>/dev/null
		kill "$FZ_PID" 2>/dev/null
		wait "$FZ_PID" 2>/dev/null
	fi
	cleanup_cgroup
}

# dwait_run MODE TOOL_ARGS...: dwait -MODE under dstate-lite -j -p.
# Leaves WP (its pid), WLJ (its JSON), TOOL_OUT, TOOL_ERR. The vfork
# parent's waits are checked in the kernel's own trace (ktrace_sched):
# when a host kernel left one of them untraced for every tracer, the run
# lacks what the checks count, and it is run again, once.
dwait_run() {
	if [ "$1" = V ]; then
		ktrace_twice "$N" D dwait_once "$@"
	else
		dwait_once "$@"
	fi
	WLJ=$(cat "$BATS_TEST_TMPDIR/wl.json")
	echo "workload: $WLJ"
	assert_ndjson "$TOOL_OUT"
}

dwait_once() {
	local mode=$1 go
	shift
	go=$(make_go)
	"$WL/dwait" "-$mode" -n "$N" -d "$D" -g "$go" >"$BATS_TEST_TMPDIR/wl.json" &
	WP=$!
	start_tool dstate-lite -j -p "$WP" "$@"
	ktrace_sched "$WP"
	go "$go"
	wait "$WP"
	stop_tool INT
	ktrace_stop
	[ "$TOOL_RC" = 0 ]
}

# dwait_in_cgroup DIR, dwait_tid: the two runs of the -c and -t test; the
# first leaves IN and OUT (the pids in and out of DIR), the second WP.
dwait_in_cgroup() {
	local dir=$1 gi go
	gi=$(make_go)
	go=$(make_go)
	"$WL/dwait" -V -n "$N" -d 100 -g "$gi" >/dev/null &
	IN=$!
	echo "$IN" >"$dir/cgroup.procs"
	"$WL/dwait" -V -n "$N" -d 100 -g "$go" >/dev/null &
	OUT=$!
	start_tool dstate-lite -j -m 0 -c "$dir"
	ktrace_sched "$IN"
	go "$gi" & go "$go"
	wait "$IN" "$OUT"
	stop_tool INT
	ktrace_stop
}

dwait_tid() {
	local gi
	gi=$(make_go)
	"$WL/dwait" -V -n "$N" -d 100 -g "$gi" >/dev/null &
	WP=$!
	start_tool dstate-lite -j -m 0 -t "$WP"
	ktrace_sched "$WP"
	go "$gi"
	wait "$WP"
	stop_tool INT
	ktrace_stop
}

# Episodes (-m) of thread $1 (with reason $2 if given), one JSON object per line.
episodes() { jq -c --argjson t "$1" --arg r "${2:-}" 'select(.type=="episode" and .tid == $t and ($r == "" or .reason == $r))' "$TOOL_OUT"; }
count_episodes() { episodes "$@" | grep -c . || true; }

# Every episode of tid $1 lasted what the workload measured around it,
# +-5%, and about D ms: the workload's clock takes the load of a shared
# machine out of the comparison (a busy run queue lengthens both alike).
check_durations() {
	local tid=$1 r=${2:-} i
	local -a tool wl blocked
	tool=($(episodes "$tid" "$r" | jq '.total_ms'))
	blocked=($(episodes "$tid" "$r" | jq '.blocked_ms'))
	wl=($(echo "$WLJ" | jq '.episodes[].ns / 1e6'))
	echo "tool ${tool[*]} / workload ${wl[*]} ms"
	[ "${#tool[@]}" = "${#wl[@]}" ]
	for i in "${!tool[@]}"; do
		# in D at least for the D ms the other side took, at most for what
		# the workload measured around it (its syscalls' on-CPU part is
		# tiny here, tens of ms under qemu)
		assert_between "episode $i: tool (ms)" "${tool[$i]}" "$(awk -v d=$D 'BEGIN{print d*0.98}')" "$(awk -v w="${wl[$i]}" 'BEGIN{print w*1.05}')"
		assert_between "episode $i: workload (ms)" "${wl[$i]}" "$D" $((D * 2))
		assert_between "episode $i: blocked (ms)" "${blocked[$i]}" "$(awk -v d=$D 'BEGIN{print d*0.95}')" "${tool[$i]}"
	done
}

# Every episode of tid $1 has a kernel frame matching the jq regex $2.
check_frame() {
	local tid=$1 re=$2 r=${3:-} n
	n=$(episodes "$tid" "$r" | jq --arg re "$re" 'select([.kernel_stack[] | test($re)] | any)' | jq -s length)
	[ "$n" = "$N" ] || { echo "only $n of $N episodes of $tid have a frame /$re/" >&2; episodes "$tid" "$r" | head -1 >&2; return 1; }
}

check_vfork() {
	local n wakers children
	n=$(count_episodes "$WP" kernel_clone)
	echo "vfork parent episodes: $n in kernel_clone, of:"
	episodes "$WP" | jq -c '{reason, total_ms, state_name}'
	[ "$n" = "$N" ]
	# anything else is a short wait a busy machine may add (a page or
	# memory wait), never one of the vfork sleeps
	episodes "$WP" | jq -se 'map(select(.reason != "kernel_clone")) | all(.total_ms < 50)'
	check_durations "$WP" kernel_clone
	check_frame "$WP" '^kernel_clone$' kernel_clone
	check_frame "$WP" 'wait_for_completion|__wait_for_common' kernel_clone
	# the parent waits killable: TASK_KILLABLE | TASK_FREEZABLE here (0x2102)
	[ "$(episodes "$WP" kernel_clone | jq -r '.state_name' | sort -u)" = "D(killable)" ]
	[ "$(episodes "$WP" kernel_clone | jq '.state | . % 512 >= 258' | sort -u)" = "true" ]
	# woken by each child as it exits
	wakers=$(episodes "$WP" kernel_clone | jq '.waker.tid' | sort -n | tr '\n' ' ')
	children=$(echo "$WLJ" | jq '.episodes[].waker_tid' | sort -n | tr '\n' ' ')
	echo "wakers [$wakers] children [$children]"
	[ "$wakers" = "$children" ]
	episodes "$WP" kernel_clone | jq -e 'select(.waker.kernel_stack | index("mm_release"))' >/dev/null
	# the summary agrees
	jq -se --argjson n "$N" '[.[] | select(.type=="interval") | .reasons[] |
		select(.reason=="kernel_clone") | .count] | add == $n' "$TOOL_OUT"
}

# bats test_tags=smoke, vm
@test "dstate: vfork parents: N killable episodes of the child's sleep, kernel_clone frames, child as waker (tp_btf)" {
	dwait_run V -m 0 -v
	grep -q "loader: light" "$TOOL_ERR"
	grep -q "attach sched_switch: tp_btf" "$TOOL_ERR"
	grep -q "D state from sched_switch's prev_state argument" "$TOOL_ERR"
	check_vfork
}

@test "dstate: --serve: bpflite_dstate_seconds{reason=\"kernel_clone\"} has the vfork parents' episodes, in their bucket" {
	local go url n sum_ms le_lo le_hi m=$BATS_TEST_TMPDIR/metrics
	go=$(make_go)
	"$WL/dwait" -V -n "$N" -d "$D" -g "$go" >"$BATS_TEST_TMPDIR/wl.json" &
	WP=$!
	serve_tool dstate-lite -p "$WP"
	TOOL_PID=$SERVE_PID url=$URL
	go "$go"
	wait "$WP"
	curl -sf "$url/metrics" >"$m"
	grep kernel_clone "$m" | grep -v '} 0$' || true
	n=$(awk '/^bpflite_dstate_seconds_count\{reason="kernel_clone"\}/ {print $2}' "$m")
	[ "$n" = "$N" ]
	# D ms each: all of them in the bucket that holds D ms (262.144 to 524.288 ms)
	[ "$(awk '/^bpflite_dstate_seconds_bucket\{reason="kernel_clone",le="0.262144"\}/ {print $2}' "$m")" = 0 ]
	[ "$(awk '/^bpflite_dstate_seconds_bucket\{reason="kernel_clone",le="0.524288"\}/ {print $2}' "$m")" = "$N" ]
	sum_ms=$(awk '/^bpflite_dstate_seconds_sum\{reason="kernel_clone"\}/ {print $2 * 1000}' "$m")
	assert_between "sum (ms)" "$sum_ms" "$(awk -v d=$D -v n=$N 'BEGIN{print d*n*0.98}')" \
		"$(jq '[.episodes[].ns] | add / 1e6 * 1.05' "$BATS_TEST_TMPDIR/wl.json")"
	# cumulative: a second scrape has the same (nothing new), not zero
	[ "$(curl -sf "$url/metrics" | awk '/^bpflite_dstate_seconds_count\{reason="kernel_clone"\}/ {print $2}')" = "$N" ]
	stop_tool INT
	[ "$TOOL_RC" = 0 ]
	[ ! -s "$SERVE_OUT" ]
}

@test "dstate: vfork parents, forced libbpf skeleton" {
	dwait_run V -m 0 -v --force-libbpf
	grep -q "loader: libbpf skeleton (forced)" "$TOOL_ERR"
	grep -q "attach sched_switch: tp_btf" "$TOOL_ERR"
	check_vfork
}

# bats test_tags=vm
@test "dstate: vfork parents, forced raw_tp path" {
	dwait_run V -m 0 -v --force-raw-tp
	grep -q "loader: light" "$TOOL_ERR"
	grep -q "attach sched_switch: raw_tp (forced)" "$TOOL_ERR"
	grep -q "attach sched_waking: raw_tp (forced)" "$TOOL_ERR"
	check_vfork
}

# bats test_tags=vm
@test "dstate: vfork parents, state read from the task (kernels without prev_state), both attach paths" {
	dwait_run V -m 0 -v --state-from-task
	grep -q "D state from the task's state field" "$TOOL_ERR"
	check_vfork
	dwait_run V -m 0 -v --state-from-task --force-raw-tp
	grep -q "attach sched_switch: raw_tp (forced)" "$TOOL_ERR"
	check_vfork
}

check_mutex() {
	local waiter holder n
	waiter=$(echo "$WLJ" | jq '.waiter_tid')
	holder=$(echo "$WLJ" | jq '.holder_tid')
	n=$(count_episodes "$waiter")
	echo "waiter $waiter episodes: $n"
	[ "$n" = "$N" ]
	check_durations "$waiter"
	check_frame "$waiter" '^__mutex_lock'
	check_frame "$waiter" '^(anon_)?pipe_write$'
	[ "$(episodes "$waiter" | jq -r '.reason' | sort -u)" = "$(episodes "$waiter" | jq -r '.kernel_stack[] | select(test("pipe_write"))' | sort -u)" ]
	[ "$(episodes "$waiter" | jq -r '.state_name' | sort -u)" = "D" ]
	# woken by the holder as it unlocks the pipe mutex
	[ "$(episodes "$waiter" | jq '.waker.tid' | sort -u)" = "$holder" ]
	episodes "$waiter" | jq -e 'select(.waker.kernel_stack | any(test("mutex_unlock")))' >/dev/null
	# the holder sleeps in handle_userfault interruptibly here: not D (a
	# .constprop/.isra/.cold copy of it is the same function)
	[ "$(episodes "$holder" | jq 'select(.kernel_stack | any(test("^handle_userfault($|\\.)")))' | jq -s length)" = 0 ]
}

# bats test_tags=vm
@test "dstate: pipe mutex held across a userfaultfd fault: waiter in D for the hold, holder is the waker" {
	dwait_run M -m 0
	check_mutex
}

# bats test_tags=vm
@test "dstate: pipe mutex, forced raw_tp path" {
	dwait_run M -m 0 --force-raw-tp
	check_mutex
}

@test "dstate: -U adds the user stack of the waiting task" {
	local go
	go=$(make_go)
	"$WL/dwait" -V -n 3 -d 100 -l 1000 -g "$go" >"$BATS_TEST_TMPDIR/wl.json" &
	WP=$!
	start_tool dstate-lite -j -m 0 -U -p "$WP"
	go "$go"
	wait "$WP"
	stop_tool INT
	episodes "$WP" | jq -c '.user_stack'
	# vfork's libc stub has no frame of its own: its caller is skipped, main is not
	[ "$(episodes "$WP" | jq 'select((.user_stack | index("__vfork")) and (.user_stack | index("main")))' | jq -s length)" = 3 ]
	# folded, printed at exit: the process is long gone, its frames still have names
	go=$(make_go)
	"$WL/dwait" -V -n 3 -d 100 -g "$go" >/dev/null &
	WP=$!
	start_tool dstate-lite -f -U -p "$WP"
	go "$go"
	wait "$WP"
	sleep 0.5
	stop_tool INT
	cat "$TOOL_OUT"
	grep -Eq '^dwait;.*;main;__vfork;-;entry_SYSCALL[^;]*;.*;kernel_clone;.*;--;.* [0-9]+$' "$TOOL_OUT"
}

# dwait -x: three vfork waits, then an exec of Debian's dd, whose O_DIRECT
# reads sleep in D: announced again after the exec, the process's new
# mappings are read, and once dd has exited the folded stacks name both
# programs' frames, dd's not from dwait's mappings.
@test "dstate: -U, a process that execs another program: its frames named after it exits (--unwind auto and fp)" {
	local go mode f=$BATS_TEST_TMPDIR/dio.img
	dd if=/dev/urandom of="$f" bs=1M count=4 status=none
	sync "$f"
	for mode in auto fp; do
		go=$(make_go)
		"$WL/dwait" -V -n 3 -d 100 -g "$go" -x dd if="$f" of=/dev/null bs=4k count=1024 \
			iflag=direct status=none >/dev/null &
		WP=$!
		start_tool dstate-lite -f -U --unwind "$mode" -p "$WP"
		go "$go"
		wait "$WP"
		stop_tool INT
		echo "--unwind $mode:"
		cat "$TOOL_OUT"
		grep -Eq '^dwait;.*;main;__vfork;-;entry_SYSCALL[^;]*;.*;kernel_clone;.*;--;.* [0-9]+$' "$TOOL_OUT"
		# dd's user frames (before the first "-") named, all of them (dd
		# is stripped: its own are dd+0x...), with tables down to its root
		grep -Eq '^dd;[^-]*read;-;' "$TOOL_OUT"
		! grep -E '^dd;[^-]*\[unknown\]' "$TOOL_OUT" || false
		[ "$mode" = fp ] || grep -Eq '^dd;dd\+0x[0-9a-f]+;__libc_start_main;__libc_start_call_main;dd\+0x' "$TOOL_OUT"
	done
}

@test "dstate: an interruptible sleeper shows nothing, a vfork parent traced alongside does" {
	local gs gv sp vp
	gs=$(make_go)
	gv=$(make_go)
	"$WL/dwait" -S -n "$N" -d "$D" -g "$gs" >/dev/null &
	sp=$!
	"$WL/dwait" -V -n "$N" -d 100 -g "$gv" >/dev/null &
	vp=$!
	start_tool dstate-lite -j -m 0
	go "$gs" & go "$gv"
	wait "$sp" "$vp"
	stop_tool INT
	[ "$TOOL_RC" = 0 ]
	echo "episodes of the sleeper $sp:"
	jq -c --argjson p "$sp" 'select(.type=="episode" and .pid == $p)' "$TOOL_OUT"
	[ "$(jq -c --argjson p "$sp" 'select(.type=="episode" and .pid == $p)' "$TOOL_OUT" | grep -c .)" = 0 ]
	[ "$(count_episodes "$vp")" = "$N" ]
}

@test "dstate: stuck now lists a task while it is still blocked past the threshold" {
	local go waiter first last
	go=$(make_go)
	"$WL/dwait" -M -n 1 -d 3500 -g "$go" >"$BATS_TEST_TMPDIR/wl.json" &
	WP=$!
	start_tool dstate-lite -j --stuck 1000 -p "$WP" 1
	go "$go"
	wait "$WP"
	sleep 1.2
	stop_tool INT
	waiter=$(jq '.waiter_tid' "$BATS_TEST_TMPDIR/wl.json")
	jq -c 'select(.type=="stuck")' "$TOOL_OUT"
	# listed at two or more intervals while blocked, with its reason and stack
	[ "$(jq -c --argjson t "$waiter" 'select(.type=="stuck") | .tasks[] | select(.tid == $t)' "$TOOL_OUT" | grep -c .)" -ge 2 ]
	jq -se --argjson t "$waiter" '[.[] | select(.type=="stuck") | .tasks[] | select(.tid == $t)] |
		all(.ms >= 1000 and .ms < 3600 and (.reason | test("pipe_write")) and
		    (.kernel_stack | any(test("^__mutex_lock"))))' "$TOOL_OUT"
	# ms grows from one interval to the next
	first=$(jq -s --argjson t "$waiter" '[.[] | select(.type=="stuck") | .tasks[] | select(.tid == $t) | .ms] | first' "$TOOL_OUT")
	last=$(jq -s --argjson t "$waiter" '[.[] | select(.type=="stuck") | .tasks[] | select(.tid == $t) | .ms] | last' "$TOOL_OUT")
	assert_between "stuck ms growth" "$(awk -v a="$first" -v b="$last" 'BEGIN{print b-a}')" 900 2700
	# once it ran again it is no longer listed: the last record has no tasks
	[ "$(jq -s '[.[] | select(.type=="stuck")] | last | .tasks | length' "$TOOL_OUT")" = 0 ]
	# and the summary has the ended episode (on failure: every episode and
	# reason the tool reported, to tell a second sleep from a lost one)
	jq -c 'select(.type == "episode") | del(.kernel_stack, .waker_kernel_stack)' "$TOOL_OUT"
	jq -c 'select(.type == "interval") | .reasons' "$TOOL_OUT"
	jq -se '[.[] | select(.type=="interval") | .reasons[] | select(.reason | test("pipe_write")) | .count] | add == 1' "$TOOL_OUT"
}

@test "dstate: a task already in D at start-up is listed as stuck, since when it fell asleep, and not summed" {
	local waiter start_ns ms ts
	"$WL/dwait" -M -n 1 -d 3500 >"$BATS_TEST_TMPDIR/wl.json" &
	WP=$!
	for _ in $(seq 100); do
		waiter=$(for f in /proc/$WP/task/*/stat; do awk '$3 == "D" {print $1}' "$f" 2>/dev/null; done | head -1)
		[ -n "$waiter" ] && break
		sleep 0.05
	done
	[ -n "$waiter" ]
	sleep 0.5
	start_tool dstate-lite -j -m 0 --stuck 500 -p "$WP" 1
	wait "$WP"
	sleep 1.2
	stop_tool INT
	jq -c 'select(.type=="stuck")' "$TOOL_OUT"
	jq -se --argjson t "$waiter" '[.[] | select(.type=="stuck") | .tasks[] | select(.tid == $t)] |
		length >= 1 and all(.before_start and .ms >= 500 and (.reason | test("pipe_write")))' "$TOOL_OUT"
	# in D since the waiter's blocking write began (the workload's own wall
	# clock just before it: a poll of /proc here lags by as long as the
	# shell is kept from running, 200 ms once)
	start_ns=$(jq '.episodes[0].start_realtime_ns' "$BATS_TEST_TMPDIR/wl.json")
	ms=$(jq -s --argjson t "$waiter" '[.[] | select(.type=="stuck") | select(any(.tasks[]; .tid == $t))] | first |
		.tasks[] | select(.tid == $t) | .ms' "$TOOL_OUT")
	ts=$(jq -s --argjson t "$waiter" '[.[] | select(.type=="stuck") | select(any(.tasks[]; .tid == $t))] | first | .timestamp' "$TOOL_OUT")
	assert_between "estimated - observed time in D (ms)" \
		"$(awk -v ms="$ms" -v ts="$ts" -v s="$start_ns" 'BEGIN{print ms - (ts * 1e3 - s / 1e6)}')" -30 150
	# its length is not measured: no episode, no summary entry
	[ "$(jq -c --argjson t "$waiter" 'select(.type=="episode" and .tid == $t)' "$TOOL_OUT" | grep -c .)" = 0 ]
	jq -se '[.[] | select(.type=="interval") | .reasons[] | select(.reason | test("pipe_write"))] | length == 0' "$TOOL_OUT"
}

@test "dstate: stuck now in text, the threshold respected" {
	local go
	go=$(make_go)
	"$WL/dwait" -M -n 1 -d 2500 -g "$go" >/dev/null &
	WP=$!
	start_tool dstate-lite --stuck 1500 -p "$WP" 1
	go "$go"
	wait "$WP"
	stop_tool INT
	cat "$TOOL_OUT"
	grep -Eq '^STUCK NOW: in D for over 1500 ms$' "$TOOL_OUT"
	grep -Eq "^$WP +[0-9]+ +dwait +D +(1[5-9][0-9][0-9]|2[0-5][0-9][0-9]) +(anon_)?pipe_write$" "$TOOL_OUT"
}

@test "dstate: -f folds the wait stack, then the waker's, with microseconds" {
	local go holder line us
	go=$(make_go)
	"$WL/dwait" -M -n "$N" -d "$D" -g "$go" >"$BATS_TEST_TMPDIR/wl.json" &
	WP=$!
	start_tool dstate-lite -f -p "$WP"
	go "$go"
	wait "$WP"
	stop_tool INT
	[ "$TOOL_RC" = 0 ]
	cat "$TOOL_OUT"
	line=$(grep -E '^dwait;.*pipe_write;.*__mutex_lock[^;]*;[^;]*;.*;--;.*mutex_unlock.*;dwait [0-9]+$' "$TOOL_OUT")
	[ "$(echo "$line" | grep -c .)" = 1 ]
	# root first: the syscall entry comes before pipe_write, the scheduler last before --
	# "-" starts the kernel frames; the waker's comm follows its own "-"
	echo "$line" | grep -Eq '^dwait;-;entry_SYSCALL[^;]*;.*;__schedule;--;try_to_wake_up;.*;-;dwait [0-9]+$'
	us=$(echo "$line" | awk '{print $NF}')
	assert_between "folded total (us)" "$us" $((N * D * 950)) $((N * D * 1050))
	# flamegraph-lite draws it: the counts in us, kernel frames (the wait's and
	# the waker's) in the kernel's cool colours without --guess-kernel, the comms warm
	[ "$(head -1 "$TOOL_OUT")" = "# countname us" ]
	"$BIN/flamegraph-lite" "$TOOL_OUT" >"$BATS_TEST_TMPDIR/d.svg"
	python3 "$BATS_TEST_DIRNAME/flamegraph_check.py" tree "$BATS_TEST_TMPDIR/d.svg" >"$BATS_TEST_TMPDIR/d.tsv"
	grep -Eq '<title>(anon_)?pipe_write \([0-9,]+ us, ' "$BATS_TEST_TMPDIR/d.svg"
	awk -F'\t' '$2 ~ /^(anon_)?pipe_write$/ || $2 == "try_to_wake_up" || $2 == "__schedule" { print $7 }' "$BATS_TEST_TMPDIR/d.tsv" |
		tr -d 'rgb()' | awk -F, '{ n++ } $3 <= $1 { bad++ } END { exit !(n >= 3 && !bad) }'
	awk -F'\t' '$1 == 1 && $2 == "dwait" { print $7 }' "$BATS_TEST_TMPDIR/d.tsv" |
		tr -d 'rgb()' | awk -F, '{ n++ } $1 <= $3 { bad++ } END { exit !(n == 1 && !bad) }'
}

@test "dstate: -H histogram per reason, text and JSON" {
	dwait_run V -H
	jq -se --argjson n "$N" '[.[] | select(.type=="interval") | .reasons[] | select(.reason=="kernel_clone") |
		.histogram.buckets[] | select(.low <= 300000 and .high >= 300000) | .count] | add == $n' "$TOOL_OUT"
	local go
	go=$(make_go)
	"$WL/dwait" -V -n "$N" -d "$D" -g "$go" >/dev/null &
	WP=$!
	start_tool dstate-lite -H -p "$WP"
	go "$go"
	wait "$WP"
	stop_tool INT
	cat "$TOOL_OUT"
	grep -q '^reason = kernel_clone$' "$TOOL_OUT"
	grep -Eq '^     usecs               : count     distribution$' "$TOOL_OUT"
	grep -Eq "^    262144 -> 524287     : $N +\|\*+ *\|$" "$TOOL_OUT"
}

@test "dstate: text output: summary columns, -m episodes with stacks and waker, -T" {
	local go
	go=$(make_go)
	"$WL/dwait" -V -n "$N" -d "$D" -g "$go" >"$BATS_TEST_TMPDIR/wl.json" &
	WP=$!
	start_tool dstate-lite -T -m 100 -p "$WP"
	go "$go"
	wait "$WP"
	stop_tool INT
	cat "$TOOL_OUT"
	grep -q "Tracing uninterruptible (D) sleeps... Hit Ctrl-C to end." "$TOOL_ERR"
	grep -Eq '^TIME +COMM +PID +TID +STATE +TOTAL +REASON$' "$TOOL_OUT"
	[ "$(grep -Ec "^[0-9]{2}:[0-9]{2}:[0-9]{2} dwait +$WP +$WP +D\(killable\) +[0-9.]+ ms  kernel_clone$" "$TOOL_OUT")" = "$N" ]
	[ "$(grep -Ec "^  woken after [0-9.]+ ms by dwait [0-9]+ \(pid [0-9]+\):$" "$TOOL_OUT")" = "$N" ]
	grep -Eq '^    wait_for_completion_state$' "$TOOL_OUT"
	grep -Eq '^REASON +COUNT +TOTAL_ms +AVG_ms +MAX_ms +TOP COMMS$' "$TOOL_OUT"
	grep -Eq "^kernel_clone +$N +[0-9.]+ +[0-9.]+ +[0-9.]+  dwait\($N\)$" "$TOOL_OUT"
}

# bt_once: dwait -V under bpftrace's count of the parent's switch-outs by
# state (the classic tracepoint), dstate-lite -j -m 0 -p and the kernel's
# own trace (ktrace_sched). Leaves WP and BT (bpftrace's output).
bt_once() {
	local go btp
	BT=$BATS_TEST_TMPDIR/bt.out
	go=$(make_go)
	"$WL/dwait" -V -n "$N" -d "$D" -g "$go" >"$BATS_TEST_TMPDIR/wl.json" &
	WP=$!
	bpftrace -e "tracepoint:sched:sched_switch /args->prev_pid == $WP/ { @[args->prev_state] = count(); }" >"$BT" 2>&1 &
	btp=$!
	# attached as the kernel sees it, however long its first start takes
	wait_attached "$btp" 1 "$BT"
	start_tool dstate-lite -j -m 0 -p "$WP"
	ktrace_sched "$WP"
	go "$go"
	# each wait bounded: this test once hung past the file's 900 s
	wait_bounded "$WP" 60 dwait
	kill -INT "$TOOL_PID"
	TOOL_RC=0
	wait_bounded "$TOOL_PID" 30 dstate-lite || TOOL_RC=$?
	ktrace_stop
	[ "$TOOL_RC" = 0 ]
	kill -0 "$btp"	# the reference saw the whole workload
	# bpftrace 0.17 can miss a SIGINT that comes as it enters epoll_wait
	# with nothing more to read (the traced process is gone: it stayed
	# there 30 s in one run): the signal again if it is still there 1 s on
	for _ in $(seq 30); do
		kill -INT "$btp" 2>/dev/null || break
		for _ in $(seq 10); do
			kill -0 "$btp" 2>/dev/null || break 2
			sleep 0.1
		done
	done
	wait_bounded "$btp" 5 bpftrace
	cat "$BT"
}

# bpftrace counts switch-outs; the tool, waits that ended (switch-out, then
# switch-in). A switch-in the host kernel left untraced for every tracer
# (see ktrace_twice) parts the two: such a run is made again, once.
@test "dstate: agrees with the classic sched_switch tracepoint (bpftrace) on the vfork parent's D switches" {
	command -v bpftrace >/dev/null || skip "no bpftrace"
	ensure_tracefs
	local n vf
	ktrace_twice 1 D bt_once
	# the classic tracepoint reports a killable wait as 2 (D): the vfork
	# waits (a vfork whose child was done before the parent slept has no
	# wait: 6 of 8 slept once) and any other D sleep of the parent (a fault
	# on its freshly built binary's page in filemap_fault, once in a clean
	# clone): the tool reports each one the reference saw
	n=$(awk '/^@\[2\]:/{print $2}' "$BT")
	# what the tool saw of the parent, and what it said, for a failure
	echo "the tool's episodes of $WP:"
	episodes "$WP" | jq -c '{reason, total_ms, state_name}'
	sed 's/^/stderr: /' "$TOOL_ERR"
	vf=$(episodes "$WP" | jq -r .reason | grep -c '^kernel_clone$' || true)
	[ "${n:-0}" -ge 1 ] && [ "$vf" -ge 1 ] && [ "$vf" -le "$N" ]
	[ "$(count_episodes "$WP")" = "$n" ]
}

@test "dstate: TASK_IDLE sleeps only with --include-idle" {
	# idle kernel threads (0x402) sleep about 14 times a second here
	local out=$BATS_TEST_TMPDIR/out.json
	timeout 10 "$BIN/dstate-lite" -j -m 0 2 1 >"$out" 2>/dev/null
	assert_ndjson "$out"
	[ "$(jq -c 'select(.type=="episode" and .state_name=="I")' "$out" | grep -c .)" = 0 ]
	timeout 10 "$BIN/dstate-lite" -j -m 0 --include-idle 2 1 >"$out" 2>/dev/null
	[ "$(jq -c 'select(.type=="episode" and .state_name=="I")' "$out" | grep -c .)" -ge 2 ]
	[ "$(jq -c 'select(.type=="episode" and .state_name=="I") | .state' "$out" | sort -u)" = 1026 ]
}

@test "dstate: frozen tasks (cgroup v1 freezer) only with --include-idle" {
	local fz
	# the v1 freezer hierarchy wherever it is mounted; else mount one
	fz=$(awk '$3 == "cgroup" && $4 ~ /(^|,)freezer(,|$)/ {print $2; exit}' /proc/self/mounts)
	if [ -z "$fz" ]; then
		grep -Eq '^freezer[[:space:]]+[0-9]+[[:space:]]+[0-9]+[[:space:]]+1' /proc/cgroups ||
			skip "kernel without a cgroup v1 freezer to mount (CONFIG_CGROUP_FREEZER)"
		fz=$BATS_TEST_TMPDIR/freezer
		mkdir "$fz"
		mount -t cgroup -o freezer bpflite-freezer "$fz"
		CLEANUP_MOUNTS="${CLEANUP_MOUNTS:-} $fz"
	fi
	local dir=$fz/bpflite-dstate-$$ sp n
	make_cgroup "$dir"
	FZ_DIR=$dir
	# a spinning task: the freezer sends it through __refrigerator (a
	# sleeping one would be frozen in place, without a context switch)
	timeout 30 sh -c 'while :; do :; done' 3>&- &
	sp=$!
	FZ_PID=$sp
	echo "$sp" >"$dir/cgroup.procs"
	frozen_run
	[ "$FROZEN_N" = 0 ]
	# the thaw's switch-in must be in the kernel's own trace (ktrace_sched):
	# when the host kernel left it untraced, the run is done again, once
	ktrace_twice 0 D frozen_run --include-idle
	[ "$FROZEN_N" -ge 1 ]
	jq -se '[.[] | select(.type=="episode" and .state_name=="frozen")] |
		all(.state == 32768 and .total_ms > 900 and .total_ms < 1500)' "$TOOL_OUT"
}

# frozen_run TOOL_ARGS...: the spinner FZ_PID frozen for 1 s in FZ_DIR
# under dstate-lite -j -m 0 -p; leaves FROZEN_N, its frozen episodes.
frozen_run() {
	start_tool dstate-lite -j -m 0 -p "$FZ_PID" "$@"
	ktrace_sched "$FZ_PID"
	echo FROZEN >"$FZ_DIR/freezer.state"
	sleep 1
	echo THAWED >"$FZ_DIR/freezer.state"
	sleep 0.3
	ktrace_stop
	stop_tool INT
	FROZEN_N=$(jq -c 'select(.type=="episode" and .state_name=="frozen")' "$TOOL_OUT" | grep -c . || true)
	echo "args [$*]: $FROZEN_N frozen episodes"
}

@test "dstate: -c CGROUP counts only tasks in that cgroup, -t only that thread" {
	test_cgroup dstate
	ktrace_twice "$N" D dwait_in_cgroup "$TEST_CG"
	rmdir "$TEST_CG"
	[ "$(count_episodes "$IN")" = "$N" ]
	[ "$(count_episodes "$OUT")" = 0 ]

	ktrace_twice "$N" D dwait_tid
	[ "$(count_episodes "$WP")" = "$N" ]
	[ "$(jq -c 'select(.type=="episode")' "$TOOL_OUT" | grep -c .)" = "$N" ]
}

@test "dstate: interval and count end the run by themselves" {
	run timeout 10 "$BIN/dstate-lite" -j 1 2
	[ "$status" = 0 ]
	[ "$(echo "$output" | grep -c '"type":"interval"')" = 2 ]
	[ "$(echo "$output" | grep -c '"type":"stuck"')" = 2 ]
}

# IDs of the BPF programs and links process $1 holds, from its fds.
bpf_ids_of() {
	cat /proc/"$1"/fdinfo/* 2>/dev/null | awk '/^link_id:/ {print "link", $2} /^prog_id:/ {print "prog", $2}' | sort -u
}

@test "dstate: SIGINT and SIGTERM print the final summary, exit 0, leave no BPF behind" {
	local ids id left
	for sig in INT TERM; do
		start_tool dstate-lite -m 0
		sleep 1
		ids=$(bpf_ids_of "$TOOL_PID")
		echo "$sig: the tool holds: $ids" | tr '\n' ' '
		[ "$(echo "$ids" | grep -c '^prog')" -ge 2 ]
		[ "$(echo "$ids" | grep -c '^link')" -ge 2 ]
		stop_tool "$sig"
		[ "$TOOL_RC" = 0 ]
		grep -Eq '^REASON +COUNT' "$TOOL_OUT"
		# its programs and links are gone (the machine is shared: look at ours only)
		for _ in $(seq 50); do
			left=""
			for id in $(echo "$ids" | awk '$1 == "prog" {print $2}'); do
				bpftool prog show id "$id" >/dev/null 2>&1 && left="$left prog $id"
			done
			for id in $(echo "$ids" | awk '$1 == "link" {print $2}'); do
				bpftool link show id "$id" >/dev/null 2>&1 && left="$left link $id"
			done
			[ -z "$left" ] && break
			sleep 0.1
		done
		[ -z "$left" ] || { echo "left behind:$left" >&2; return 1; }
	done
}

# dio_run TOOL_ARGS...: 600 reads of 4 KiB with O_DIRECT from a file on
# the root file system (ext4 on virtio: each read's D sleep ends in the
# disk's interrupt, whose block softirq runs on whatever task is on the
# CPU) under dstate-lite -p, with a CPU hog on each CPU. Leaves DD (its
# pid), TOOL_OUT, and dd's switches as the kernel traced them (ktrace_sched).
dio_run() {
	local go f=$BATS_TEST_TMPDIR/dio.img
	[ -f "$f" ] || { dd if=/dev/urandom of="$f" bs=1M count=4 status=none && sync "$f"; }
	HOGS=""
	for c in 0 1; do
		"$WL/cpuhog" -n 1 -s 30 -c "$c" >/dev/null &
		HOGS="$HOGS $!"
	done
	go=$(make_go)
	sh -c 'read -r _ <"$1"; exec dd if="$2" of=/dev/null bs=4k count=600 iflag=direct status=none' \
		sh "$go" "$f" &
	DD=$!
	start_tool dstate-lite -p "$DD" "$@"
	ktrace_sched "$DD"
	go "$go"
	wait "$DD"
	sleep 0.2
	stop_tool INT
	ktrace_stop
	[ "$TOOL_RC" = 0 ]
	for h in $HOGS; do kill "$h"; wait "$h" 2>/dev/null || true; done
	HOGS=""
}

@test "dstate: wake-ups from an interrupt name the interrupt, never the task it interrupted (O_DIRECT on /, CPU hogs)" {
	local n irq named
	dio_run -j -m 0
	assert_ndjson "$TOOL_OUT"
	n=$(jq -s --argjson d "$DD" '[.[] | select(.type=="episode" and .pid==$d)] | length' "$TOOL_OUT")
	irq=$(jq -s --argjson d "$DD" '[.[] | select(.type=="episode" and .pid==$d and (.waker.context=="hardirq" or .waker.context=="softirq"))] | length' "$TOOL_OUT")
	named=$(jq -s --argjson d "$DD" '[.[] | select(.type=="episode" and .pid==$d) | .waker.comm // empty] | group_by(.) | map({(.[0]): length}) | add' "$TOOL_OUT")
	echo "$n episodes of dd, $irq woken by an interrupt; tasks named as waker: $named"
	jq -c --argjson d "$DD" 'select(.type=="episode" and .pid==$d) | .waker' "$TOOL_OUT" | head -2
	# every D sleep of dd is an episode (how many of the 600 reads sleep
	# depends on the disk: 276 to 600 here)
	dsleeps_reported "$DD" 100
	# the disk's interrupt wakes them all; a task waker is neither a hog,
	# the tool, nor the idle task
	assert_between "interrupt wake-ups/episodes" "$(awk -v a="$irq" -v b="$n" 'BEGIN{print a/b}')" 0.9 1
	jq -se --argjson d "$DD" 'map(select(.type=="episode" and .pid==$d and (.waker.comm // "" | test("^(cpuhog|dstate-lite|swapper)")))) | length == 0' "$TOOL_OUT"
	# the interrupt's frames are the waker's stack
	jq -se --argjson d "$DD" 'map(select(.type=="episode" and .pid==$d and .waker.context != null and .waker.context != "task" and (.waker.kernel_stack | index("try_to_wake_up")))) | length > 0' "$TOOL_OUT"

	# text: "woken ... by softirq:" (or hardirq), never by a hog
	dio_run -m 0
	grep -Eq '^  woken after [0-9.]+ ms by (hardirq|softirq):$' "$TOOL_OUT"
	! grep -Eq '^  woken after .* by (cpuhog|dstate-lite|swapper)' "$TOOL_OUT" || false

	# folded: the waker element is [hardirq] or [softirq]
	dio_run -f
	grep -Eq '^dd;.*;--;.*;\[(hardirq|softirq)\] [0-9]+$' "$TOOL_OUT"
	! grep -Eq '^dd;.*;--;.*;(cpuhog|dstate-lite|swapper[^;]*) [0-9]+$' "$TOOL_OUT" || false
}

# bats test_tags=soak
@test "dstate: 50,000 thread and 5,000 process exits, each process with a D sleep, fill no map; vfork sleeps stay exact" {
	local go waits aggs wl
	make_churn_cgroup
	# -m 100: the workload's 300 ms sleeps as episodes, not the churn's
	start_tool dstate-lite -j -c "$CG" -m 100
	run_churn -v	# each of the 5,000 processes waits once for a vfork child
	[ "$(echo "$CHURN" | jq .threads)" = 50000 ]
	[ "$(echo "$CHURN" | jq .procs)" = 5000 ]
	waits=$(map_entries "$TOOL_PID" waits)
	aggs=$(map_entries "$TOOL_PID" aggs)
	echo "after the churn: waits $waits, aggs $aggs entries"
	# nothing of the cgroup is alive; aggregates are per stack and comm,
	# not per process (it was 4096, full, for 5,000 processes)
	[ "$waits" -le 8 ]
	[ "$aggs" -le 64 ]

	go=$(make_go)
	in_cgroup_bg "$WL/dwait" -V -n "$N" -d "$D" -g "$go" >"$BATS_TEST_TMPDIR/wl.json"
	go "$go"
	wait "$BG"
	stop_tool INT
	[ "$TOOL_RC" = 0 ]
	assert_ndjson "$TOOL_OUT"
	assert_no_loss
	WP=$BG
	WLJ=$(cat "$BATS_TEST_TMPDIR/wl.json")
	# the vfork parent's N sleeps, each as long as the workload measured
	[ "$(count_episodes "$WP")" = "$N" ]
	check_durations "$WP"
	# and the churn's sleeps are in the summary, none lost
	jq -se 'map(select(.type=="interval") | .reasons[] | select(.reason=="kernel_clone") | .comms[] | select(.comm=="churn") | .count) | add > 1000' "$TOOL_OUT"
}
