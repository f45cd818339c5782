# SPDX-License-Identifier: GPL-2.0
# Shared helpers of the integration tests (bats). Tests run the real tools
# as root on the real kernel against workloads in build/tests/workloads.

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
BIN=$ROOT/build/bin
WL=$ROOT/build/tests/workloads

require_root() {
	[ "$(id -u)" = 0 ] || skip "needs root"
}

# A fresh scratch directory per test (removed by bats).
scratch() {
	echo "$BATS_TEST_TMPDIR"
}

# Start a tool in the background: start_tool NAME ARGS...
# Sets TOOL_PID, TOOL_OUT (stdout file), TOOL_ERR (stderr file); waits
# until it says it is tracing (it has attached), at most 15 s. A caller's
# TOOL_RUNNER (an array: a command that execs the rest, such as setpriv)
# runs the tool under it, TOOL_PID still the tool's.
start_tool() {
	local name=$1
	shift
	TOOL_OUT=$BATS_TEST_TMPDIR/$name.out
	TOOL_ERR=$BATS_TEST_TMPDIR/$name.err
	# Empty the files here: the background child truncates them only
	# after the fork, and a second run of the same tool in one test must
	# not see the first run's "Hit Ctrl-C" line.
	: >"$TOOL_OUT"
	: >"$TOOL_ERR"
	"${TOOL_RUNNER[@]}" "$BIN/$name" "$@" >"$TOOL_OUT" 2>"$TOOL_ERR" &
	TOOL_PID=$!
	for _ in $(seq 150); do
		grep -q "Hit Ctrl-C to end" "$TOOL_ERR" 2>/dev/null && return 0
		kill -0 "$TOOL_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "tool $name did not start:" >&2
	cat "$TOOL_ERR" >&2
	return 1
}

# serve_tool NAME|PATH ARGS...: start a tool with --serve 127.0.0.1:0 (the
# kernel picks the port); sets SERVE_PID, SERVE_ERR, SERVE_OUT and URL
# (http://127.0.0.1:PORT) once it is attached and listening, at most 15 s.
serve_tool() {
	local name=$1 exe
	shift
	case $name in */*) exe=$name ;; *) exe=$BIN/$name ;; esac
	SERVE_ERR=$BATS_TEST_TMPDIR/${name##*/}.serve.err
	SERVE_OUT=$BATS_TEST_TMPDIR/${name##*/}.serve.out
	: >"$SERVE_ERR"
	"$exe" --serve 127.0.0.1:0 "$@" >"$SERVE_OUT" 2>"$SERVE_ERR" &
	SERVE_PID=$!
	for _ in $(seq 150); do
		URL=$(grep -o 'serving http://[0-9.:]*/metrics\.\.\. Hit Ctrl-C to end' "$SERVE_ERR" |
			sed 's|^serving \(http://[0-9.:]*\)/metrics.*|\1|')
		[ -n "$URL" ] && return 0
		kill -0 "$SERVE_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "$name did not start serving:" >&2
	cat "$SERVE_ERR" >&2
	return 1
}

# Stop the tool with a signal (default INT) and wait; sets TOOL_RC.
stop_tool() {
	local sig=${1:-INT}
	kill -"$sig" "$TOOL_PID" 2>/dev/null
	TOOL_RC=0
	wait "$TOOL_PID" || TOOL_RC=$?
}

# Wait for a tool that ends by itself (duration/count); sets TOOL_RC.
wait_tool() {
	TOOL_RC=0
	wait "$TOOL_PID" || TOOL_RC=$?
}

# A go FIFO for a workload: GO=$(make_go)
make_go() {
	local f=$BATS_TEST_TMPDIR/go.$RANDOM
	mkfifo "$f"
	echo "$f"
}

# Open a workload's go FIFO: it starts its known work. A workload that
# died never opens it: fail after 20 s rather than hang the suite.
go() {
	timeout 20 sh -c 'echo go >"$1"' sh "$1" || { echo "no workload opened $1" >&2; return 1; }
}

# IDs of loaded BPF programs, one per line, sorted.
bpf_prog_ids() {
	bpftool prog show -j 2>/dev/null | jq -r '.[].id' | sort -n
}

bpf_link_ids() {
	bpftool link show -j 2>/dev/null | jq -r '.[].id' | sort -n
}

# refute CMD ARGS...: fail when CMD succeeds. A bare '! CMD' fails a bats
# test only as its last command (errexit ignores a negated pipeline);
# refute fails wherever it stands. tests/lint/lint-bats.sh rejects the other.
refute() {
	if "$@"; then
		echo "expected to fail, but succeeded: $*" >&2
		return 1
	fi
	return 0
}

# Assert lo <= value <= hi (numbers may be fractional).
assert_between() {
	local what=$1 v=$2 lo=$3 hi=$4
	if ! awk -v v="$v" -v lo="$lo" -v hi="$hi" 'BEGIN{exit !(v >= lo && v <= hi)}'; then
		echo "$what = $v, expected between $lo and $hi" >&2
		return 1
	fi
}

# Every line of a file is one JSON value (one jq for the whole file: a
# system-wide run on a busy machine has thousands of lines).
assert_ndjson() {
	local f=$1 bad
	[ -s "$f" ] || { echo "no JSON lines in $f" >&2; return 1; }
	bad=$(jq -Rr 'select((try (fromjson | true) catch false) | not) | "line \(input_line_number): \(.)"' "$f") ||
		{ echo "jq failed on $f" >&2; return 1; }
	[ -z "$bad" ] || { echo "not JSON: $bad" >&2; return 1; }
}

# Run a command, expect exit status $1 and a stderr that matches $2 (regex).
expect_fail() {
	local rc=$1 pattern=$2
	shift 2
	local err=$BATS_TEST_TMPDIR/expect.err out=$BATS_TEST_TMPDIR/expect.out got=0
	# bounded: a tool that does not fail as expected must not hang the
	# suite (a shell function, such as as_bpf_user, runs as it is)
	if declare -F "$1" >/dev/null; then
		"$@" >"$out" 2>"$err" || got=$?
	else
		timeout -k 5 120 "$@" >"$out" 2>"$err" || got=$?
	fi
	if [ "$got" != "$rc" ]; then
		echo "expected exit $rc, got $got from: $*" >&2
		cat "$err" >&2
		return 1
	fi
	if ! grep -Eq -- "$pattern" "$err"; then
		echo "stderr of '$*' does not match /$pattern/:" >&2
		cat "$err" >&2
		return 1
	fi
	# a crash would have said so
	refute grep -Eq 'Segmentation|Aborted|core dumped|AddressSanitizer' "$err"
}

# The kernel frees detached programs after an RCU grace period: give it
# up to 5 s to return to the programs and links loaded before the tool.
# Usage: before=$(bpf_snapshot); ...; assert_no_bpf_left "$before"
bpf_snapshot() {
	echo "$(bpf_prog_ids | tr '\n' ' ')/$(bpf_link_ids | tr '\n' ' ')"
}

assert_no_bpf_left() {
	local before=$1 now
	for _ in $(seq 50); do
		now=$(bpf_snapshot)
		[ "$now" = "$before" ] && return 0
		sleep 0.1
	done
	echo "BPF objects left behind: before [$before] now [$now]" >&2
	bpftool prog show >&2
	return 1
}

# bpftrace (a reference in some tests) needs tracefs, which may be unmounted.
ensure_tracefs() {
	[ -d /sys/kernel/tracing/events ] || mount -t tracefs tracefs /sys/kernel/tracing
}

# ktrace_start EVENT FILTER: the tracepoint EVENT (system/name), filtered,
# as the kernel's own tracer (ftrace: no BPF) records it, in a tracefs
# instance of this test: the reference for what the kernel traced, when
# a host kernel leaves events untraced for every tracer. ktrace_stop
# leaves the records in $BATS_TEST_TMPDIR/ktrace.
ktrace_start() {
	ensure_tracefs
	KTRACE=/sys/kernel/tracing/instances/bpflite-$$
	KTRACE_EVENT=$1
	[ -d "$KTRACE" ] || mkdir "$KTRACE"
	echo 0 >"$KTRACE/tracing_on"
	# one clock for every CPU: with the default (local, per CPU), a task
	# that left one CPU and came back on another could sort back to front
	echo mono >"$KTRACE/trace_clock"
	# room for every event of a test's workload: the default (1408 KiB a
	# CPU) holds about 16,000 sched_switch records, and a full buffer
	# overwrites its oldest ones (a reference that lost the first sleeps
	# of dd's 8,192); ktrace_stop counts what was overwritten all the same
	echo "${KTRACE_KB:-8192}" >"$KTRACE/buffer_size_kb"
	echo >"$KTRACE/trace"
	echo "$2" >"$KTRACE/events/$1/filter"
	echo 1 >"$KTRACE/events/$1/enable"
	echo 1 >"$KTRACE/tracing_on"
}

ktrace_stop() {
	echo 0 >"$KTRACE/tracing_on"
	cat "$KTRACE/trace" >"$BATS_TEST_TMPDIR/ktrace"
	KTRACE_LOST=$(cat "$KTRACE"/per_cpu/cpu*/stats | awk '/^(overrun|commit overrun|dropped events):/ { n += $NF } END { print n + 0 }')
	echo 0 >"$KTRACE/events/$KTRACE_EVENT/enable"
	rmdir "$KTRACE"
}

# ktrace_sched PID: PID's sched_switch events as the kernel's own tracer
# gets them (ktrace_start).
ktrace_sched() {
	ktrace_start sched/sched_switch "prev_pid == $1 || next_pid == $1"
	KTRACE_PID=$1
}

# ktrace_complete N [STATES]: the trace (ktrace_sched) holds at least N
# blocking switch-outs of the workload (in a state STATES matches, a regex,
# S or D by default), each switched back in before its next
# switch-out, and each switch-in after the first switch-out has one before
# it, and none of its records was overwritten. Sets KTRACE_WHY, and
# KTRACE_HALF: waits whose switch-in is missing (two switch-outs in a
# row), which every tool path can see.
ktrace_complete() {
	local r half_out
	r=$(awk -v p="$KTRACE_PID" -v st="^prev_state=(${2:-S|D})\$" '
		/sched_switch:/ {
			if ($0 ~ ("prev_pid=" p " ")) {
				if (open) half_in++
				open = 1
				outs++
				for (i = 1; i <= NF; i++)
					if ($i ~ st) blocking++
			}
			if ($0 ~ ("next_pid=" p " ")) {
				if (!open && outs) half_out++
				open = 0
			}
		}
		END { print blocking + 0, half_in + 0, half_out + 0 }' "$BATS_TEST_TMPDIR/ktrace")
	read -r KTRACE_BLOCKING KTRACE_HALF half_out <<<"$r"
	KTRACE_WHY="$KTRACE_BLOCKING blocking switch-outs traced (at least $1), $KTRACE_HALF switch-ins and $half_out switch-outs missing, ${KTRACE_LOST:-0} records overwritten"
	[ "$KTRACE_BLOCKING" -ge "$1" ] && [ "$KTRACE_HALF" = 0 ] && [ "$half_out" = 0 ] && [ "${KTRACE_LOST:-0}" = 0 ]
}

# dsleeps_reported PID MIN: dstate-lite's -j -m 0 output (TOOL_OUT) holds
# an episode of PID for each of its D sleeps in the kernel's own trace
# (ktrace_sched, stopped), or says it lost it (the loss record); the trace
# holds at least MIN of them. How many of a workload's reads sleep
# depends on the disk (an O_DIRECT read that completes before its task
# sleeps does not): the trace says how many did. Leaves DSLEEPS.
dsleeps_reported() {
	local seen
	ktrace_complete "$2" D || echo "# $KTRACE_WHY" >&3
	DSLEEPS=$KTRACE_BLOCKING
	seen=$(jq -s --argjson p "$1" '([.[] | select(.type == "episode" and .pid == $p)] | length) +
		([.[] | select(.type == "loss") | .lost_events] | add // 0)' "$TOOL_OUT")
	echo "pid $1: $DSLEEPS D sleeps traced by the kernel, $seen reported or lost"
	[ "$DSLEEPS" -ge "$2" ]
	assert_between "episodes reported or lost, of the D sleeps traced" \
		"$(awk -v a="$seen" -v b="$DSLEEPS" 'BEGIN { print a / b }')" 0.99 1.01
}

# ktrace_twice N STATES CMD...: CMD (which starts the tool, then
# ktrace_sched, and stops both), and CMD again, once, when the kernel's
# trace of the workload is not complete (ktrace_complete N STATES); says so
# on fd 3, in every log. KTRACE_CHECK, if set, names a check that runs
# after an incomplete trace: what the tool must have reported of it.
ktrace_twice() {
	local need=$1 states=$2 try
	shift 2
	for try in 1 2; do
		"$@"
		ktrace_complete "$need" "$states" && return 0
		echo "# run $try: the kernel's trace is not complete: $KTRACE_WHY" | tee /dev/fd/3
		[ -z "${KTRACE_CHECK:-}" ] || "$KTRACE_CHECK"
	done
}

# The BPF programs, links and maps a running process holds, from its
# fdinfo ("p12 l7 m30 ..."): unlike a machine-wide snapshot, other BPF
# users on the machine do not disturb it.
proc_bpf_ids() {
	local f
	for f in /proc/"$1"/fdinfo/*; do
		awk '/^link_id:/{print "l" $2; next} /^prog_id:/{print "p" $2} /^map_id:/{print "m" $2}' "$f" 2>/dev/null
	done | sort -u | tr '\n' ' '
}

# After the process exited, none of those objects may remain (the kernel
# frees them after an RCU grace period: up to 5 s of patience).
assert_bpf_ids_gone() {
	local ids=$1 left id
	[ -n "$ids" ] || { echo "no BPF objects were recorded" >&2; return 1; }
	for _ in $(seq 50); do
		left=""
		for id in $ids; do
			case $id in
			p*) bpftool prog show id "${id#p}" >/dev/null 2>&1 && left="$left $id" ;;
			l*) bpftool link show id "${id#l}" >/dev/null 2>&1 && left="$left $id" ;;
			m*) bpftool map show id "${id#m}" >/dev/null 2>&1 && left="$left $id" ;;
			esac
		done
		[ -z "$left" ] && return 0
		sleep 0.1
	done
	echo "BPF objects left behind:$left" >&2
	return 1
}

# ---- long runs: task churn ----------------------------------------------

# A cgroup v2 directory for this test: CG. Traced with -c, it keeps other
# work on the machine out of the counts and the tool's maps; cleanup_test
# removes it.
make_churn_cgroup() {
	local root
	root=$(cgroup2_root)
	[ -n "$root" ] || skip "no cgroup v2 mount"
	CG=$root/bpflite-test.$$.$BATS_TEST_NUMBER
	make_cgroup "$CG"
}

# For teardown(): a test that failed half-way leaves its tool running;
# then what cleanup_test removes.
cleanup_cgroup() {
	if [ -n "${TOOL_PID:-}" ] && kill -0 "$TOOL_PID" 2>/dev/null; then
		kill -INT "$TOOL_PID"
		wait "$TOOL_PID" 2>/dev/null || true
	fi
	cleanup_test
}

# Start a workload that waits on a go FIFO in CG: in_cgroup_bg CMD...
# Sets BG (its pid). The workload blocks in wl_wait_go() until go GO.
# It joins CG once its own exec is done (its /proc cmdline is CMD...), so
# a tool filtering on CG never sees that exec, only the workload's work.
in_cgroup_bg() {
	local want i
	want=$(printf '%s\n' "$@")
	"$@" &
	BG=$!
	# (cmp -s takes /proc's size of 0 for a difference: compare the text)
	for i in $(seq 200); do
		[ "$(tr '\0' '\n' <"/proc/$BG/cmdline" 2>/dev/null)" = "$want" ] && break
		if [ "$i" = 200 ] || ! kill -0 "$BG" 2>/dev/null; then
			echo "in_cgroup_bg: $1 did not start" >&2
			kill "$BG" 2>/dev/null
			return 1
		fi
		sleep 0.05
	done
	echo "$BG" >"$CG/cgroup.procs"
}

# run_churn [ARGS]: tests/workloads/churn in CG: 50,000 thread and
# 5,000 process exits by default. Leaves CHURN (its JSON).
run_churn() {
	local go
	go=$(make_go)
	in_cgroup_bg "$WL/churn" -g "$go" "$@" >"$BATS_TEST_TMPDIR/churn.json"
	go "$go"
	wait "$BG"
	CHURN=$(cat "$BATS_TEST_TMPDIR/churn.json")
	echo "churn: $CHURN"
}

# Entries now in the map called $2 of process $1 (bpftool map dump).
map_entries() {
	local pid=$1 name=$2 id f
	for f in /proc/"$pid"/fdinfo/*; do
		id=$(awk '/^map_id:/{print $2}' "$f" 2>/dev/null)
		[ -n "$id" ] || continue
		if [ "$(bpftool map show id "$id" -j | jq -r .name)" = "$name" ]; then
			bpftool map dump id "$id" -j | jq length
			return 0
		fi
	done
	echo "no map $name in process $pid" >&2
	return 1
}

# The tool's stderr and JSON say nothing was lost.
assert_no_loss() {
	if grep -E 'warning|lost|dropped|map full' "$TOOL_ERR"; then
		echo "the tool reported a loss" >&2
		return 1
	fi
	if [ -s "$TOOL_OUT" ] && grep -q '"type":"loss"' "$TOOL_OUT"; then
		jq -se 'map(select(.type=="loss")) | all(.lost_events == 0 and .lost_stacks == 0 and .map_full == 0)' "$TOOL_OUT"
	fi
}

# prog_runs PID REGEX: "RUNS MISSES": how many times the kernel ran the BPF
# programs whose name REGEX matches (bpftool may show names cut at 15
# characters) that process PID holds open (run_cnt, counted while
# kernel.bpf_stats_enabled is 1: bpf_stats_on), and how many runs it
# skipped (recursion_misses), machine-wide, as bpftool reads them.
prog_runs() {
	local ids
	# the programs of its fds (fdinfo's prog_id: a program's fd or a link's)
	ids=$(cat /proc/"$1"/fdinfo/* 2>/dev/null | sed -n 's/^prog_id:[[:space:]]*//p' | sort -un | paste -sd, -)
	bpftool prog show -j 2>/dev/null | jq -r --arg ids "[${ids}]" --arg n "$2" \
		'($ids | fromjson) as $ids | [.[] | select((.name | test($n)) and (.id as $i | $ids | index($i)))] |
		 "\(map(.run_cnt // 0) | add // 0) \(map(.recursion_misses // 0) | add // 0)"'
}

# bpf_stats_on: the kernel counts BPF program runs until the test ends.
bpf_stats_on() {
	[ -n "${BPF_STATS_WAS:-}" ] || BPF_STATS_WAS=$(sysctl -n kernel.bpf_stats_enabled)
	sysctl -qw kernel.bpf_stats_enabled=1
}

# bpf_stats_restore: as it was before bpf_stats_on.
bpf_stats_restore() {
	[ -z "${BPF_STATS_WAS:-}" ] || sysctl -qw kernel.bpf_stats_enabled="$BPF_STATS_WAS"
	BPF_STATS_WAS=
}

# wait_attached PID N [OUTPUT]: wait until process PID (a reference tracer
# such as bpftrace) has N tracepoint programs attached, as the kernel lists
# them (bpftool perf), not as its banner says. Its first start on a cold
# machine parses the kernel's BTF and can take long on a busy 2-core
# machine: at most 120 s, and on failure its own OUTPUT says why.
wait_attached() {
	local n
	for _ in $(seq 1200); do
		n=$(bpftool perf show -j 2>/dev/null | jq --argjson p "$1" '[.[] | select(.pid == $p)] | length')
		[ "${n:-0}" -ge "$2" ] && return 0
		kill -0 "$1" 2>/dev/null || { echo "process $1 exited before it attached" >&2; break; }
		sleep 0.1
	done
	echo "process $1 did not attach $2 programs (has ${n:-0})" >&2
	[ -z "${3:-}" ] || { echo "its output:" >&2; cat "$3" >&2; }
	return 1
}

# wait_bounded PID S WHAT: wait for PID (a child), S seconds at most. A
# hang fails the test that met it, naming WHAT and where it sleeps,
# instead of taking the rest of its file down at the file's timeout.
wait_bounded() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		kill -0 "$1" 2>/dev/null || { wait "$1"; return; }
		sleep 0.1
	done
	echo "$3 (pid $1) still running after $2 s: $(cat /proc/"$1"/wchan 2>/dev/null)" >&2
	cat /proc/"$1"/stack >&2 2>/dev/null || true
	kill -9 "$1" 2>/dev/null
	return 124
}

# stop_reference PID: a reference tracer must still be running (it saw the
# whole workload); SIGINT ends it, and it must exit 0.
stop_reference() {
	local rc=0
	kill -0 "$1" 2>/dev/null || { echo "reference $1 exited early" >&2; return 1; }
	kill -INT "$1"
	wait "$1" || rc=$?
	[ "$rc" = 0 ] || { echo "reference $1 exited $rc" >&2; return 1; }
}

# The cgroup v2 mount (for -c tests), or nothing.
cgroup2_root() {
	local cg
	for cg in /sys/fs/cgroup/unified /sys/fs/cgroup; do
		[ -f "$cg/cgroup.procs" ] && [ "$(stat -fc %T "$cg")" = cgroup2fs ] && { echo "$cg"; return; }
	done
}

# make_cgroup DIR: create a cgroup that cleanup_test removes, also when
# the test fails half-way.
make_cgroup() {
	mkdir "$1"
	CLEANUP_CGROUPS="${CLEANUP_CGROUPS:-} $1"
}

# tool_err_count PHRASE: the number before PHRASE in the tool's last line
# that has it, on stderr (a warning or a -v line at exit); 0 when none.
tool_err_count() {
	local n
	n=$(sed -n "s/.* \([0-9][0-9]*\) $1.*/\1/p" "$TOOL_ERR" | tail -1)
	echo "${n:-0}"
}

# test_cgroup NAME: a cgroup v2 group of the test's own, made (cleanup_test
# removes it); its path in TEST_CG. Skips the test where cgroup2 is not
# mounted.
test_cgroup() {
	local cg
	cg=$(cgroup2_root)
	[ -n "$cg" ] || skip "no cgroup v2 mount (cgroup2 file system)"
	TEST_CG=$cg/bpflite-$1-$$
	make_cgroup "$TEST_CG"
}

# For teardown(): kill what is left in the test's cgroups, remove them;
# unmount the test's mounts. Never fails.
cleanup_test() {
	local d p
	for d in ${CLEANUP_CGROUPS:-}; do
		[ -d "$d" ] || continue
		[ -f "$d/freezer.state" ] && echo THAWED >"$d/freezer.state" 2>/dev/null
		for p in $(cat "$d/cgroup.procs" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
		for _ in $(seq 50); do rmdir "$d" 2>/dev/null && break; sleep 0.1; done
	done
	CLEANUP_CGROUPS=
	for d in ${CLEANUP_MOUNTS:-}; do
		umount "$d" 2>/dev/null
		rmdir "$d" 2>/dev/null
	done
	CLEANUP_MOUNTS=
	# a kernel trace the test did not stop
	if [ -n "${KTRACE:-}" ] && [ -d "$KTRACE" ]; then
		ktrace_stop
	fi
	true
}

# curl, bounded: a server that stops answering fails the test instead of
# hanging it (a later --max-time on the command line wins).
curl() { command curl --max-time 60 "$@"; }
