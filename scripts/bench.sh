#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: run every scripts/bench/<tool>.sh (or the ones named) and
# print their tables. Benchmarks measure; they never fail a build.
#   scripts/bench.sh [tool...]
cd "$(dirname "$0")/.." || exit 1
[ "$(id -u)" = 0 ] || { echo "bench: needs root" >&2; exit 1; }
if [ $# -gt 0 ]; then
	set -- $(for t in "$@"; do echo "scripts/bench/$t.sh"; done)
else
	set -- scripts/bench/*.sh
fi
for b in "$@"; do
	[ -f "$b" ] || continue
	[ "$(basename "$b")" = lib.sh ] && continue	# shared functions, not a benchmark
	echo "== $(basename "$b" .sh)"
	bash "$b"
	echo
done
