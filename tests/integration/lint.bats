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
