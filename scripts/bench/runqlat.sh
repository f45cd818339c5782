# SPDX-License-Identifier: GPL-2.0
# runqlat-lite: the slowdown of a pipe ping-pong (two context switches and
# two wake-ups per round trip, both processes pinned to one CPU) under no
# tool, the floor (empty programs on sched_switch, sched_wakeup and
# sched_wakeup_new), runqlat-lite and bpftrace's runqlat, in CPU time per
# round trip (lib.sh: cpu_ns_per); and the kernel's ns per run of each
# program. Rounds interleaved, medians of ROUNDS.
. scripts/bench/lib.sh
N=${BENCH_ROUND_TRIPS:-500000}
ROUNDS=${BENCH_ROUNDS:-3}
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
cat >"$D/rq.bt" <<'BT'
tracepoint:sched:sched_wakeup, tracepoint:sched:sched_wakeup_new { @qtime[args->pid] = nsecs; }
tracepoint:sched:sched_switch {
	if (args->prev_state == 0) { @qtime[args->prev_pid] = nsecs; }
	$ns = @qtime[args->next_pid];
	if ($ns) { @usecs = hist((nsecs - $ns) / 1000); }
	delete(@qtime[args->next_pid]);
}
BT

pp() { cpu_ns_per "$N" "$WL/pingpong" -n "$N" -c 1; }

resources runqlat-lite "$BIN/runqlat-lite"
for _ in $(seq "$ROUNDS"); do
	pp >>"$D/base"
	under_stats "$D/floor.s" pp $FLOOR sched >>"$D/floor"
	under_stats "$D/lite.s" pp "$BIN/runqlat-lite" >>"$D/lite"
	under pp bpftrace "$D/rq.bt" >>"$D/bt"
done
b=$(median <"$D/base"); f=$(median <"$D/floor"); l=$(median <"$D/lite"); t=$(median <"$D/bt")
overhead runqlat-lite pingpong-trip-cpu "$b" "$l" "$f" "$t"
for p in sched_switch sched_wakeup; do
	perprog runqlat-lite "$p" "$(awk -v p="$p" '$1 ~ "^" p "_(btf|raw)$" {print $2}' "$D/lite.s")" \
		"$(awk -v p="$p" '$1 ~ "^" p "_(btf|raw)$" {print $2}' "$D/floor.s")"
done
# per event: all runs of the tool's programs over all their time
ev=$(awk '{t += $2 * $3; n += $3} END {if (n) printf "%.0f", t / n}' "$D/lite.s")
evf=$(awk '{t += $2 * $3; n += $3} END {if (n) printf "%.0f", t / n}' "$D/floor.s")
perprog runqlat-lite "all (per event)" "$ev" "$evf"

printf "%-44s %12s %8s\n" "ping-pong ($N round trips, CPU time)" "ns/trip" "ratio"
printf "%-44s %12.0f %8s\n" "  no tool" "$b" "1.00"
printf "%-44s %12.0f %8s\n" "  floor (empty programs)" "$f" "$(ratio "$f" "$b")"
printf "%-44s %12.0f %8s\n" "  runqlat-lite" "$l" "$(ratio "$l" "$b")"
printf "%-44s %12.0f %8s\n" "  bpftrace runqlat.bt" "$t" "$(ratio "$t" "$b")"
echo "  ns per program run, last round: runqlat-lite / floor"
join "$D/lite.s" "$D/floor.s" 2>/dev/null | awk '{printf "    %-28s %6s %6s\n", $1, $2, $4}'
