#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Time windows (--interval), the flight recorder (--ring, SIGUSR1) and what
# flamegraph-lite does with windowed output (--from/--to, --diff), against
# tests/workloads/phases: phase 1 sleeps in phase_a_fn and phase_b_fn 3:1,
# phase 2 in phase_a_fn, phase_b_fn and phase_c_fn 1:2:1, each phase for a
# known time whose wall-clock start and end it prints.

# bpflite: serial: each window's phase checked against the workload's clock

load helpers

setup() {
	require_root
}

teardown() {
	cleanup_cgroup
}

# headers FILE: "SEQ START_MS END_MS" (epoch ms) per "# window" line
headers() {
	python3 - "$1" <<-'EOF'
	import sys, datetime
	def ms(s):
	    t = datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ")
	    return round(t.replace(tzinfo=datetime.timezone.utc).timestamp() * 1000)
	for line in open(sys.argv[1]):
	    if line.startswith("# window "):
	        _, _, seq, a, b = line.split()
	        print(seq, ms(a), ms(b))
	EOF
}

# window_sum FILE SEQ FUNC: the us of the stacks through FUNC in window SEQ
window_sum() {
	awk -v w="$2" -v f=";$3;" '/^# window /{cur=$3; next} /^#/{next}
		cur==w && index($0, f){s+=$NF} END{print s+0}' "$1"
}

# window_sums SEQ: "A B C", the us in phase_a_fn, phase_b_fn, phase_c_fn in window SEQ of TOOL_OUT
window_sums() {
	local f sums=""
	for f in phase_a_fn phase_b_fn phase_c_fn; do
		sums="$sums $(window_sum "$TOOL_OUT" "$1" "$f")"
	done
	echo "window $1: a b c =$sums" >&2
	echo "$sums"
}

# phases_run PHASE_MS PHASES TOOL_ARGS...: the workload under offcputime-lite -p
phases_run() {
	local go ms=$1 n=$2
	shift 2
	go=$(make_go)
	WLOUT=$BATS_TEST_TMPDIR/phases.json
	"$WL/phases" -d "$ms" -n "$n" -g "$go" >"$WLOUT" &
	WLPID=$!
	start_tool offcputime-lite -p "$WLPID" "$@"
	go "$go"
}

# full_windows PHASE: seqs of the windows wholly inside that phase
full_windows() {
	local p=$1
	jq -r --argjson p "$p" 'select(.phase==$p) | "\(.start_ms) \(.end_ms)"' "$WLOUT" |
	while read -r s e; do
		headers "$TOOL_OUT" | awk -v s="$s" -v e="$e" '$2 >= s && $3 <= e {print $1}'
	done
}

@test "window: offcputime-lite --interval -f: one stamped window a second, each the workload's phase" {
	local ids n seq a b c
	phases_run 3000 2 -df --interval 1
	ids=$(proc_bpf_ids "$TOOL_PID")
	wait "$WLPID"
	stop_tool INT
	[ "$TOOL_RC" = 0 ]
	headers "$TOOL_OUT"
	cat "$WLOUT"
	n=$(headers "$TOOL_OUT" | wc -l)
	# 6 s of work and the start: 6 to 9 windows, numbered 1.., each 1 s but the last,
	# each starting where the one before ended
	assert_between "windows" "$n" 6 9
	headers "$TOOL_OUT" | awk 'NR != $1 {exit 1} NR > 1 && $2 != prev {exit 1} {prev = $3}'
	# (a window closed late by a slow tick makes the next one shorter: the
	# schedule stays on whole seconds from the start)
	headers "$TOOL_OUT" | head -n -1 | awk '{d = $3 - $2; if (d < 600 || d > 1500) exit 1}'
	headers "$TOOL_OUT" | head -n -1 | awk '{s += $3 - $2} END {if (s / NR < 900 || s / NR > 1150) exit 1}'
	# phase 1: a:b = 3:1, no c; phase 2: b:a = 2:1, c as much as a
	[ -n "$(full_windows 1)" ]
	[ -n "$(full_windows 2)" ]
	for seq in $(full_windows 1); do
		read -r a b c <<<"$(window_sums "$seq")"
		assert_between "window $seq a:b" "$(echo "$a $b" | awk '{print $1 / $2}')" 2.4 3.6
		[ "$c" = 0 ]
		# asleep all the time of the window (a sleep counts where it ends)
		assert_between "window $seq asleep/length" "$(headers "$TOOL_OUT" |
			awk -v w="$seq" -v s=$((a + b)) '$1 == w {print s / ($3 - $2) / 1000}')" 0.85 1.08
	done
	for seq in $(full_windows 2); do
		read -r a b c <<<"$(window_sums "$seq")"
		assert_between "window $seq b:a" "$(echo "$a $b" | awk '{print $2 / $1}')" 1.6 2.4
		assert_between "window $seq c:a" "$(echo "$a $c" | awk '{print $2 / $1}')" 0.75 1.3
	done
	assert_bpf_ids_gone "$ids"
}

@test "window: -j and text forms carry the same stamped windows" {
	phases_run 1200 1 -j --interval 0.5
	wait "$WLPID"
	stop_tool INT
	[ "$TOOL_RC" = 0 ]
	assert_ndjson "$TOOL_OUT"
	# window records, numbered, 0.5 s long but the last (a loaded machine
	# delays a window's end by a tick or a slow report), before their stacks
	jq -c 'select(.type=="window")' "$TOOL_OUT"
	jq -se '[.[] | select(.type=="window")] | length >= 3 and
		(.[0:-1] | all(.seconds >= 0.3 and .seconds <= 1.2)) and
		([.[].window] == [range(1; length + 1)])' "$TOOL_OUT"
	jq -se --argjson p "$WLPID" 'map(select(.type=="stack" and .pid==$p and (.user_stack | index("phase_a_fn")))) | length >= 2' "$TOOL_OUT"
	[ "$(head -1 "$TOOL_OUT" | jq -r .type)" = window ]
	# the ring keeps JSON windows whole: SIGINT prints the last 2 (of 3 or more)
	phases_run 1500 1 -j --interval 0.5 --ring 2
	wait "$WLPID"
	stop_tool INT
	[ "$TOOL_RC" = 0 ]
	assert_ndjson "$TOOL_OUT"
	jq -se '[.[] | select(.type=="window")] | length == 2 and .[1].window == .[0].window + 1 and .[0].window >= 2' "$TOOL_OUT"

	phases_run 1200 1 --interval 0.5
	wait "$WLPID"
	stop_tool INT
	[ "$TOOL_RC" = 0 ]
	grep -Eq '^# window 1 [0-9-]{10}T[0-9:]{8}\.[0-9]{3}Z [0-9-]{10}T[0-9:]{8}\.[0-9]{3}Z$' "$TOOL_OUT"
	grep -q '^    phase_a_fn$' "$TOOL_OUT"
	# usage errors
	expect_fail 2 "--ring needs --interval" "$BIN/offcputime-lite" --ring 3
	expect_fail 2 "invalid interval" "$BIN/offcputime-lite" --interval 0
	expect_fail 2 "invalid interval" "$BIN/offcputime-lite" --interval x
	expect_fail 2 "invalid ring size" "$BIN/offcputime-lite" --interval 1 --ring 0
}

@test "window: --ring prints nothing until SIGUSR1, dumps the last N windows and runs on; SIGTERM dumps and exits" {
	local ids first n2 last1
	phases_run 2000 4 -df --interval 0.5 --ring 3
	ids=$(proc_bpf_ids "$TOOL_PID")
	sleep 3
	# nothing yet: the windows are in memory
	[ ! -s "$TOOL_OUT" ]
	kill -USR1 "$TOOL_PID"
	for _ in $(seq 50); do
		[ "$(headers "$TOOL_OUT" | wc -l)" = 3 ] && break
		sleep 0.1
	done
	first=$(headers "$TOOL_OUT")
	echo "$first"
	[ "$(echo "$first" | wc -l)" = 3 ]
	# the last three, consecutive, and the last one closed by the signal: >= 5 windows before it
	echo "$first" | awk 'NR > 1 && $1 != prev + 1 {exit 1} {prev = $1}'
	[ "$(echo "$first" | head -1 | cut -d' ' -f1)" -ge 4 ]
	grep -q ';phase_a_fn;' "$TOOL_OUT"
	kill -0 "$TOOL_PID"
	# still running, printing nothing until asked
	last1=$(wc -c <"$TOOL_OUT")
	sleep 1.5
	[ "$(wc -c <"$TOOL_OUT")" = "$last1" ]
	kill -0 "$TOOL_PID"
	stop_tool TERM
	[ "$TOOL_RC" = 0 ]
	headers "$TOOL_OUT"
	# the last 3 windows since the dump (1.5 s of 0.5 s windows and the
	# one the signal closed), consecutive, each printed once
	n2=$(headers "$TOOL_OUT" | tail -n +4)
	[ "$(echo "$n2" | wc -l)" = 3 ]
	echo "$n2" | awk 'NR > 1 && $1 != prev + 1 {exit 1} {prev = $1}'
	[ "$(echo "$n2" | head -1 | cut -d' ' -f1)" -gt "$(echo "$first" | tail -1 | cut -d' ' -f1)" ]
	kill "$WLPID" 2>/dev/null || true
	wait "$WLPID" || true
	assert_bpf_ids_gone "$ids"
}

# bats test_tags=soak
@test "window: --ring memory stays flat over many windows (small N)" {
	local go wp rss1 rss2 kb
	# 4,000 distinct user stacks, walked again and again: every 0.5 s
	# window holds them all, hundreds of KiB of text
	go=$(make_go)
	"$WL/stacks10k" -n 4000 -r 0 -g "$go" >/dev/null &
	wp=$!
	start_tool offcputime-lite -p "$wp" -f --interval 0.5 --ring 2
	go "$go"
	sleep 4
	rss1=$(awk '/^VmRSS/{print $2}' "/proc/$TOOL_PID/status")
	sleep 10
	rss2=$(awk '/^VmRSS/{print $2}' "/proc/$TOOL_PID/status")
	[ ! -s "$TOOL_OUT" ]
	stop_tool INT
	kill "$wp"
	wait "$wp" || true
	[ "$TOOL_RC" = 0 ]
	kb=$(($(wc -c <"$TOOL_OUT") / 1024 / 2))
	echo "VmRSS ${rss1} -> ${rss2} kB; a window is ${kb} KiB of text"
	[ "$kb" -gt 100 ]
	# 20 more windows after the first measure: the ring keeps 2, not 20
	[ $((rss2 - rss1)) -lt $((kb * 4)) ]
	# the signal closes the window in progress: the ring keeps it and the one before
	[ "$(grep -c '^# window ' "$TOOL_OUT")" = 2 ]
}

# ring_limit_run BYTES: stacks10k's 4,000 stacks (~0.5 MiB a window) under
# --interval 0.5 --ring 10 with the ring's byte limit lowered to BYTES;
# a dump after 3 s. Leaves TOOL_OUT, TOOL_ERR.
ring_limit_run() {
	local go wp
	go=$(make_go)
	"$WL/stacks10k" -n 4000 -r 0 -g "$go" >/dev/null &
	wp=$!
	BPFLITE_RING_BYTES=$1 start_tool offcputime-lite -p "$wp" -f --interval 0.5 --ring 10
	go "$go"
	sleep 3
	stop_tool TERM
	kill "$wp"
	wait "$wp" || true
	[ "$TOOL_RC" = 0 ]
	cat "$TOOL_ERR"
	echo "$(grep -c '^# window ' "$TOOL_OUT") windows, $(wc -c <"$TOOL_OUT") bytes"
	# never more text than the limit, and only whole folded lines
	[ "$(wc -c <"$TOOL_OUT")" -le "$1" ]
	refute grep -Evq '^[^ ;][^;]*(;[^;]+)* [0-9]+$|^# ' "$TOOL_OUT"
}

# bats test_tags=soak
@test "window: the ring's byte limit drops the oldest windows, cuts one too large, and says so" {
	# 1.5 MiB: a window or two fit, the older ones are dropped
	ring_limit_run 1500000
	assert_between "windows kept" "$(grep -c '^# window ' "$TOOL_OUT")" 1 3
	grep -Eq '^offcputime-lite: warning: [0-9]+ older windows dropped: the kept windows reached 1464 KiB$' "$TOOL_ERR"
	# 100 KB: not even one window fits whole
	ring_limit_run 100000
	grep -Eq '^offcputime-lite: warning: [0-9]+ windows cut short: the kept windows reached 97 KiB$' "$TOOL_ERR"
	[ "$(grep -c '^# window ' "$TOOL_OUT")" = 1 ]
}

@test "window: flamegraph-lite --from/--to picks windows, --diff colours what changed" {
	local w1 w2 all s e svg fr
	phases_run 3000 2 -df --interval 1
	wait "$WLPID"
	stop_tool INT
	[ "$TOOL_RC" = 0 ]
	w1=$(full_windows 1 | head -1)
	w2=$(full_windows 2 | head -1)
	[ -n "$w1" ] && [ -n "$w2" ]
	all=$(grep '^# window ' "$TOOL_OUT")
	# --from/--to with the stamps of window w2: that window only
	s=$(echo "$all" | awk -v w="$w2" '$3 == w {print $4}')
	e=$(echo "$all" | awk -v w="$w2" '$3 == w {print $5}')
	"$BIN/flamegraph-lite" --from "$s" --to "$e" --folded "$TOOL_OUT" >"$BATS_TEST_TMPDIR/after.folded"
	[ "$(grep -c '^# window ' "$BATS_TEST_TMPDIR/after.folded")" = 1 ]
	grep -q "^# window $w2 " "$BATS_TEST_TMPDIR/after.folded"
	grep -q ';phase_c_fn;' "$BATS_TEST_TMPDIR/after.folded"
	# HH:MM:SS.mmm alone: the same window
	"$BIN/flamegraph-lite" --from "${s:11:12}" --to "${e:11:12}" --folded "$TOOL_OUT" |
		grep -c '^# window ' | grep -qx 1
	s=$(echo "$all" | awk -v w="$w1" '$3 == w {print $4}')
	e=$(echo "$all" | awk -v w="$w1" '$3 == w {print $5}')
	"$BIN/flamegraph-lite" --from "$s" --to "$e" --folded "$TOOL_OUT" >"$BATS_TEST_TMPDIR/before.folded"
	refute grep -q ';phase_c_fn;' "$BATS_TEST_TMPDIR/before.folded"
	# the SVG of a pick: its counts are the window's, in us (the tool named the unit)
	"$BIN/flamegraph-lite" --from "$s" --to "$e" "$TOOL_OUT" >"$BATS_TEST_TMPDIR/w1.svg"
	refute grep -q phase_c_fn "$BATS_TEST_TMPDIR/w1.svg"
	grep -q '<title>phase_a_fn ([0-9,]* us, ' "$BATS_TEST_TMPDIR/w1.svg"
	grep -q "windows $s to $e" "$BATS_TEST_TMPDIR/w1.svg"
	# no window there
	expect_fail 1 "has no window between" "$BIN/flamegraph-lite" --from 1999-01-01T00:00:00 --to 1999-01-01T00:00:01 "$TOOL_OUT"

	# --diff before after: a shrank (blue), b grew (red), c is new (marked)
	svg=$BATS_TEST_TMPDIR/diff.svg
	"$BIN/flamegraph-lite" --diff "$BATS_TEST_TMPDIR/before.folded" "$BATS_TEST_TMPDIR/after.folded" >"$svg"
	xmllint --noout "$svg"
	fr=$(python3 "$BATS_TEST_DIRNAME/flamegraph_check.py" tree "$svg")
	echo "$fr" | grep -E 'phase_|\bmain\b'
	[ "$(echo "$fr" | awk -F'\t' '$2=="phase_a_fn"{print $7; exit}' | tr -d 'rgb()' | awk -F, '{print ($3 > $1) ? "blue" : "no"}')" = blue ]
	[ "$(echo "$fr" | awk -F'\t' '$2=="phase_b_fn"{print $7; exit}' | tr -d 'rgb()' | awk -F, '{print ($1 > $3) ? "red" : "no"}')" = red ]
	[ "$(echo "$fr" | awk -F'\t' '$2=="phase_c_fn"{print $7; exit}')" = "rgb(170,70,220)" ]
	grep -q '<g class="f new"><title>phase_c_fn (' "$svg"
	# hover text: both values and the delta
	grep -Eq '<title>phase_a_fn \([0-9,]+ us, before [0-9,]+, delta -[0-9,]+ -[0-9.]+%, ' "$svg"
	grep -Eq '<title>phase_b_fn \([0-9,]+ us, before [0-9,]+, delta \+[0-9,]+ \+[0-9.]+%, ' "$svg"
	# the other way round: c is gone, listed as only in before
	"$BIN/flamegraph-lite" --diff "$BATS_TEST_TMPDIR/after.folded" "$BATS_TEST_TMPDIR/before.folded" >"$svg"
	grep -Eq '<text class="gone" [^>]*>.*;main;phase_c_fn \([0-9,]+ us\)</text>' "$svg"
	refute grep -q '<title>phase_c_fn' "$svg"
	# --normalize: before scaled to after's total
	"$BIN/flamegraph-lite" --diff --normalize "$BATS_TEST_TMPDIR/before.folded" "$BATS_TEST_TMPDIR/after.folded" >"$svg"
	grep -Eq 'after: ([0-9,]+) us in [0-9]+ stacks; before: [0-9,]+ scaled to \1<' "$svg"
	expect_fail 2 "--diff needs two FILEs" "$BIN/flamegraph-lite" --diff "$svg"
	expect_fail 2 "--normalize needs --diff" "$BIN/flamegraph-lite" --normalize "$svg"
}

@test "window: dstate-lite -f --interval --ring: D sleeps per window, dumped on SIGUSR1, each stamped" {
	local go wp ids n
	go=$(make_go)
	# 6 vfork waits of 300 ms: about two a second
	"$WL/dwait" -V -n 6 -d 300 -g "$go" >"$BATS_TEST_TMPDIR/wl.json" &
	wp=$!
	start_tool dstate-lite -f --interval 0.5 --ring 20 -p "$wp"
	ids=$(proc_bpf_ids "$TOOL_PID")
	go "$go"
	wait "$wp"
	sleep 0.3
	[ ! -s "$TOOL_OUT" ]
	kill -USR1 "$TOOL_PID"
	for _ in $(seq 50); do
		grep -q '^# window ' "$TOOL_OUT" && break
		sleep 0.1
	done
	sleep 0.3
	kill -0 "$TOOL_PID"
	cat "$TOOL_OUT"
	# 2 s of work in windows of 0.5 s, numbered from 1
	n=$(grep -c '^# window ' "$TOOL_OUT")
	assert_between "windows" "$n" 4 8
	headers "$TOOL_OUT" | awk 'NR != $1 {exit 1}'
	# each window names its unit; the waits: "-" before the kernel frames, the waker after "--"
	[ "$(grep -c '^# countname us$' "$TOOL_OUT")" = "$n" ]
	grep -Eq '^dwait;-;entry_SYSCALL[^;]*;.*;kernel_clone;.*;--;.*;-;dwait [0-9]+$' "$TOOL_OUT"
	# the six 300 ms waits, spread over the windows: 1.8 s in all
	assert_between "D time (us)" "$(awk '/^dwait;/{s+=$NF} END{print s}' "$TOOL_OUT")" 1700000 2000000
	# more than one window holds some
	[ "$(awk '/^# window /{w=$3} /^dwait;/{seen[w]=1} END{print length(seen)}' "$TOOL_OUT")" -ge 3 ]
	stop_tool TERM
	[ "$TOOL_RC" = 0 ]
	assert_bpf_ids_gone "$ids"
	expect_fail 2 "--interval and --ring need -f" "$BIN/dstate-lite" --interval 1
	expect_fail 2 "mutually exclusive" "$BIN/dstate-lite" -f --interval 1 5
}
