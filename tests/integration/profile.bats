#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# profile-lite against tests/workloads/profwl: prof_hot_fn and
# prof_cold_fn burn CPU about 3:1 (the workload measures each one's thread
# CPU time), prof_sys_fn reads /dev/zero (kernel time in read_zero),
# prof_sleep_fn sleeps with -S.

# bpflite: serial: idle time and one CPU's samples measured machine-wide (-I, -C)

load helpers
bats_require_minimum_version 1.5.0

setup() {
	require_root
}

teardown() {
	# a workload still blocked on its go FIFO after a failure
	[ -z "${WLPID:-}" ] || kill "$WLPID" 2>/dev/null || true
	cleanup_cgroup
}

# wl_run WL_ARGS -- TOOL_ARGS...: profwl under profile-lite; the word WL
# in TOOL_ARGS becomes the workload's PID. With OTHER=1 a second profwl
# burns CPU at the same time (OTHERPID). Leaves WLPID, WLOUT (the
# workload's JSON), TOOL_OUT, TOOL_ERR.
wl_run() {
	local go wlargs=() args=() a
	while [ "$1" != -- ]; do wlargs+=("$1"); shift; done
	shift
	go=$(make_go)
	WLOUT=$BATS_TEST_TMPDIR/wl.json
	"$WL/profwl" "${wlargs[@]}" -g "$go" >"$WLOUT" &
	WLPID=$!
	if [ -n "${OTHER:-}" ]; then
		OTHERGO=$(make_go)
		"$WL/profwl" "${wlargs[@]}" -g "$OTHERGO" >/dev/null &
		OTHERPID=$!
	fi
	for a in "$@"; do [ "$a" = WL ] && args+=("$WLPID") || args+=("$a"); done
	start_tool profile-lite "${args[@]}"
	go "$go"
	[ -z "${OTHER:-}" ] || go "$OTHERGO"
	wait "$WLPID"
	[ -z "${OTHER:-}" ] || wait "$OTHERPID"
	stop_tool INT
	[ "$TOOL_RC" = 0 ]
	cat "$WLOUT"
}

# Samples of the workload's stacks whose user stack holds $1 (any: "").
samples_with() {
	jq -s --argjson p "$WLPID" --arg f "$1" \
		'[.[] | select(.type=="stack" and .pid==$p and ($f == "" or ((.user_stack // []) | index($f)))) | .samples] | add // 0' "$TOOL_OUT"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN{print a/b}'; }
scaled() { awk -v a="$1" -v f="$2" 'BEGIN{print a*f}'; }

# bats test_tags=smoke
@test "profile: 3:1 in two named functions, kernel frames of its syscalls, samples = F x CPU seconds, -p keeps one process" {
	local hot cold want all cpu_s
	# 2 s of CPU, whatever share of a busy machine it gets; at 999 Hz enough
	# samples that the scheduler's interplay with the timer averages out
	OTHER=1 wl_run -s 30 -b 2000 -- -F 999 -j -p WL
	assert_ndjson "$TOOL_OUT"
	hot=$(samples_with prof_hot_fn)
	cold=$(samples_with prof_cold_fn)
	want=$(jq '.hot_ns / .cold_ns' "$WLOUT")
	echo "samples: hot $hot cold $cold; workload's CPU time ratio $want"
	[ "$cold" -gt 0 ]
	assert_between "hot/cold samples" "$(ratio "$hot" "$cold")" "$(scaled "$want" 0.9)" "$(scaled "$want" 1.1)"
	# the sampling rate holds: F x the CPU seconds the process used
	all=$(samples_with "")
	cpu_s=$(jq .stat_cpu_s "$WLOUT")
	echo "samples $all, CPU ${cpu_s}s"
	assert_between "samples per CPU second" "$(ratio "$all" "$cpu_s")" 849 1119
	# the kernel frames of its reads of /dev/zero, under the function
	jq -se --argjson p "$WLPID" 'map(select(.pid==$p and (.user_stack // [] | index("prof_sys_fn")) and (.kernel_stack // [] | index("read_zero")))) | length > 0' "$TOOL_OUT"
	# -p: only that process (the other one burnt as much), never the tracer's own frames
	jq -se --argjson p "$WLPID" 'map(select(.type=="stack")) | length > 0 and all(.pid == $p)' "$TOOL_OUT"
	refute grep -Eq 'bpf_prog_|bpf_trace_run|__bpf_trace_' "$TOOL_OUT"
}

@test "profile: --count sets the sample period: 1 sample per 5 ms of CPU" {
	local all cpu_s
	wl_run -s 2 -- --count 5000000 -j -p WL
	all=$(samples_with "")
	cpu_s=$(jq .stat_cpu_s "$WLOUT")
	echo "samples $all, CPU ${cpu_s}s"
	assert_between "samples per CPU second" "$(ratio "$all" "$cpu_s")" 170 226
}

# bats test_tags=vm
@test "profile: -f folded lines parse; -a marks kernel frames _[k]; -d puts '-' between user and kernel" {
	# 1 s of CPU, whatever share of a busy machine it gets: about 70
	# samples in its reads of /dev/zero at 999 Hz
	wl_run -s 30 -b 1000 -- -F 999 -adf -p WL
	# "comm;frame;... count": every line, and the workload's named
	[ -s "$TOOL_OUT" ]
	# one comment first: the unit, for flamegraph-lite
	[ "$(head -1 "$TOOL_OUT")" = "# countname samples" ]
	[ -z "$(grep -v '^# countname ' "$TOOL_OUT" | grep -Ev '^[^ ]+( [^ ]+)* [0-9]+$')" ]
	grep -Eq '^profwl;.*;prof_hot_fn( [0-9]+|;)' "$TOOL_OUT"
	grep -Eq '^profwl;.*;prof_sys_fn;-;.*read_zero_\[k\]' "$TOOL_OUT"
	# user frames carry no suffix
	refute grep -q 'prof_sys_fn_\[k\]' "$TOOL_OUT"
}

# cxx_run TOOL_ARGS...: tests/workloads/cxxwl (C++) under profile-lite -f -p.
cxx_run() {
	local go
	go=$(make_go)
	"$WL/cxxwl" -b 300 -g "$go" &
	WLPID=$!
	start_tool profile-lite -F 499 -f -p "$WLPID" "$@"
	go "$go"
	wait "$WLPID"
	stop_tool INT
	[ "$TOOL_RC" = 0 ]
}

@test "profile: C++ functions named as c++filt names them; --no-demangle keeps the symbols" {
	command -v c++filt >/dev/null || skip "no c++filt (binutils)"
	local spin
	spin=$(c++filt _ZN7bpflite6BurnerIiE4spinEm)
	echo "c++filt: $spin"
	[ "$spin" = "bpflite::Burner<int>::spin(unsigned long)" ]
	# the leaf of most samples (spin is a leaf: its caller may not show)
	cxx_run
	grep -F ";$spin " "$TOOL_OUT"
	refute grep -q '_ZN7bpflite' "$TOOL_OUT"
	cxx_run --no-demangle
	grep -F ";_ZN7bpflite6BurnerIiE4spinEm " "$TOOL_OUT"
	refute grep -qF "$spin" "$TOOL_OUT"
}

@test "profile: text output: bcc's multi-line layout, largest stack last" {
	wl_run -s 1 -- -F 199 -p WL
	grep -Eq '^    prof_hot_fn$' "$TOOL_OUT"
	grep -Eq '^    -                profwl \([0-9]+\)$' "$TOOL_OUT"
	# counts, ascending
	awk '/^        [0-9]+$/{print $1}' "$TOOL_OUT" | sort -nc
}

@test "profile: -t keeps one thread; -U and -K keep one kind of stack" {
	wl_run -s 1 -T 1 -- -F 199 -j -t WL
	[ "$(samples_with prof_hot_fn)" -gt 0 ]
	[ "$(samples_with prof_thread_fn)" = 0 ]
	wl_run -s 1 -T 1 -- -F 199 -j -p WL -U
	[ "$(samples_with prof_thread_fn)" -gt 0 ]
	jq -se 'map(select(.type=="stack")) | length > 0 and all(has("kernel_stack") | not)' "$TOOL_OUT"
	wl_run -s 1 -- -F 199 -j -p WL -K
	jq -se --argjson p "$WLPID" 'map(select(.type=="stack" and .pid==$p)) | length > 0 and all(has("user_stack") | not) and any(.kernel_stack | index("read_zero"))' "$TOOL_OUT"
}

@test "profile: -C samples one CPU only" {
	[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
	wl_run -s 1 -c 1 -- -F 199 -j -p WL -C 0
	[ "$(samples_with "")" = 0 ]
	# 1 s of CPU on CPU 1, whatever share of it a busy machine leaves; at
	# 999 Hz enough samples that the scheduler's interplay with the timer
	# averages out (at 199 Hz in 1 s of wall time, under a busy loop on
	# each CPU: 157 a CPU second)
	wl_run -s 30 -b 1000 -c 1 -- -F 999 -j -p WL -C 1
	assert_between "samples per CPU second" "$(ratio "$(samples_with "")" "$(jq .stat_cpu_s "$WLOUT")")" 849 1119
}

# Idle CPU seconds of the machine so far (idle + iowait: the idle task runs).
idle_s() { awk '/^cpu /{printf "%.3f\n", ($5 + $6) / '"$(getconf CLK_TCK)"'}' /proc/stat; }

@test "profile: the idle task only with -I, sampled as often as the CPUs were idle" {
	local i0 i1 idle n
	timeout 10 "$BIN/profile-lite" -F 99 -j 2 >"$BATS_TEST_TMPDIR/no-idle.json"
	jq -se 'map(select(.type=="stack" and .pid==0)) | length == 0' "$BATS_TEST_TMPDIR/no-idle.json"
	i0=$(idle_s)
	timeout 10 "$BIN/profile-lite" -F 99 -j -I 2 >"$BATS_TEST_TMPDIR/idle.json"
	i1=$(idle_s)
	idle=$(awk -v a="$i0" -v b="$i1" 'BEGIN{print b - a}')
	n=$(jq -s '[.[] | select(.type=="stack" and .pid==0 and (.comm | startswith("swapper"))) | .samples] | add // 0' "$BATS_TEST_TMPDIR/idle.json")
	echo "idle ${idle}s (the run and its start-up and exit), swapper samples $n"
	# a machine busy on every CPU has no idle time to sample
	awk -v i="$idle" 'BEGIN{exit !(i >= 0.2)}' || skip "the CPUs were not idle (${idle}s)"
	[ "$n" -gt 0 ]
	# At most F per idle second (the idle time measured also covers the
	# tool's start-up and exit). Idle CPUs of this virtual machine take
	# fewer timer samples than busy ones (40 to 95 a second at 99 Hz, seen
	# from run to run), so the floor only says the samples are the idle
	# time's, not a stray few.
	assert_between "swapper samples per idle second" "$(ratio "$n" "$idle")" 10 110
}

@test "profile: a stack map too small: missed stacks marked in-line and counted" {
	wl_run -s 1 -S 1 -- -F 199 -f -p WL --stack-storage-size 1
	grep -q '\[missed kernel stack\]\|\[missed user stack\]' "$TOOL_OUT"
	grep -Eq 'warning: [0-9]+ stacks? missed' "$TOOL_ERR"
}

# --off-cpu: the workload alternates compute and 2 ms sleeps until it has
# used 1 s of CPU; its on-CPU time is its thread CPU time, its off-CPU
# time the rest of the wall time.
check_off_cpu() {
	local on off want
	assert_ndjson "$TOOL_OUT"
	on=$(jq -s --argjson p "$WLPID" '[.[] | select(.kind=="on-cpu" and .pid==$p) | .total_us] | add // 0' "$TOOL_OUT")
	off=$(jq -s --argjson p "$WLPID" '[.[] | select(.kind=="off-cpu" and .pid==$p) | .total_us] | add // 0' "$TOOL_OUT")
	want=$(jq '.cpu_ns / (.wall_ns - .cpu_ns)' "$WLOUT")
	echo "tool: on ${on}us off ${off}us; workload's on/off ratio $want"
	[ "$off" -gt 0 ]
	assert_between "on/off" "$(ratio "$on" "$off")" "$(scaled "$want" 0.9)" "$(scaled "$want" 1.1)"
	# both kinds name the workload's functions
	jq -se --argjson p "$WLPID" 'map(select(.kind=="off-cpu" and .pid==$p and (.user_stack // [] | index("prof_sleep_fn")) and (.kernel_stack | index("do_nanosleep")))) | length > 0' "$TOOL_OUT"
	jq -se --argjson p "$WLPID" 'map(select(.kind=="on-cpu" and .pid==$p and (.user_stack // [] | index("prof_hot_fn")))) | length > 0' "$TOOL_OUT"
}

@test "profile: --off-cpu: on- and off-CPU time in the ratio the workload measured (sched hooks by tp_btf)" {
	wl_run -s 30 -b 1000 -S 2 -- -F 999 --off-cpu -j -v -p WL
	grep -q "attach sched_switch: tp_btf" "$TOOL_ERR"
	check_off_cpu
}

@test "profile: --off-cpu, the same with the sched hooks on raw_tp (forced)" {
	wl_run -s 30 -b 1000 -S 2 -- -F 999 --off-cpu -j -v --force-raw-tp -p WL
	grep -q "attach sched_switch: raw_tp (forced)" "$TOOL_ERR"
	check_off_cpu
}

# bats test_tags=vm
@test "profile: --off-cpu folded stream: one root frame per kind, microseconds" {
	wl_run -s 1 -S 2 -- -F 199 --off-cpu -d -p WL
	[ "$(head -1 "$TOOL_OUT")" = "# countname us" ]
	[ -z "$(grep -v '^# countname ' "$TOOL_OUT" | grep -Ev '^\[(on|off)-cpu\];[^ ]+( [^ ]+)* [0-9]+$')" ]
	grep -Eq '^\[on-cpu\];profwl;.*prof_hot_fn' "$TOOL_OUT"
	grep -Eq '^\[off-cpu\];profwl;.*prof_sleep_fn;-;.*do_nanosleep' "$TOOL_OUT"
	# flamegraph-lite draws it
	"$BIN/flamegraph-lite" --countname us "$TOOL_OUT" >"$BATS_TEST_TMPDIR/wall.svg"
	grep -q '\[off-cpu\]' "$BATS_TEST_TMPDIR/wall.svg"
}

@test "profile: --interval: one aggregate per window, each under its header, the samples of the run shared out" {
	local all cpu_s
	wl_run -s 3 -- -F 99 -f -p WL --interval 1
	cat "$TOOL_OUT" | grep '^# window' >&2
	[ "$(grep -c '^# window ' "$TOOL_OUT")" -ge 3 ]
	# headers: sequence numbers 1, 2, 3, ... and each window starts where the last ended
	grep '^# window ' "$TOOL_OUT" | awk '$3 != NR {exit 1} NR > 1 && $4 != end {exit 1} {end = $5}'
	# every window's stacks are its own: the samples add up to F x CPU seconds
	all=$(grep -v '^#' "$TOOL_OUT" | awk '/^profwl;/{n += $NF} END{print n + 0}')
	cpu_s=$(jq .stat_cpu_s "$WLOUT")
	assert_between "samples per CPU second" "$(ratio "$all" "$cpu_s")" 84 112
	# flamegraph-lite reads the windowed stream
	"$BIN/flamegraph-lite" "$TOOL_OUT" >"$BATS_TEST_TMPDIR/w.svg"
	grep -q 'prof_hot_fn' "$BATS_TEST_TMPDIR/w.svg"
}

@test "profile: --ring: nothing printed until SIGUSR1, which prints the kept windows and the tool runs on" {
	local go
	go=$(make_go)
	"$WL/profwl" -s 4 -g "$go" >/dev/null &
	WLPID=$!
	start_tool profile-lite -F 99 -f -p "$WLPID" --interval 0.5 --ring 2
	go "$go"
	sleep 2.5
	[ ! -s "$TOOL_OUT" ]
	kill -USR1 "$TOOL_PID"
	for _ in $(seq 50); do grep -q 'prof_hot_fn' "$TOOL_OUT" && break; sleep 0.1; done
	kill -0 "$TOOL_PID"
	# the ring keeps 2 windows
	[ "$(grep -c '^# window ' "$TOOL_OUT")" = 2 ]
	grep -q 'prof_hot_fn' "$TOOL_OUT"
	wait "$WLPID"
	stop_tool INT
	[ "$TOOL_RC" = 0 ]
	[ "$(grep -c '^# window ' "$TOOL_OUT")" -ge 3 ]
}

@test "profile: JIT frames named from /tmp/perf-PID.map (node --perf-basic-prof)" {
	command -v node >/dev/null || skip "nodejs not installed (scripts/deps.sh test)"
	local go js=$BATS_TEST_TMPDIR/burn.js
	go=$(make_go)
	cat >"$js" <<'JS'
const fs = require('fs');
fs.readFileSync(process.argv[2]);	// blocks until the test says go
function burnCpuInJs(n) { let x = 1; for (let i = 0; i < n; i++) x = (x * 1103515245 + 12345) % 2147483648; return x; }
const end = Date.now() + 2000;
let s = 0;
while (Date.now() < end) s += burnCpuInJs(1000000);
console.log(s);
JS
	# from the scratch directory: node writes its isolate-*.log there
	(cd "$BATS_TEST_TMPDIR" && exec node --perf-basic-prof "$js" "$go" >/dev/null) &
	WLPID=$!
	# node writes its map at start-up: the tool reads it at the first snapshot
	for _ in $(seq 100); do [ -s "/tmp/perf-$WLPID.map" ] && break; sleep 0.1; done
	[ -s "/tmp/perf-$WLPID.map" ]
	start_tool profile-lite -F 99 -j -p "$WLPID"
	go "$go"
	wait "$WLPID"
	stop_tool INT
	rm -f "/tmp/perf-$WLPID.map"
	[ "$TOOL_RC" = 0 ]
	# most samples have the JavaScript function as a frame
	local named all
	named=$(jq -s '[.[] | select(.type=="stack" and (.user_stack // [] | map(test("burnCpuInJs")) | any)) | .samples] | add // 0' "$TOOL_OUT")
	all=$(jq -s '[.[] | select(.type=="stack") | .samples] | add // 0' "$TOOL_OUT")
	echo "samples in burnCpuInJs: $named of $all"
	assert_between "share named" "$(ratio "$named" "$all")" 0.5 1
}

@test "profile: JIT code compiled after the tool first read /tmp/perf-PID.map is named (the map is read again as it grows)" {
	command -v node >/dev/null || skip "nodejs not installed (scripts/deps.sh test)"
	local go1 go2 js=$BATS_TEST_TMPDIR/late.js early late all
	go1=$(make_go)
	go2=$(make_go)
	cat >"$js" <<'JS'
const fs = require('fs');
function burn(f, ms) { const end = Date.now() + ms; let s = 0; while (Date.now() < end) s += f(100000); return s; }
function burnEarlyInJs(n) { let x = 1; for (let i = 0; i < n; i++) x = (x * 1103515245 + 12345) % 2147483648; return x; }
fs.readFileSync(process.argv[2]);
let s = burn(burnEarlyInJs, 1500);
fs.readFileSync(process.argv[3]);	// the tool has read the map by now
// compiled only now: its perf-map line is written after that first read
const burnLateInJs = eval('(function burnLateInJs(n) { let x = 3; for (let i = 0; i < n; i++) x = (x * 69069 + 1) % 4294967296; return x; })');
s += burn(burnLateInJs, 1500);
console.log(s);
JS
	(cd "$BATS_TEST_TMPDIR" && exec node --perf-basic-prof "$js" "$go1" "$go2" >/dev/null) &
	WLPID=$!
	for _ in $(seq 100); do [ -s "/tmp/perf-$WLPID.map" ] && break; sleep 0.1; done
	[ -s "/tmp/perf-$WLPID.map" ]
	start_tool profile-lite -F 99 -j -p "$WLPID" --interval 0.5
	go "$go1"
	# a window that names the early function: the map was read
	for _ in $(seq 100); do grep -q burnEarlyInJs "$TOOL_OUT" && break; sleep 0.1; done
	grep -q burnEarlyInJs "$TOOL_OUT"
	run ! grep -q burnLateInJs "/tmp/perf-$WLPID.map"
	go "$go2"
	wait "$WLPID"
	stop_tool INT
	rm -f "/tmp/perf-$WLPID.map"
	[ "$TOOL_RC" = 0 ]
	early=$(jq -s '[.[] | select(.type=="stack" and (.user_stack // [] | map(test("burnEarlyInJs")) | any)) | .samples] | add // 0' "$TOOL_OUT")
	late=$(jq -s '[.[] | select(.type=="stack" and (.user_stack // [] | map(test("burnLateInJs")) | any)) | .samples] | add // 0' "$TOOL_OUT")
	all=$(jq -s '[.[] | select(.type=="stack") | .samples] | add // 0' "$TOOL_OUT")
	echo "samples: $early in burnEarlyInJs, $late in burnLateInJs, of $all"
	# each burns half the run's CPU
	assert_between "share in the late function" "$(ratio "$late" "$all")" 0.25 0.75
	assert_between "share in the early function" "$(ratio "$early" "$all")" 0.25 0.75
}

@test "profile: duration ends the run; SIGINT and SIGTERM mid-run report and leave no BPF behind" {
	local go ids sig wl
	# system-wide for 1 s while a workload burns CPU (on a quiet machine
	# that second may hold nothing but idle, which is not sampled)
	"$WL/profwl" -s 5 >/dev/null &
	wl=$!
	timeout 10 "$BIN/profile-lite" -f 1 >"$BATS_TEST_TMPDIR/d.txt"
	kill "$wl"
	wait "$wl" || true
	grep -Eq '^profwl;([^ ]+( [^ ]+)*;)?prof_(hot|cold|sys)_fn [0-9]+$' "$BATS_TEST_TMPDIR/d.txt"
	for sig in INT TERM; do
		go=$(make_go)
		"$WL/profwl" -s 3 -S 1 -g "$go" >/dev/null &
		WLPID=$!
		start_tool profile-lite -F 199 --off-cpu -p "$WLPID"
		ids=$(proc_bpf_ids "$TOOL_PID")
		go "$go"
		sleep 1
		stop_tool "$sig"
		[ "$TOOL_RC" = 0 ]
		grep -q 'prof_hot_fn' "$TOOL_OUT"
		kill "$WLPID" 2>/dev/null || true
		wait "$WLPID" 2>/dev/null || true
		assert_bpf_ids_gone "$ids"
	done
}

@test "profile: a frequency the kernel refuses: exit 1 and a hint" {
	expect_fail 1 "perf_event_max_sample_rate" timeout 10 "$BIN/profile-lite" -F 1000000
}
