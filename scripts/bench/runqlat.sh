# SPDX-License-Identifier: GPL-2.0
# runqlat-lite: start-up, peak RSS, kernel map memory, and the slowdown of
# a pipe ping-pong (two context switches per round trip, both processes
# pinned to one CPU) under no tool, runqlat-lite and bpftrace's runqlat.
. scripts/bench/lib.sh
N=${BENCH_ROUND_TRIPS:-1000000}
BT=$(mktemp --suffix=.bt)
cat >"$BT" <<'BT'
tracepoint:sched:sched_wakeup, tracepoint:sched:sched_wakeup_new { @qtime[args->pid] = nsecs; }
tracepoint:sched:sched_switch {
	if (args->prev_state == 0) { @qtime[args->prev_pid] = nsecs; }
	$ns = @qtime[args->next_pid];
	if ($ns) { @usecs = hist((nsecs - $ns) / 1000); }
	delete(@qtime[args->next_pid]);
}
BT

pp() { "$WL/pingpong" -n "$N" -c 1 | jq .ns_per_round_trip; }

startup=$(startup_ms 7 "$BIN/runqlat-lite")
rss=$(peak_rss_kb 3 "$BIN/runqlat-lite")
"$BIN/runqlat-lite" >/dev/null 2>&1 &
p=$!
sleep 1
mem=$(maps_memlock_bytes $p)
kill -TERM $p; wait $p 2>/dev/null

base=$(pp)
lite=$(under pp "$BIN/runqlat-lite")
bt=$(under pp bpftrace "$BT")
base2=$(pp)
rm -f "$BT"
b=$(awk -v a="$base" -v b="$base2" 'BEGIN{print (a+b)/2}')

printf "%-34s %12s\n" "runqlat-lite start-up (median of 7)" "${startup} ms"
printf "%-34s %12s\n" "peak RSS" "$((rss)) KiB"
printf "%-34s %12s\n" "kernel map memory" "$((mem / 1024)) KiB"
printf "%-34s %12s %8s\n" "ping-pong ($N round trips)" "ns/trip" "ratio"
printf "%-34s %12.0f %8s\n" "  no tool" "$b" "1.00"
printf "%-34s %12.0f %8s\n" "  runqlat-lite" "$lite" "$(ratio "$lite" "$b")"
printf "%-34s %12.0f %8s\n" "  bpftrace runqlat.bt" "$bt" "$(ratio "$bt" "$b")"
