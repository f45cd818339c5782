# SPDX-License-Identifier: GPL-2.0
# strace-lite: nanoseconds per call of a getppid loop and of a 1-byte
# read loop (tests/workloads/sysload times its own loops), as ratios to the
# plain loop measured in the same run, under: strace-lite -c, strace-lite
# (trace mode, -o /dev/null), strace -f -c, strace -f -o /dev/null,
# perf trace -s, and a bpftrace program counting raw_syscalls by id.
# Rounds are interleaved and each figure is the median of ROUNDS runs.
# Also start-up (median of 7), peak RSS and kernel map memory.
# SIGTERM stops the tools: a background job of a script ignores SIGINT.
. scripts/bench/lib.sh
N=${BENCH_CALLS:-300000}	# calls per loop (ptrace tracers: N/10)
ROUNDS=${BENCH_ROUNDS:-3}
SL=$WL/sysload
D=$(mktemp -d)
trap 'rm -rf "$D"; [ -n "$SP" ] && kill $SP 2>/dev/null' EXIT

# loop N CMD...: run sysload with N calls per loop under CMD; prints
# "getppid_ns read_ns" from its JSON line.
loop() {
	local n=$1
	shift
	"$@" "$SL" -n "$n" -r "$n" -w 0 -F 0 2>/dev/null | grep '^{' |
		jq -r '"\(.getppid_ns_per_call) \(.read_ns_per_call)"'
}

# bpftrace counting raw_syscalls by id, system-wide, around a plain loop.
bt_loop() {
	local n=$1 err=$D/bt.err p
	bpftrace -e 'tracepoint:raw_syscalls:sys_enter { @[args->id] = count(); }' \
		>/dev/null 2>"$err" &
	p=$!
	for _ in $(seq 600); do
		grep -q "Attaching" "$err" 2>/dev/null && break
		kill -0 $p 2>/dev/null || break
		sleep 0.05
	done
	sleep 0.3
	loop "$n" env
	kill -INT $p 2>/dev/null
	wait $p 2>/dev/null
}

configs="plain lite_c lite_trace strace_c strace_trace perf_trace bpftrace"
run_config() {
	local small=$((N / 10))
	case $1 in
	plain) loop "$N" env ;;
	lite_c) loop "$N" "$BIN/strace-lite" -c -o /dev/null ;;
	lite_trace) loop "$N" "$BIN/strace-lite" -o /dev/null ;;
	strace_c) loop "$small" strace -f -c -o /dev/null ;;
	strace_trace) loop "$small" strace -f -o /dev/null ;;
	perf_trace) loop "$small" perf trace -s -o /dev/null -- ;;
	bpftrace) bt_loop "$N" ;;
	esac
}

for r in $(seq "$ROUNDS"); do
	for c in $configs; do
		run_config "$c" >>"$D/$c"
	done
done

median() {	# file column
	awk -v c="$2" '{print $c}' "$1" | sort -n | awk '{a[NR]=$1} END{if (NR) print a[int((NR+1)/2)]; else print "nan"}'
}

sleep 600 &
SP=$!
# Start-up: exec until "Hit Ctrl-C" (attached; no -o, which has no banner). A fresh stderr file per run:
# a reused one can show the previous run's line before the new tool has
# its signal handlers, and a background job of a script ignores SIGINT.
startup=$(for i in $(seq 7); do
	e=$(mktemp)
	t0=$(date +%s%N)
	"$BIN/strace-lite" -c -p $SP >/dev/null 2>"$e" &
	p=$!
	until grep -q "Hit Ctrl-C" "$e"; do kill -0 $p 2>/dev/null || break; sleep 0.001; done
	t1=$(date +%s%N)
	kill -TERM $p
	wait $p 2>/dev/null
	rm -f "$e"
	echo $(((t1 - t0) / 1000000))
done | sort -n | awk '{a[NR]=$1} END{print a[4]}')
rss=$(peak_rss_kb 2 "$BIN/strace-lite" -o /dev/null -p $SP)
"$BIN/strace-lite" -o /dev/null -p $SP >/dev/null 2>&1 &
p=$!
sleep 1
mem=$(maps_memlock_bytes $p)
kill -TERM $p
wait $p 2>/dev/null
"$BIN/strace-lite" -c -o /dev/null -p $SP >/dev/null 2>&1 &
p=$!
sleep 1
memc=$(maps_memlock_bytes $p)
kill -TERM $p
wait $p 2>/dev/null

bg=$(median "$D/plain" 1)
br=$(median "$D/plain" 2)
printf "%-40s %12s\n" "strace-lite start-up (median of 7)" "${startup} ms"
printf "%-40s %12s\n" "peak RSS (trace mode)" "${rss} KiB"
printf "%-40s %12s\n" "kernel map memory (trace / -c)" "$((mem / 1024)) / $((memc / 1024)) KiB"
printf "%-32s %11s %7s %11s %7s\n" "ns per call, median of $ROUNDS" "getppid" "ratio" "read 1B" "ratio"
for c in $configs; do
	g=$(median "$D/$c" 1)
	rd=$(median "$D/$c" 2)
	case $c in
	plain) name="plain loop ($N calls)" ;;
	lite_c) name="strace-lite -c" ;;
	lite_trace) name="strace-lite -o /dev/null" ;;
	strace_c) name="strace -f -c ($((N / 10)) calls)" ;;
	strace_trace) name="strace -f -o /dev/null" ;;
	perf_trace) name="perf trace -s" ;;
	bpftrace) name="bpftrace count raw_syscalls" ;;
	esac
	printf "%-32s %11.0f %7s %11.0f %7s\n" "  $name" "$g" "$(ratio "$g" "$bg")" "$rd" "$(ratio "$rd" "$br")"
done
