# SPDX-License-Identifier: GPL-2.0
# Shared measurements for the benchmarks (sourced, not run).
BIN=build/bin
WL=build/tests/workloads

# Milliseconds from exec until the tool prints "Hit Ctrl-C" (attached):
# median of N runs. startup_ms N TOOL ARGS...
startup_ms() {
	local n=$1 i t0 t1 err
	shift
	for i in $(seq "$n"); do
		# a fresh file each run: never see the previous run's banner
		err=$(mktemp)
		t0=$(date +%s%N)
		"$@" >/dev/null 2>"$err" &
		local p=$!
		while ! grep -q "Hit Ctrl-C" "$err" 2>/dev/null; do
			kill -0 $p 2>/dev/null || break
			sleep 0.001
		done
		t1=$(date +%s%N)
		# SIGTERM: background jobs of a script ignore SIGINT
		kill -TERM $p 2>/dev/null
		wait $p 2>/dev/null
		rm -f "$err"
		echo $(((t1 - t0) / 1000000))
	done | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'
}

# Peak RSS (KiB) of a tool run for S seconds: peak_rss_kb S TOOL ARGS...
peak_rss_kb() {
	local s=$1
	shift
	local out
	out=$(mktemp)
	/usr/bin/time -f '%M' -o "$out" timeout -s INT "$s" "$@" >/dev/null 2>&1
	tail -1 "$out"
	rm -f "$out"
}

# Kernel memory (bytes) of the BPF maps a process holds open: the sum of
# "memlock:" over its map fds (/proc/PID/fdinfo).
maps_memlock_bytes() {
	local pid=$1 f total=0 m
	for f in /proc/"$pid"/fdinfo/*; do
		grep -q '^map_type:' "$f" 2>/dev/null || continue
		m=$(awk '/^memlock:/{print $2}' "$f")
		total=$((total + ${m:-0}))
	done
	echo "$total"
}

# Seconds (wall) a command takes: seconds CMD...
seconds() {
	local t0 t1
	t0=$(date +%s%N)
	"$@" >/dev/null 2>&1
	t1=$(date +%s%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", (b-a)/1e9}'
}

# Median of numbers, one per line on stdin.
median() { sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }

# under WORKLOAD [TOOL...]: start TOOL (ours, or bpftrace), wait until it
# is attached, run the shell function WORKLOAD and print what it prints,
# stop TOOL. Without TOOL, just run WORKLOAD (the no-tool baseline).
under() {
	local wl=$1 err out p r
	shift
	[ $# -eq 0 ] && { $wl; return; }
	err=$(mktemp)
	out=$(mktemp)
	"$@" >"$out" 2>"$err" &
	p=$!
	for _ in $(seq 300); do
		grep -qE "Hit Ctrl-C|Attaching" "$err" "$out" && break
		sleep 0.05
	done
	sleep 0.5
	r=$($wl)
	# SIGTERM: background jobs of a script ignore SIGINT
	kill -TERM $p
	wait $p 2>/dev/null
	rm -f "$err" "$out"
	echo "$r"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", a/b}'; }

# bpftrace and perf need tracefs; a fresh machine may not have it mounted.
ensure_tracefs() {
	[ -d /sys/kernel/tracing/events ] || mount -t tracefs tracefs /sys/kernel/tracing
}
ensure_tracefs
