#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The test suite checks itself: no assertion in it that can never fail.

# bats file_tags=check

load helpers

@test "lint: no negated command that cannot fail a test (bats files and helpers)" {
	run "$ROOT/tests/lint/lint-bats.sh" "$ROOT"/tests/integration/*.bats "$ROOT"/tests/integration/*.bash
	echo "$output"
	[ "$status" = 0 ]
	[ -z "$output" ]
}

@test "lint: it finds a dead '! cmd' in a test and in a helper, and accepts the forms that fail" {
	local f=$ROOT/tests/lint/sample.bats.in
	run "$ROOT/tests/lint/lint-bats.sh" "$f"
	echo "$output"
	[ "$status" = 1 ]
	# the helper's first line and the test's first one; not the last ones
	[ "$(echo "$output" | cut -d: -f2 | tr '\n' ' ')" = "3 12 " ]
}

@test "lint: refute fails when its command succeeds, passes when it fails" {
	run refute true
	[ "$status" = 1 ]
	run refute false
	[ "$status" = 0 ]
}

# tagged TAG: the tools (the word before the first ':' of a test's name)
# with a test tagged TAG, one per line.
tagged() {
	awk -v tag="$1" '
		/^# bats test_tags=/ {
			s = $0; sub(/^[^=]*=/, "", s); n = split(s, t, ",")
			hit = 0
			for (i = 1; i <= n; i++) { gsub(/[ \t]/, "", t[i]); if (t[i] == tag) hit = 1 }
			next
		}
		/^@test "/ { if (hit) { s = $0; sub(/^@test "/, "", s); sub(/:.*/, "", s); print s } hit = 0 }
	' "$ROOT"/tests/integration/*.bats | sort -u
}

@test "lint: every tool has its smoke test, every tool with a BPF side its tests on the kernel matrix" {
	local t missing=""
	for t in $(make -s -C "$ROOT" --no-print-directory print-tools); do
		tagged smoke | grep -qx "${t%-lite}" || missing="$missing $t(smoke)"
	done
	for t in $(make -s -C "$ROOT" --no-print-directory print-bpf-tools); do
		tagged vm | grep -qx "${t%-lite}" || missing="$missing $t(vm)"
	done
	[ -z "$missing" ] || { echo "no tagged test for:$missing" >&2; return 1; }
}

@test "lint: tests/tags.sh picks each tier's files: check files whole, smoke and vm by their tags, soak out of make test" {
	. "$ROOT/tests/tags.sh"
	cd "$ROOT"
	run tier_args check tests/integration/lint.bats
	[ "$status" = 0 ] && [ -z "$output" ]
	run tier_args check tests/integration/runqlat.bats
	[ "$status" = 1 ]
	[ "$(tier_args smoke tests/integration/runqlat.bats)" = "--filter-tags smoke" ]
	[ "$(tier_args vm tests/integration/strace.bats)" = "--filter-tags vm" ]
	run tier_args vm tests/integration/docs.bats
	[ "$status" = 1 ]
	[ "$(tier_args all tests/integration/runqlat.bats)" = "--filter-tags !soak" ]
	is_serial tests/integration/runqlat.bats
	run is_serial tests/integration/flamegraph.bats
	[ "$status" = 1 ]
}
