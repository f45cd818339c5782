# SPDX-License-Identifier: GPL-2.0
# Python frames (--python) against native stacks alone: BPF ns per run of
# profile-lite's sampling program (-U -F 999) on a python3.11 process
# burning CPU, and of offcputime-lite's sched_switch on one sleeping 1 ms
# at a time, each with and without --python, by frame pointers and by
# tables (the kernel's accounting, bpf_stats); the stacks' depth is the
# scripts' own: a few Python frames over the interpreter's C frames.
. scripts/bench/lib.sh
SECS=${BENCH_SECS:-3}
D=$(mktemp -d)
BURN= NAP=
trap 'rm -rf "$D"; kill $BURN $NAP 2>/dev/null' EXIT
# Debian's own (libpython linked in, stripped), not whatever python3.11 PATH finds first
PY=${BENCH_PYTHON:-/usr/bin/python3.11}
[ -x "$PY" ] || { echo "$PY not installed: no figures"; exit 0; }

# switches PID: the voluntary and involuntary context switches of PID's thread
switches() { awk '/ctxt_switches/ { n += $2 } END { print n + 0 }' /proc/"$1"/status; }

# prog_ns PROG PID CMD...: "ns-per-run runs ns-per-switch" of CMD -p
# PID's BPF programs named PROG* over SECS seconds: per run (other CPUs'
# and tasks' runs, filtered out early, included), and the programs' time
# over PID's own switches (each one is two runs: out and in)
prog_ns() {
	local prog=$1 pid=$2 p a b s0 s1
	shift 2
	"$@" -p "$pid" >/dev/null 2>"$D/err" &
	p=$!
	attached $p "$D/err" && sleep 0.5
	a=$(progstats $p | awk -v n="$prog" 'index($1, n) == 1 { t += $2; c += $3 } END { print t + 0, c + 0 }')
	s0=$(switches "$pid")
	sleep "$SECS"
	b=$(progstats $p | awk -v n="$prog" 'index($1, n) == 1 { t += $2; c += $3 } END { print t + 0, c + 0 }')
	s1=$(switches "$pid")
	kill -INT $p
	wait $p 2>/dev/null
	echo "$a $b" | awk -v s=$((s1 - s0)) '{ d = $4 - $2; if (d > 0) printf "%.0f %d %.0f\n", ($3 - $1) / d, d, (s > 0 ? ($3 - $1) / s : 0); else print "- 0 -" }'
}

"$PY" -c '
def spin(n):
    while True:
        n += 1
def main():
    spin(0)
main()' &
BURN=$!
"$PY" -c '
import time
def nap():
    while True:
        time.sleep(0.001)
def main():
    nap()
main()' &
NAP=$!
sleep 0.5

printf "%-52s %8s %8s %10s\n" "$PY: BPF ns" "per run" "runs" "per switch"
for unw in fp dwarf; do
	for py in "" --python; do
		r=$(prog_ns sample $BURN "$BIN/profile-lite" -U -F 999 --unwind $unw $py)
		read -r ns n _ <<<"$r"
		printf "%-52s %8s %8s %10s\n" "  profile-lite -U --unwind $unw $py (samples)" "$ns" "$n" ""
	done
done
for unw in fp dwarf; do
	for py in "" --python; do
		r=$(prog_ns sched_switch $NAP "$BIN/offcputime-lite" -U --unwind $unw $py)
		read -r ns n sw <<<"$r"
		printf "%-52s %8s %8s %10s\n" "  offcputime-lite -U --unwind $unw $py (switches)" "$ns" "$n" "$sw"
	done
done
