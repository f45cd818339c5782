# SPDX-License-Identifier: GPL-2.0
# User stacks unwound in BPF from .eh_frame tables (--unwind dwarf) against
# frame pointers (--unwind fp): BPF ns per sample of profile-lite -U
# -F 999 at the same depth (tests/workloads/profwl, built with frame
# pointers, where both walks find the same frames), and on Debian's xz
# (no frame pointers: tables only); start-up with the tables built; the
# tables' kernel memory for a python3.11 process and for the whole machine
# (offcputime-lite --unwind dwarf with no -p: every process's tables).
. scripts/bench/lib.sh
SECS=${BENCH_SECS:-3}
D=$(mktemp -d)
trap 'rm -rf "$D"; [ -n "$XZ" ] && kill $XZ 2>/dev/null; [ -n "$PY" ] && kill $PY 2>/dev/null' EXIT

# sample_ns MODE PID: "ns-per-sample samples frames-per-stack" of profile-lite's
# perf_event program over SECS seconds of PID at 999 Hz, user stacks only.
sample_ns() {
	local mode=$1 pid=$2 p a
	"$BIN/profile-lite" -v -U -F 999 --unwind "$mode" -p "$pid" >/dev/null 2>"$D/err" &
	p=$!
	attached $p "$D/err" && sleep 0.3
	a=$(progstats $p | awk '$1 == "sample"')
	sleep "$SECS"
	b=$(progstats $p | awk '$1 == "sample"')
	kill -INT $p
	wait $p 2>/dev/null
	# frames per stack: the walk's own count (-v), or the depth of the folded stacks
	f=$(sed -n 's/.*unwind: \([0-9]*\) stacks: \([0-9]*\) frames by tables, \([0-9]*\) by frame.*/\1 \2 \3/p' "$D/err" |
		awk '$1 > 0 {printf "%.1f", ($2 + $3) / $1 + 1}')
	echo "$a $b" | awk -v f="${f:--}" '{d = $6 - $3; if (d > 0) printf "%.0f %d %s\n", ($5 - $2) / d, d, f; else print "- 0 -"}'
}

"$WL/profwl" -s 60 -b $((SECS * 4000)) >/dev/null &
FPWL=$!
sleep 0.3
fp=$(sample_ns fp $FPWL)
dw=$(sample_ns dwarf $FPWL)
kill $FPWL 2>/dev/null
wait $FPWL 2>/dev/null

XZ=
if command -v xz >/dev/null; then
	xz -9 -T1 </dev/urandom >/dev/null &
	XZ=$!
	sleep 0.3
	xzfp=$(sample_ns fp $XZ)
	xzdw=$(sample_ns dwarf $XZ)
	su_fp=$(startup_ms 7 "$BIN/profile-lite" --unwind fp -p $XZ)
	su_dw=$(startup_ms 7 "$BIN/profile-lite" --unwind dwarf -p $XZ)
fi

PY=
py_mem=-
if command -v python3.11 >/dev/null; then
	python3.11 -c 'while True: pass' &
	PY=$!
	sleep 0.3
	"$BIN/profile-lite" -v --unwind dwarf -p $PY >/dev/null 2>"$D/py.err" &
	p=$!
	attached $p "$D/py.err" && sleep 0.5
	mem_dw=$(($(maps_memlock_bytes $p) / 1024))
	kill -INT $p; wait $p 2>/dev/null
	py_mem=$(sed -n 's/.*unwind: \([0-9]*\) tables, \([0-9]*\) of \([0-9]*\) rows in BPF (\([0-9]*\) KiB of \([0-9]*\) KiB).*built in \([0-9]*\) ms/\1 tables, \2 rows, \4 KiB used of \5 KiB, built in \6 ms/p' "$D/py.err")
	"$BIN/profile-lite" --unwind fp -p $PY >/dev/null 2>"$D/py.err" &
	p=$!
	attached $p "$D/py.err" && sleep 0.5
	mem_fp=$(($(maps_memlock_bytes $p) / 1024))
	kill -INT $p; wait $p 2>/dev/null
fi

# the whole machine: every running process's tables, as offcputime-lite builds them
"$BIN/offcputime-lite" -v -f --unwind dwarf >/dev/null 2>"$D/all.err" &
p=$!
attached $p "$D/all.err" && sleep 0.5
mem_all=$(($(maps_memlock_bytes $p) / 1024))
kill -INT $p; wait $p 2>/dev/null
all=$(sed -n 's/.*unwind: \([0-9]*\) tables, \([0-9]*\) of \([0-9]*\) rows in BPF (\([0-9]*\) KiB of \([0-9]*\) KiB).*built in \([0-9]*\) ms/\1 tables, \2 rows, \4 KiB used of \5 KiB, built in \6 ms/p' "$D/all.err")
nproc_all=$(ls -d /proc/[0-9]* 2>/dev/null | wc -l)

echo "BPF ns per sample of profile-lite -U -F 999 (bpf_stats): ns, samples, frames per stack"
printf "%-34s %16s %16s\n" workload "frame pointers" "tables"
printf "%-34s %16s %16s\n" "profwl (frame pointers, static)" "$(echo "$fp" | awk '{print $1 " (" $3 ")"}')" "$(echo "$dw" | awk '{print $1 " (" $3 ")"}')"
[ -n "$XZ" ] && printf "%-34s %16s %16s\n" "Debian's xz (no frame pointers)" "$(echo "$xzfp" | awk '{print $1 " (" $3 ")"}')" "$(echo "$xzdw" | awk '{print $1 " (" $3 ")"}')"
[ -n "$XZ" ] && echo "start-up, exec to attached (median of 7), -p xz: fp ${su_fp} ms, tables ${su_dw} ms"
[ -n "$PY" ] && echo "python3.11: ${py_mem}; the tool's maps: ${mem_dw} KiB with tables, ${mem_fp} KiB by frame pointers"
echo "whole machine ($nproc_all processes), offcputime-lite --unwind dwarf: ${all:--}; its maps: ${mem_all} KiB"
perprog profile-lite "sample (fp, profwl)" "$(echo "$fp" | awk '{print $1}')" -
perprog profile-lite "sample (tables, profwl)" "$(echo "$dw" | awk '{print $1}')" -
