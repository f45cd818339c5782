#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the unit tests (cmocka, TAP) and the integration tests (bats, TAP),
# print every result, and end with "N passed, N failed, N skipped".
#   tests/run.sh [unit|integration] [bats filter regex]
# Exit status: 0 when nothing failed.
cd "$(dirname "$0")/.." || exit 1
what=${1:-all}
filter=${2:-}
log=$(mktemp)
# A hung test file must not hang CI: its unfinished tests count as failed.
file_timeout=${BPFLITE_TEST_FILE_TIMEOUT:-900}
trap 'rm -f "$log"' EXIT

run_tap() {	# name, command...
	local name=$1
	shift
	echo "# == $name"
	"$@" 2>&1 | tee -a "$log" | sed 's/^/  /'
	echo "# end $name" >>"$log"
}

if [ "$what" = all ] || [ "$what" = unit ]; then
	for t in build/tests/unit/test_*; do
		[ -x "$t" ] || continue
		CMOCKA_MESSAGE_OUTPUT=TAP run_tap "unit $(basename "$t")" "$t"
	done
fi
if [ "$what" = all ] || [ "$what" = integration ]; then
	for t in tests/integration/*.bats; do
		[ -f "$t" ] || continue
		if [ -n "$filter" ]; then
			run_tap "integration $(basename "$t")" timeout -k 10 "$file_timeout" bats --tap -f "$filter" "$t"
		else
			run_tap "integration $(basename "$t")" timeout -k 10 "$file_timeout" bats --tap "$t"
		fi
	done
fi

passed=$(grep -Ec '^ok [0-9]+' "$log" | head -1)
skip_ok=$(grep -Eic '^ok [0-9]+.*# skip' "$log")
skip_notok=$(grep -Eic '^not ok [0-9]+.*# skip' "$log")
failed=$(grep -Ec '^not ok [0-9]+' "$log")
skipped=$((skip_ok + skip_notok))
passed=$((passed - skip_ok))
failed=$((failed - skip_notok))
# A test program that crashed before its plan counts as a failure.
crashed=$(awk '/^1\.\.[0-9]+/{plan=$1; sub("1..","",plan); n=0; next}
	/^(not )?ok [0-9]+/{n++}
	/^# end /{if (plan != "" && n < plan+0) c += plan - n; plan=""; n=0}
	END{print c+0}' "$log")
failed=$((failed + crashed))
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
