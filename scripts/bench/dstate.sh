# SPDX-License-Identifier: GPL-2.0
# dstate-lite: start-up, peak RSS, kernel map memory, and the slowdown of
# two workloads under no tool, dstate-lite, offcputime-lite (all off-CPU
# time, and --state 2: D only, its nearest equivalent) and a bpftrace
# program keeping D-state stacks:
#   - a pipe ping-pong pinned to one CPU: two context switches per round
#     trip, none in D (the cost every switch of the host pays);
#   - a vfork loop: every vfork is one D episode (stack walk, map updates).
# The figure is the workload's CPU time (user + system, children
# included) per operation: the BPF programs run in the switching tasks'
# context, so they show there, and CPU time is much less disturbed than
# wall time by the other work of a shared machine. Rounds are interleaved;
# each figure is the median of ROUNDS runs.
. scripts/bench/lib.sh
N=${BENCH_ROUND_TRIPS:-200000}
V=${BENCH_VFORKS:-10000}
ROUNDS=${BENCH_ROUNDS:-3}
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
cat >"$D/d.bt" <<'BT'
tracepoint:sched:sched_switch {
	if (args->prev_state == 2) { @start[args->prev_pid] = nsecs; @stk[args->prev_pid] = kstack; }
	$ns = @start[args->next_pid];
	if ($ns) {
		@us[@stk[args->next_pid], args->next_comm] = sum((nsecs - $ns) / 1000);
		delete(@start[args->next_pid]); delete(@stk[args->next_pid]);
	}
}
BT

pp() { cpu_ns_per "$N" "$WL/pingpong" -n "$N" -c 1; }
vf() { cpu_ns_per "$V" "$WL/dwait" -V -n "$V" -d 0; }

OFF=$BIN/offcputime-lite
names=("no tool" "dstate-lite" "dstate-lite -m 1000")
cmds=("" "$BIN/dstate-lite" "$BIN/dstate-lite -m 1000")
if [ -x "$OFF" ]; then
	names+=("offcputime-lite" "offcputime-lite --state 2")
	cmds+=("$OFF" "$OFF --state 2")
fi
names+=("bpftrace D stacks" "floor (empty sched programs)")
cmds+=("bpftrace $D/d.bt" "$FLOOR sched")

for r in $(seq "$ROUNDS"); do
	for i in "${!cmds[@]}"; do
		# shellcheck disable=SC2086
		under pp ${cmds[$i]} >>"$D/pp.$i"
		# shellcheck disable=SC2086
		under vf ${cmds[$i]} >>"$D/vf.$i"
	done
done

resources dstate-lite "$BIN/dstate-lite"
"$BIN/dstate-lite" -m 1000 >/dev/null 2>&1 &
p=$!
sleep 1
mem_m=$(maps_memlock_bytes $p)
kill -INT $p; wait $p 2>/dev/null

printf "%-36s %12s\n" "kernel map memory with -m" "$((mem_m / 1024)) KiB"
b_pp=$(median <"$D/pp.0")
b_vf=$(median <"$D/vf.0")
printf "%-28s %12s %6s %12s %6s\n" "median of $ROUNDS" "ping-pong" "" "vfork" ""
printf "%-28s %12s %6s %12s %6s\n" "" "CPU ns/trip" "ratio" "CPU ns/vfork" "ratio"
for i in "${!cmds[@]}"; do
	a=$(median <"$D/pp.$i")
	v=$(median <"$D/vf.$i")
	printf "%-28s %12.0f %6s %12.0f %6s\n" "${names[$i]}" "$a" "$(ratio "$a" "$b_pp")" \
		"$v" "$(ratio "$v" "$b_vf")"
done
echo "($N ping-pong round trips, pinned to CPU 1; $V vforks)"
bt=$((${#cmds[@]} - 2)); fl=$((${#cmds[@]} - 1))
overhead dstate-lite pingpong-trip-cpu "$b_pp" "$(median <"$D/pp.1")" "$(median <"$D/pp.$fl")" \
	"$(median <"$D/pp.$bt")"
overhead dstate-lite vfork-cpu "$b_vf" "$(median <"$D/vf.1")" "$(median <"$D/vf.$fl")" \
	"$(median <"$D/vf.$bt")"
