# SPDX-License-Identifier: GPL-2.0
# biolatency-lite: start-up, peak RSS, kernel map memory, and the slowdown
# of an O_DIRECT 4 KiB read loop (one request at a time) on a loop device
# backed by /dev/shm, under no tool, biolatency-lite and a bpftrace program
# doing the same (block tracepoints, issue to complete, log2 histogram).
. scripts/bench/lib.sh
N=${BENCH_IOS:-50000}
IMG=/dev/shm/bpflite-bench-bio.$$.img
truncate -s $(((N + 16) * 4096)) "$IMG"
LOOP=$(losetup -f --show "$IMG")
BT=$(mktemp --suffix=.bt)
trap 'losetup -d "$LOOP"; rm -f "$IMG" "$BT"' EXIT
cat >"$BT" <<'BT'
tracepoint:block:block_rq_issue { @start[args->dev, args->sector] = nsecs; }
tracepoint:block:block_rq_complete /@start[args->dev, args->sector]/ {
	@usecs = hist((nsecs - @start[args->dev, args->sector]) / 1000);
	delete(@start[args->dev, args->sector]);
}
BT

io() { "$WL/blkrw" -f "$LOOP" -r "$N" -s 4096 | jq .ns_per_io; }

resources biolatency-lite "$BIN/biolatency-lite"

min() { awk -v a="$1" -v b="$2" 'BEGIN{print (a < b ? a : b)}'; }

# Rounds interleaved, the best of each kept: the machine is shared, and
# noise only ever adds time.
ROUNDS=${BENCH_ROUNDS:-3}
io >/dev/null	# warm up the backing file's pages
b=1e18; lite=1e18; lited=1e18; bt=1e18
for _ in $(seq "$ROUNDS"); do
	b=$(min "$b" "$(io)")
	lite=$(min "$lite" "$(under io "$BIN/biolatency-lite")")
	lited=$(min "$lited" "$(under io "$BIN/biolatency-lite" -D)")
	bt=$(min "$bt" "$(under io bpftrace "$BT")")
done

printf "%-38s %12s %8s\n" "O_DIRECT 4 KiB reads ($N, loop dev)" "ns/IO" "ratio"
printf "%-38s\n" "  (best of $ROUNDS interleaved rounds)"
printf "%-38s %12.0f %8s\n" "  no tool" "$b" "1.00"
printf "%-38s %12.0f %8s\n" "  biolatency-lite" "$lite" "$(ratio "$lite" "$b")"
printf "%-38s %12.0f %8s\n" "  biolatency-lite -D" "$lited" "$(ratio "$lited" "$b")"
printf "%-38s %12.0f %8s\n" "  bpftrace (block tracepoints)" "$bt" "$(ratio "$bt" "$b")"
overhead biolatency-lite 4KiB-read "$b" "$lite" - "$bt"
