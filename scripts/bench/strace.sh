# SPDX-License-Identifier: GPL-2.0
# strace-lite: nanoseconds per call of a getppid loop and of a 1-byte
# read loop (tests/workloads/sysload times its own loops), as ratios to the
# plain loop measured in the same run, under: the floor (empty programs on
# raw_syscalls sys_enter and sys_exit), strace-lite -c, bpftrace's -c (time,
# calls and errors per syscall of the process), strace-lite (trace mode,
# -o /dev/null), bpftrace printing each call's number, arguments and
# result, strace -f -c, strace -f -o /dev/null and perf trace -s. Rounds
# are interleaved and each figure is the median of ROUNDS runs.
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

# bpftrace ARGS... PROGRAM: bpftrace tracing a sysload loop it starts
# (-c), on raw_syscalls tracepoints, filtered by that process.
bt_loop() {
	local n=$1 prog=$2
	bpftrace -o /dev/null -e "$prog" -c "$SL -n $n -r $n -w 0 -F 0" 2>/dev/null | grep '^{' |
		jq -r '"\(.getppid_ns_per_call) \(.read_ns_per_call)"'
}
BT_C='tracepoint:raw_syscalls:sys_enter /pid == cpid/ { @s[tid] = nsecs; }
tracepoint:raw_syscalls:sys_exit /@s[tid]/ {
	@ns[args->id] = sum(nsecs - @s[tid]); @calls[args->id] = count();
	if (args->ret < 0) { @errors[args->id] = count(); }
	delete(@s[tid]);
}'
BT_TRACE='tracepoint:raw_syscalls:sys_enter /pid == cpid/ {
	printf("%d %d(%lx, %lx, %lx, %lx, %lx, %lx)\n", tid, args->id, args->args[0], args->args[1],
		args->args[2], args->args[3], args->args[4], args->args[5]);
}
tracepoint:raw_syscalls:sys_exit /pid == cpid/ { printf("%d = %ld\n", tid, args->ret); }'

# The floor: empty programs on the same tracepoints, around a plain loop.
floor_loop() {
	local n=$1 err=$D/floor.err p
	$FLOOR sys >/dev/null 2>"$err" &
	p=$!
	attached $p "$err"
	loop "$n" env
	kill -TERM $p 2>/dev/null
	wait $p 2>/dev/null
}

configs="plain floor lite_c bt_c lite_trace bt_trace strace_c strace_trace perf_trace"
run_config() {
	local small=$((N / 10))
	case $1 in
	plain) loop "$N" env ;;
	floor) floor_loop "$N" ;;
	lite_c) loop "$N" "$BIN/strace-lite" -c -o /dev/null ;;
	bt_c) bt_loop "$N" "$BT_C" ;;
	lite_trace) loop "$N" "$BIN/strace-lite" -o /dev/null ;;
	bt_trace) bt_loop "$N" "$BT_TRACE" ;;
	strace_c) loop "$small" strace -f -c -o /dev/null ;;
	strace_trace) loop "$small" strace -f -o /dev/null ;;
	perf_trace) loop "$small" perf trace -s -o /dev/null -- ;;
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
# start-up: -p (the banner; -o has none), of a process that makes no calls
resources strace-lite "$BIN/strace-lite" -c -p $SP
"$BIN/strace-lite" -o /dev/null -p $SP >/dev/null 2>&1 &
p=$!
sleep 1
mem=$(maps_memlock_bytes $p)
kill -TERM $p
wait $p 2>/dev/null

bg=$(median "$D/plain" 1)
br=$(median "$D/plain" 2)
printf "%-40s %12s\n" "kernel map memory (trace mode)" "$((mem / 1024)) KiB"
printf "%-32s %11s %7s %11s %7s\n" "ns per call, median of $ROUNDS" "getppid" "ratio" "read 1B" "ratio"
for c in $configs; do
	g=$(median "$D/$c" 1)
	rd=$(median "$D/$c" 2)
	case $c in
	plain) name="plain loop ($N calls)" ;;
	floor) name="floor (empty programs)" ;;
	bt_c) name="bpftrace -c equivalent" ;;
	bt_trace) name="bpftrace printing calls" ;;
	lite_c) name="strace-lite -c" ;;
	lite_trace) name="strace-lite -o /dev/null" ;;
	strace_c) name="strace -f -c ($((N / 10)) calls)" ;;
	strace_trace) name="strace -f -o /dev/null" ;;
	perf_trace) name="perf trace -s" ;;
	esac
	printf "%-32s %11.0f %7s %11.0f %7s\n" "  $name" "$g" "$(ratio "$g" "$bg")" "$rd" "$(ratio "$rd" "$br")"
done
for k in 1 2; do
	w=getppid; [ $k = 2 ] && w=read-1B
	f=$(median "$D/floor" $k)
	overhead "strace-lite -c" "$w" "$(median "$D/plain" $k)" "$(median "$D/lite_c" $k)" "$f" "$(median "$D/bt_c" $k)"
	overhead "strace-lite" "$w" "$(median "$D/plain" $k)" "$(median "$D/lite_trace" $k)" "$f" "$(median "$D/bt_trace" $k)"
done
