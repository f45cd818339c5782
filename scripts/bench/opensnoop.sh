#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# opensnoop-lite and execsnoop-lite: start-up, peak RSS, kernel map
# memory; the slowdown of a tight open loop (snoopwl burst: openat+close)
# alone, under opensnoop-lite and under an equivalent bpftrace program;
# and the highest open rate traced with nothing lost.
cd "$(dirname "$0")/../.." || exit 1
. scripts/bench/lib.sh

N=${BENCH_OPENS:-200000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run_burst NWORKERS TRACER_READY_PATTERN TRACER...: NWORKERS snoopwl
# bursts of N opens each, started together once the tracer is ready.
# Prints "seconds rate lost" (rate: opens/s summed over workers; lost:
# the tool's loss record, or - when not known).
run_burst() {
	local nw=$1 pattern=$2
	shift 2
	local go=$tmp/go tp=
	rm -f "$go"
	mkfifo "$go"
	if [ $# -gt 0 ]; then
		: >"$tmp/tool.out"
		: >"$tmp/tool.err"
		"$@" >>"$tmp/tool.out" 2>>"$tmp/tool.err" &
		tp=$!
		while ! grep -q "$pattern" "$tmp/tool.err" "$tmp/tool.out" 2>/dev/null; do
			kill -0 $tp 2>/dev/null || { echo "tracer failed: $(cat "$tmp/tool.err")" >&2; return 1; }
			sleep 0.05
		done
	fi
	local pids=()
	for i in $(seq "$nw"); do
		"$WL/snoopwl" -g "$go" -d "$tmp" burst "$N" >"$tmp/wl.$i" &
		pids+=($!)
	done
	sleep 0.2
	echo go >"$go"
	wait "${pids[@]}"
	if [ -n "$tp" ]; then
		sleep 0.5
		kill -INT $tp
		wait $tp 2>/dev/null
	fi
	local lost=-
	if [ -n "$tp" ] && grep -q "Hit Ctrl-C" "$tmp/tool.err"; then
		lost=$(grep -o 'warning: [0-9]* events lost' "$tmp/tool.err" | awk '{print $2}')
		lost=${lost:-0}
	fi
	cat "$tmp"/wl.* | jq -rs --arg lost "$lost" \
		'"\(map(.seconds) | max * 1000 | floor / 1000) \(map(.rate) | add | floor) \($lost)"'
	rm -f "$tmp"/wl.*
}

# bpftrace doing what opensnoop-lite does: arguments at entry, one line at exit.
BT='tracepoint:syscalls:sys_enter_open,tracepoint:syscalls:sys_enter_openat,tracepoint:syscalls:sys_enter_openat2
{ @path[tid] = args->filename; }
tracepoint:syscalls:sys_exit_open,tracepoint:syscalls:sys_exit_openat,tracepoint:syscalls:sys_exit_openat2
/@path[tid]/ { printf("%d %s %d %s\n", pid, comm, args->ret, str(@path[tid])); delete(@path[tid]); }'

resources opensnoop-lite "$BIN/opensnoop-lite"
resources "opensnoop-lite -F" "$BIN/opensnoop-lite" -F
resources execsnoop-lite "$BIN/execsnoop-lite"
# The machine is shared and noisy: each row is the median of 3 runs.
median3() {
	local i
	for i in 1 2 3; do
		run_burst 1 "$@" || return 1
	done | sort -n -k1,1 | sed -n 2p
}
echo "tight open loop: $N x (openat + close), output to a file; median of 3"
printf "%-34s %9s %11s %8s %7s\n" "traced by" seconds "opens/s" ratio lost
read -r base rate _ < <(median3 "")
printf "%-34s %9s %11s %8s %7s\n" "nothing" "$base" "$rate" 1.00 -
row() {
	local name=$1 s r l
	shift
	read -r s r l < <(median3 "$@") || return
	printf "%-34s %9s %11s %8s %7s\n" "$name" "$s" "$r" "$(ratio "$s" "$base")" "$l"
	[ "$name" = "opensnoop-lite (text)" ] && lite=$s
}
lite=- s=-
row "opensnoop-lite (text)" "Hit Ctrl-C" "$BIN/opensnoop-lite"
row "opensnoop-lite -j" "Hit Ctrl-C" "$BIN/opensnoop-lite" -j
row "opensnoop-lite -j, kernel wake-ups" "Hit Ctrl-C" "$BIN/opensnoop-lite" -j --wakeup-bytes 0
if command -v bpftrace >/dev/null; then
	read -r s r _ < <(run_burst 1 "Attaching" bpftrace -e "$BT")	# slow: one run
	printf "%-34s %9s %11s %8s %7s\n" "bpftrace (same probes, printf)" "$s" "$r" "$(ratio "$s" "$base")" -
fi
ns() { [ "$1" = - ] && echo - || awk -v s="$1" -v n="$N" 'BEGIN{printf "%.0f", s * 1e9 / n}'; }
overhead opensnoop-lite open+close "$(ns "$base")" "$(ns "$lite")" - "$(ns "$s")"
echo
echo "highest open rate with nothing lost (default 2 MiB buffer, -j to a file)"
printf "%-34s %11s %7s\n" "workers x $N opens" "opens/s" lost
for nw in 1 2; do
	read -r s r l < <(run_burst "$nw" "Hit Ctrl-C" "$BIN/opensnoop-lite" -j)
	printf "%-34s %11s %7s\n" "$nw" "$r" "$l"
done
