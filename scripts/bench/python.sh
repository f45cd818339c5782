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
command -v python3.11 >/dev/null || { echo "python3.11 not installed: no figures"; exit 0; }

# prog_ns PROG PID CMD...: "ns-per-run runs" of CMD -p PID's BPF program
# named PROG* over SECS seconds
prog_ns() {
	local prog=$1 pid=$2 p a b
	shift 2
	"$@" -p "$pid" >/dev/null 2>"$D/err" &
	p=$!
	attached $p "$D/err" && sleep 0.5
	a=$(progstats $p | awk -v n="$prog" 'index($1, n) == 1 { t += $2; c += $3 } END { print t + 0, c + 0 }')
	sleep "$SECS"
	b=$(progstats $p | awk -v n="$prog" 'index($1, n) == 1 { t += $2; c += $3 } END { print t + 0, c + 0 }')
	kill -INT $p
	wait $p 2>/dev/null
	echo "$a $b" | awk '{ d = $4 - $2; if (d > 0) printf "%.0f %d\n", ($3 - $1) / d, d; else print "- 0" }'
}

python3.11 -c '
def spin(n):
    while True:
        n += 1
def main():
    spin(0)
main()' &
BURN=$!
python3.11 -c '
import time
def nap():
    while True:
        time.sleep(0.001)
def main():
    nap()
main()' &
NAP=$!
sleep 0.5

printf "%-52s %8s %8s\n" "python3.11, BPF ns per run" "ns/run" "runs"
for unw in fp dwarf; do
	for py in "" --python; do
		read -r ns n < <(prog_ns sample $BURN "$BIN/profile-lite" -U -F 999 --unwind $unw $py)
		printf "%-52s %8s %8s\n" "  profile-lite -U --unwind $unw $py (a sample)" "$ns" "$n"
	done
done
for unw in fp dwarf; do
	for py in "" --python; do
		read -r ns n < <(prog_ns sched_switch $NAP "$BIN/offcputime-lite" -U --unwind $unw $py)
		printf "%-52s %8s %8s\n" "  offcputime-lite -U --unwind $unw $py (a switch)" "$ns" "$n"
	done
done
