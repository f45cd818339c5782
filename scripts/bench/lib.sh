# SPDX-License-Identifier: GPL-2.0
# Shared measurements for the benchmarks (sourced, not run).
BIN=${BENCH_BIN:-build/bin}	# BENCH_BIN: another build of the tools, to compare
WL=build/tests/workloads
FLOOR="build/tests/bench/floor build/tests/bench/floor.bpf.o"	# + sys or sched
# scripts/bench.sh collects one table from the rows the benchmarks add here
ROWS=${BENCH_ROWS:-/dev/null}

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

# cpu_ns_per OPS CMD...: CPU time (user + system, children included) of
# CMD per operation, ns. BPF programs on scheduler tracepoints run in the
# switching tasks' context, so they show there; CPU time is much less
# disturbed than wall time by the other work of a shared machine.
cpu_ns_per() {
	local n=$1 t
	shift
	t=$(mktemp)
	/usr/bin/time -f '%U %S' -o "$t" "$@" >/dev/null 2>&1
	awk -v n="$n" '{printf "%.0f\n", ($1 + $2) * 1e9 / n}' "$t"
	rm -f "$t"
}

# Median of numbers, one per line on stdin.
median() { sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }

# stop PID: SIGTERM, and SIGKILL if it has not ended 10 s later (bpftrace
# signalled while it was still attaching can wait for good).
stop() {
	kill -TERM "$1" 2>/dev/null
	for _ in $(seq 100); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

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
	for _ in $(seq 1200); do
		grep -qE "Hit Ctrl-C|Attaching" "$err" "$out" && break
		sleep 0.05
	done
	sleep 0.5
	r=$($wl)
	# SIGTERM: background jobs of a script ignore SIGINT
	stop $p
	rm -f "$err" "$out"
	echo "$r"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN{if (b > 0) printf "%.2f", a/b; else print "-"}'; }

# Wait until process $1 has written "Hit Ctrl-C" to file $2 (attached).
attached() {
	while ! grep -q "Hit Ctrl-C" "$2" 2>/dev/null; do
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.01
	done
}

# resources NAME CMD...: the table's resource columns for one tool: start-up
# (median of 7, exec to attached) and peak RSS (VmHWM), each also with
# BPFLITE_FORCE_LIBBPF=1 (the libbpf-skeleton path, where the tool has
# one; otherwise the same path twice); steady RSS one second after it
# attached, and the kernel memory of its maps.
resources() {
	local name=$1 su sul pk pkl st mem err p
	shift
	su=$(startup_ms 7 "$@")
	sul=$(BPFLITE_FORCE_LIBBPF=1 startup_ms 7 "$@")
	pk=$(peak_rss_kb 2 "$@")
	pkl=$(BPFLITE_FORCE_LIBBPF=1 peak_rss_kb 2 "$@")
	err=$(mktemp)
	"$@" >/dev/null 2>"$err" &
	p=$!
	attached $p "$err" && sleep 1
	st=$(awk '/^VmRSS/{print $2}' /proc/$p/status 2>/dev/null)
	mem=$(($(maps_memlock_bytes $p) / 1024))
	kill -TERM $p 2>/dev/null
	wait $p 2>/dev/null
	rm -f "$err"
	echo "res|$name|$su|$sul|$pk|$pkl|${st:--}|$mem" >>"$ROWS"
}

# overhead NAME WORKLOAD BASE TOOL FLOOR BPFTRACE: a table row of the cost
# per operation of WORKLOAD (ns alone; under the tool, the floor's empty
# programs on the same tracepoints, bpftrace's equivalent; "-" for none).
overhead() { local IFS='|'; echo "ovh|$*" >>"$ROWS"; }

# perprog NAME PROG NS_PER_RUN FLOOR_NS_PER_RUN: a per-program figure from
# the kernel's accounting (bpf_stats), for the table's notes.
perprog() { local IFS='|'; echo "prog|$*" >>"$ROWS"; }

# progstats PID: "name run_time_ns run_cnt" of each BPF program PID holds
# (needs kernel.bpf_stats_enabled=1).
progstats() {
	local ids
	ids=$(grep -h '^prog_id:' /proc/"$1"/fdinfo/* 2>/dev/null | awk '{print $2}' | sort -u | paste -sd,)
	[ -n "$ids" ] || return 0
	bpftool prog show --json | jq -r --argjson ids "[$ids]" \
		'.[] | select(.id as $i | $ids | index($i)) | "\(.name) \(.run_time_ns // 0) \(.run_cnt // 0)"'
}

# under_stats OUT WORKLOAD CMD...: as under, and the ns per run of each of
# CMD's BPF programs during WORKLOAD into file OUT ("name ns runs").
under_stats() {
	local out=$1 wl=$2 err p r a
	shift 2
	err=$(mktemp)
	a=$(mktemp)
	"$@" >/dev/null 2>"$err" &
	p=$!
	attached $p "$err" && sleep 0.3
	progstats $p >"$a"
	r=$($wl)
	progstats $p | join <(sort "$a") <(sort) |
		awk '{d = $5 - $3; if (d > 0) printf "%s %.0f %d\n", $1, ($4 - $2) / d, d}' >"$out"
	kill -TERM $p 2>/dev/null
	wait $p 2>/dev/null
	rm -f "$err" "$a"
	echo "$r"
}

# bpftrace and perf need tracefs; a fresh machine may not have it mounted.
ensure_tracefs() {
	[ -d /sys/kernel/tracing/events ] || mount -t tracefs tracefs /sys/kernel/tracing
}
ensure_tracefs
