#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: run every scripts/bench/<tool>.sh (or the ones named), print
# their detailed tables, then one table of every tool: start-up, peak and
# steady RSS, kernel map memory, and the cost per operation of a workload
# under the tool, under empty programs on the same tracepoints (the
# floor) and under bpftrace's equivalent. Benchmarks measure; they never
# fail a build.
#   scripts/bench.sh [tool...]
cd "$(dirname "$0")/.." || exit 1
[ "$(id -u)" = 0 ] || { echo "bench: needs root" >&2; exit 1; }
if [ $# -gt 0 ]; then
	set -- $(for t in "$@"; do echo "scripts/bench/$t.sh"; done)
else
	set -- scripts/bench/*.sh
fi
BENCH_ROWS=$(mktemp)
export BENCH_ROWS
# the kernel's per-program accounting (run_time_ns, run_cnt), as it was after
stats=$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null)
sysctl -qw kernel.bpf_stats_enabled=1 2>/dev/null
trap 'rm -f "$BENCH_ROWS"; [ -n "$stats" ] && sysctl -qw kernel.bpf_stats_enabled="$stats"' EXIT
for b in "$@"; do
	[ -f "$b" ] || continue
	[ "$(basename "$b")" = lib.sh ] && continue	# shared functions, not a benchmark
	echo "== $(basename "$b" .sh)"
	bash "$b"
	echo
done

echo "== all tools"
echo "start-up: exec to attached, median of 7; peak: VmHWM; steady: VmRSS 1 s after"
echo "attaching; (libbpf): BPFLITE_FORCE_LIBBPF=1; maps: kernel memory of its maps"
printf "%-16s %8s %9s %9s %9s %8s %8s\n" tool "start ms" "(libbpf)" "peak KiB" "(libbpf)" "steady" "maps KiB"
awk -F'|' '$1 == "res" {printf "%-16s %8s %9s %9s %9s %8s %8s\n", $2, $3, $4, $5, $6, $7, $8}' "$BENCH_ROWS"
echo
echo "added ns per operation of a workload (its time under it less its time alone)"
echo "and the ratio to the floor's (empty programs on the same tracepoints)"
printf "%-20s %-22s %7s %8s %6s %8s %6s %8s\n" tool workload "alone" "tool +" "x flr" "floor +" "bpftr +" "x flr"
awk -F'|' '
function add(v) { return v == "-" ? "-" : sprintf("%.0f", v - base) }
function rat(v) { return (v == "-" || fl == "-" || fl - base <= 0) ? "-" : sprintf("%.2f", (v - base) / (fl - base)) }
$1 == "ovh" {
	base = $4; fl = $6
	printf "%-20s %-22s %7.0f %8s %6s %8s %6s %8s\n", $2, $3, base, add($5), rat($5), add($6), add($7), rat($7)
}' "$BENCH_ROWS"
if grep -q '^prog|' "$BENCH_ROWS"; then
	echo
	echo "ns per program run (bpf_stats, during the workload; the floor's empty program beside it)"
	printf "%-20s %-24s %8s %8s\n" tool program "ns/run" "floor"
	awk -F'|' '$1 == "prog" {printf "%-20s %-24s %8s %8s\n", $2, $3, $4, $5}' "$BENCH_ROWS"
fi
