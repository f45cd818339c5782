# SPDX-License-Identifier: GPL-2.0
# profile-lite: the cost of sampling, on a CPU-bound loop.
#   The loop (tests/workloads/cpuhog: one thread pinned to CPU 1 that
#   reads the clock, SECS seconds) counts its iterations; under a sampler
#   every interrupt and stack walk is time the loop does not run. The
#   figure is the loop's iterations per second, as a ratio to no tool
#   (1.00 = no cost, 0.99 = 1 % slower), under:
#     profile-lite -F HZ (whole system, user + kernel stacks, in-kernel counts),
#     perf record -F HZ -a -g (samples written to a file, read later),
#     bpftrace profile:hz:HZ { @[kstack, ustack, comm] = count(); },
#   at 49 and 999 Hz. Rounds are interleaved; each figure is the median
#   of ROUNDS runs (BENCH_ROUNDS, default 3; BENCH_HZ picks the rates).
#   Also start-up to attached and kernel map memory.
. scripts/bench/lib.sh
SECS=${BENCH_SECS:-3}
ROUNDS=${BENCH_ROUNDS:-3}
HZS=${BENCH_HZ:-49 999}
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT

loop_rate() {	# iterations per second of one pinned spinning thread
	"$WL/cpuhog" -n 1 -s "$SECS" -c 1 | jq -r --argjson s "$SECS" '.threads[0].loops / $s | floor'
}

# A reference sampler (perf, bpftrace): started, waited for until its
# perf events are open (its fds list perf_event: neither says so on a
# pipe in time), then stopped by SIGINT; one that lingers over its report
# is killed (its report is not what is measured).
under_ref() {
	local wl=$1 p r
	shift
	"$@" >/dev/null 2>&1 &
	p=$!
	for _ in $(seq 200); do
		ls -l /proc/$p/fd 2>/dev/null | grep -q perf_event && break
		sleep 0.05
	done
	sleep 0.5
	r=$($wl)
	kill -INT $p 2>/dev/null
	for _ in $(seq 30); do kill -0 $p 2>/dev/null || break; sleep 0.1; done
	kill -KILL $p 2>/dev/null
	wait $p 2>/dev/null
	rm -f "$D/perf.data"
	echo "$r"
}

startup=$(startup_ms 7 "$BIN/profile-lite")
rm -f "$D/err"
"$BIN/profile-lite" >/dev/null 2>"$D/err" &
p=$!
while ! grep -q "Hit Ctrl-C" "$D/err" 2>/dev/null; do sleep 0.02; done
mem=$(($(maps_memlock_bytes $p) / 1024))
idle_rss=$(awk '/VmRSS/{print $2}' /proc/$p/status)
kill -INT $p; wait $p 2>/dev/null

for hz in $HZS; do
	: >"$D/base.$hz"; : >"$D/lite.$hz"; : >"$D/perf.$hz"; : >"$D/bt.$hz"
	for _ in $(seq "$ROUNDS"); do
		loop_rate >>"$D/base.$hz"
		under loop_rate "$BIN/profile-lite" -F "$hz" >>"$D/lite.$hz"
		under_ref loop_rate perf record -q -o "$D/perf.data" -F "$hz" -a -g >>"$D/perf.$hz"
		under_ref loop_rate bpftrace -e "profile:hz:$hz { @[kstack, ustack, comm] = count(); }" >>"$D/bt.$hz"
	done
done

printf "%-44s %12s\n" "profile-lite start-up (median of 7)" "${startup} ms"
printf "%-44s %12s\n" "RSS once attached" "${idle_rss} KiB"
printf "%-44s %12s\n" "kernel map memory (defaults)" "${mem} KiB"
for hz in $HZS; do
	b=$(median <"$D/base.$hz"); l=$(median <"$D/lite.$hz")
	f=$(median <"$D/perf.$hz"); t=$(median <"$D/bt.$hz")
	printf "%-44s %12s %8s\n" "CPU-bound loop at $hz Hz (${SECS} s, pinned)" "loops/s" "ratio"
	printf "%-44s %12s %8s\n" "  no tool" "$b" "1.00"
	printf "%-44s %12s %8s\n" "  profile-lite -F $hz (whole system)" "$l" "$(ratio "$l" "$b")"
	printf "%-44s %12s %8s\n" "  perf record -F $hz -a -g" "$f" "$(ratio "$f" "$b")"
	printf "%-44s %12s %8s\n" "  bpftrace profile:hz:$hz" "$t" "$(ratio "$t" "$b")"
done
