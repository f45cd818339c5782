#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Every tool's --help, man page and README row agree.

# bats file_tags=check

load helpers

tools() {
	make -s -C "$ROOT" --no-print-directory print-tools
}

# Long options a text mentions, sorted and unique (argp's own --usage aside).
help_longopts() { "$BIN/$1" --help | grep -oE -- '--[a-z0-9][a-z0-9-]+' | grep -vx -- '--usage' | sort -u; }
man_longopts() { grep -oE -- '\\-\\-[a-z0-9][a-z0-9-]+' "$ROOT/man/$1.8" | sed 's/\\//g' | grep -vx -- '--usage' | sort -u; }

@test "docs: every tool has a man page whose options match --help" {
	for t in $(tools); do
		[ -f "$ROOT/man/$t.8" ] || { echo "no man page for $t" >&2; return 1; }
		diff <(help_longopts "$t") <(man_longopts "$t") || { echo "options of $t: --help (<) vs man page (>)" >&2; return 1; }
	done
}

@test "docs: every tool has a README row and an example transcript" {
	for t in $(tools); do
		grep -q "^| $t " "$ROOT/README.md" || { echo "no README row for $t" >&2; return 1; }
		[ -s "$ROOT/docs/examples/$t.txt" ] || { echo "no example for $t" >&2; return 1; }
	done
}

@test "docs: -h prints the same help as --help" {
	for t in $(tools); do
		diff <("$BIN/$t" -h) <("$BIN/$t" --help)
	done
}
