# SPDX-License-Identifier: GPL-2.0
# offcputime-lite:
#   - the table's resources (lib.sh: resources);
#   - the report of 10,000 distinct stacks (tests/workloads/stacks10k):
#     peak RSS while reporting (VmHWM reset by clear_refs once attached:
#     the start-up peak is libbpf parsing the kernel's BTF, the same for
#     every tool) and the time from Ctrl-C to exit;
#   - the slowdown of a pipe ping-pong pinned to one CPU (two context
#     switches per round trip, each one a stack walk of both stacks) under
#     no tool, offcputime-lite (whole system) and the equivalent bpftrace
#     program, and under the floor (an empty sched_switch program). The
#     figure is the workload's CPU time (user + system) per
#     round trip: the BPF programs run in the switching tasks' context, and
#     CPU time is less disturbed than wall time on a shared machine. Rounds
#     are interleaved; each figure is the median of ROUNDS runs. The
#     kernel's ns per run of sched_switch (bpf_stats) beside it; the
#     same under offcputime-lite --unwind dwarf (user stacks by tables:
#     the workload has frame pointers, so both walk the same frames).
. scripts/bench/lib.sh
N=${BENCH_ROUND_TRIPS:-200000}
ROUNDS=${BENCH_ROUNDS:-3}
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
cat >"$D/offcpu.bt" <<'BT'
tracepoint:sched:sched_switch {
	@start[args->prev_pid] = nsecs;
	@kst[args->prev_pid] = kstack;
	@ust[args->prev_pid] = ustack;
	$ns = @start[args->next_pid];
	if ($ns) {
		@us[@kst[args->next_pid], @ust[args->next_pid], args->next_comm] = sum((nsecs - $ns) / 1000);
		delete(@start[args->next_pid]);
	}
}
BT

pp() { cpu_ns_per "$N" "$WL/pingpong" -n "$N" -c 1; }

resources offcputime-lite "$BIN/offcputime-lite"

# 10,000 distinct stacks: a stack map large enough that few collide
mkfifo "$D/go"
"$WL/stacks10k" -n 10000 -g "$D/go" >/dev/null &
w=$!
rm -f "$D/err"
"$BIN/offcputime-lite" -f -p $w --stack-storage-size 131072 --perf-max-stack-depth 24 \
	>"$D/folded" 2>"$D/err" &
p=$!
while ! grep -q "Hit Ctrl-C" "$D/err" 2>/dev/null; do sleep 0.02; done
echo 5 >/proc/$p/clear_refs	# peak RSS from here on
echo go >"$D/go"
wait $w
sleep 0.2
t0=$(date +%s%N)
kill -INT $p
hwm=0
while kill -0 $p 2>/dev/null; do
	v=$(awk '/VmHWM/{print $2}' /proc/$p/status 2>/dev/null)
	[ -n "$v" ] && hwm=$v
	sleep 0.002
done
t1=$(date +%s%N)
wait $p 2>/dev/null
stacks=$(wc -l <"$D/folded")
report_ms=$(((t1 - t0) / 1000000))

: >"$D/base"; : >"$D/lite"; : >"$D/dw"; : >"$D/bt"; : >"$D/floor"
for _ in $(seq "$ROUNDS"); do
	pp >>"$D/base"
	under_stats "$D/floor.s" pp $FLOOR switch >>"$D/floor"
	under_stats "$D/lite.s" pp "$BIN/offcputime-lite" -f >>"$D/lite"
	under_stats "$D/dw.s" pp "$BIN/offcputime-lite" -f --unwind dwarf >>"$D/dw"
	under pp bpftrace "$D/offcpu.bt" >>"$D/bt"
done
b=$(median <"$D/base"); l=$(median <"$D/lite"); w=$(median <"$D/dw")
t=$(median <"$D/bt"); f=$(median <"$D/floor")
overhead offcputime-lite pingpong-trip-cpu "$b" "$l" "$f" "$t"
overhead "offcputime --unwind" pingpong-trip-cpu "$b" "$w" "$f" "$t"
perprog offcputime-lite sched_switch "$(awk '$1 ~ /^sched_switch_/ {print $2}' "$D/lite.s")" \
	"$(awk '$1 ~ /^sched_switch_/ {print $2}' "$D/floor.s")"
perprog "offcputime --unwind" "sched_switch (tables)" "$(awk '$1 ~ /^sched_switch_/ {print $2}' "$D/dw.s")" \
	"$(awk '$1 ~ /^sched_switch_/ {print $2}' "$D/floor.s")"

printf "%-44s %12s\n" "report of $stacks distinct stacks: time" "${report_ms} ms"
printf "%-44s %12s\n" "  peak RSS while tracing and reporting" "${hwm} KiB"
printf "%-44s %12s %8s\n" "ping-pong ($N round trips, CPU time)" "ns/trip" "ratio"
printf "%-44s %12.0f %8s\n" "  no tool" "$b" "1.00"
printf "%-44s %12.0f %8s\n" "  floor (empty programs)" "$f" "$(ratio "$f" "$b")"
printf "%-44s %12.0f %8s\n" "  offcputime-lite (whole system)" "$l" "$(ratio "$l" "$b")"
printf "%-44s %12.0f %8s\n" "  offcputime-lite --unwind dwarf (tables)" "$w" "$(ratio "$w" "$b")"
printf "%-44s %12.0f %8s\n" "  bpftrace (same maps and stacks)" "$t" "$(ratio "$t" "$b")"
