#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the unit tests (cmocka, TAP), the integration tests (bats, TAP) on the
# running kernel, and the integration suite again on every kernel of
# tests/vm/kernels under qemu; print every result and end with
# "N passed, N failed, N skipped".
#   tests/run.sh [unit|integration|kernels|all] [bats filter regex]
# BPFLITE_KERNELS="NAME ..." picks kernels of the matrix ("none": no VM).
# Exit status: 0 when nothing failed.
#
# Each test program counts by its TAP lines and by its exit status: a
# program that ran fewer tests than its plan, printed no plan, or exited
# non-zero without a failing test counts as failed. So does an expected
# program that is missing.
cd "$(dirname "$0")/.." || exit 1
what=${1:-all}
filter=${2:-}
file_timeout=${BPFLITE_TEST_FILE_TIMEOUT:-900}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0 skipped=0

# tally NAME TAP_FILE STATUS: add one program's results to the totals.
tally() {
	local name=$1 file=$2 rc=$3 plan ok notok skip_ok skip_notok n
	plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\).*/\1/p' "$file" | head -1)
	ok=$(grep -Ec '^ok [0-9]+' "$file")
	notok=$(grep -Ec '^not ok [0-9]+' "$file")
	skip_ok=$(grep -Eic '^ok [0-9]+.*# skip' "$file")
	skip_notok=$(grep -Eic '^not ok [0-9]+.*# skip' "$file")
	passed=$((passed + ok - skip_ok))
	failed=$((failed + notok - skip_notok))
	skipped=$((skipped + skip_ok + skip_notok))
	n=$((ok + notok))
	if [ -z "$plan" ]; then
		echo "# FAIL $name: no TAP plan (exit status $rc)"
		failed=$((failed + 1))
	elif [ "$n" -lt "$plan" ]; then
		echo "# FAIL $name: $n of $plan tests ran (exit status $rc)"
		failed=$((failed + plan - n))
	elif [ "$rc" != 0 ] && [ "$notok" = 0 ]; then
		echo "# FAIL $name: exit status $rc with no failing test"
		failed=$((failed + 1))
	fi
}

# run_tap NAME COMMAND...: run one TAP program, show its output, tally it.
run_tap() {
	local name=$1 out=$tmp/out rc=0
	shift
	echo "# == $name"
	"$@" >"$out" 2>&1 || rc=$?
	sed 's/^/  /' "$out"
	tally "$name" "$out" "$rc"
}

if [ "$what" = all ] || [ "$what" = unit ]; then
	# every tests/unit/test_*.c must have been built and must run
	for src in $(cd tests/unit && ls test_*.c); do
		t=build/tests/unit/${src%.c}
		if [ ! -x "$t" ]; then
			echo "# FAIL unit ${src%.c}: $t was not built"
			failed=$((failed + 1))
			continue
		fi
		CMOCKA_MESSAGE_OUTPUT=TAP run_tap "unit ${src%.c}" "$t"
	done
fi

if [ "$what" = all ] || [ "$what" = integration ]; then
	for t in tests/integration/*.bats; do
		if [ -n "$filter" ]; then
			run_tap "integration $(basename "$t")" timeout -k 10 "$file_timeout" bats --tap -f "$filter" "$t"
		else
			run_tap "integration $(basename "$t")" timeout -k 10 "$file_timeout" bats --tap "$t"
		fi
	done
fi

# The kernel matrix: one boot per kernel, the guest's part of the suite
# (tests/vm/suite) in it; its stream is split back into one TAP program
# per bats file and tallied like the host's.
if [ "$what" = all ] || [ "$what" = kernels ]; then
	kernels=${BPFLITE_KERNELS:-$(awk '!/^#/ && NF { print $1 }' tests/vm/kernels)}
	[ "$kernels" = none ] && kernels=
	for k in $kernels; do
		stream=$tmp/vm-$k
		echo "# == kernel $k: booting (tests/vm/run.sh)"
		start=$SECONDS
		tests/vm/run.sh "$k" "$stream" ${filter:+"$filter"}
		vmrc=$?
		grep '^# vm kernel' "$stream" | sed 's/^/  /'
		for t in tests/integration/*.bats; do
			f=$(basename "$t")
			awk -v f="$f" '$0 == "# == integration " f { on = 1; next }
				on && /^# rc / { print > "/dev/stderr"; exit }
				on && /^# == integration / { exit }
				on { print }' "$stream" >"$tmp/tap" 2>"$tmp/rc"
			rc=$(sed -n 's/^# rc //p' "$tmp/rc")
			if ! grep -qx "# == integration $f" "$stream"; then
				echo "# FAIL kernel $k: $f did not run (guest exit $vmrc)"
				failed=$((failed + 1))
				continue
			fi
			echo "# == kernel $k: integration $f"
			sed 's/^/  /' "$tmp/tap"
			tally "kernel $k: $f" "$tmp/tap" "${rc:-124}"
		done
		echo "# kernel $k took $((SECONDS - start)) s"
	done
fi

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
