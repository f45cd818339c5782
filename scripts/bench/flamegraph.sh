# SPDX-License-Identifier: GPL-2.0
# flamegraph-lite: time (median of 5) and peak RSS to turn folded stacks
# into an SVG, and the SVG's size: 10,000 distinct stacks 30 frames deep
# (as offcputime-lite -f prints after a busy minute), with the default
# --minwidth and with every frame drawn, and 200,000 lines of 2,000 stacks that merge.
. scripts/bench/lib.sh
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT

awk 'BEGIN { srand(1); for (i = 0; i < 10000; i++) { s = "proc" (i % 13);
	for (d = 0; d < 30; d++) s = s ";func_" d "_" int(rand() * (d < 3 ? 4 : 40)); print s, int(rand() * 5000) + 1 } }' \
	>"$D/distinct.folded"
awk 'BEGIN { srand(2); for (i = 0; i < 200000; i++) { k = int(rand() * 2000); s = "proc" (k % 5);
	for (d = 0; d < 20; d++) s = s ";func_" d "_" (k * (7 * d + 3)) % (d + 2); print s, int(rand() * 100) + 1 } }' \
	>"$D/merge.folded"

# run NAME FILE ARGS...: one table row
run() {
	local name=$1 in=$2 ms rss size
	shift 2
	ms=$(for _ in 1 2 3 4 5; do
		t0=$(date +%s%N)
		"$BIN/flamegraph-lite" "$@" "$in" >"$D/out.svg" 2>/dev/null
		echo $((($(date +%s%N) - t0) / 1000000))
	done | sort -n | sed -n 3p)
	rss=$(/usr/bin/time -f '%M' "$BIN/flamegraph-lite" "$@" "$in" 2>&1 >/dev/null | tail -1)
	size=$(stat -c %s "$D/out.svg")
	printf '%-28s %9s %8s %10s %10s %10s\n' "$name" "$(wc -l <"$in")" "$ms" "$rss" \
		"$(grep -c '<g class="f">' "$D/out.svg")" "$((size / 1024))"
}

printf '%-28s %9s %8s %10s %10s %10s\n' input lines ms "RSS KiB" frames "SVG KiB"
run "10k distinct stacks" "$D/distinct.folded"
run "10k distinct, --minwidth 0" "$D/distinct.folded" --minwidth 0
run "10k distinct, --minwidth 1" "$D/distinct.folded" --minwidth 1
run "200k lines of 2k stacks" "$D/merge.folded"
