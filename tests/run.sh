#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the unit tests (cmocka, TAP), the integration tests (bats, TAP) on the
# running kernel, and the guest's part of the suite (the tests tagged vm)
# on every kernel of tests/vm/kernels under qemu; print every result and
# end with "N passed, N failed, N skipped".
#   tests/run.sh [TIER] [bats filter regex]
# TIER (the make targets of the same names; tests/tags.sh says which tests
# belong to which):
#   check        unit tests and the files tagged check (no root)
#   smoke        check, and the tests tagged smoke (root)
#   all          unit, every integration test but soak's, the kernel matrix
#   unit, integration, kernels   one part of all
#   soak         the tests tagged soak, then the benchmarks
# Integration files run BPFLITE_TEST_JOBS (2) at a time, except those
# marked "# bpflite: serial", which run alone, first; each file's wall time
# is printed after its results, and the slowest files at the end.
# BPFLITE_KERNELS="NAME ..." picks kernels of the matrix ("none": no VM).
# Exit status: 0 when nothing failed.
#
# Each test program counts by its TAP lines and by its exit status: a
# program that ran fewer tests than its plan, printed no plan, or exited
# non-zero without a failing test counts as failed. So does an expected
# program that is missing.
#
# A failed bats test gets one more try, alone, in a fresh bats process,
# once every file has ended (on a kernel of the matrix: its files in a
# fresh boot of the guest, as do the files a guest did not run). A test
# that passes then counts as passed and is listed as "# FLAKY FILE: TEST"
# above the closing line, with "N flaky": a defect of the suite to fix,
# never a state to live with. A test that fails twice counts as failed.
cd "$(dirname "$0")/.." || exit 1
what=${1:-all}
filter=${2:-}
file_timeout=${BPFLITE_TEST_FILE_TIMEOUT:-900}
jobs=${BPFLITE_TEST_JOBS:-2}
. tests/tags.sh
case $what in
unit | check | smoke | integration | kernels | all | soak) ;;
*) echo "usage: tests/run.sh [unit|check|smoke|integration|kernels|all|soak] [bats filter regex]" >&2; exit 2 ;;
esac
if [ "$what" != unit ] && [ "$what" != check ] && [ "$(id -u)" != 0 ]; then
	echo "tests/run.sh $what: the tracing tests need root (make check does not)" >&2
	exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0 skipped=0
flaky=()

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

# failed_tests TAP_FILE: the names of its failed tests, one per line
# (bats --tap: "not ok N NAME", "in N ms" with --timing; skips aside).
failed_tests() {
	grep -E '^not ok [0-9]+ ' "$1" | grep -Eiv '# skip' |
		sed -E 's/^not ok [0-9]+ //; s/ in [0-9]+ms$//'
}

# regex_escape TEXT: TEXT as an extended regex that matches it literally.
regex_escape() {
	printf '%s' "$1" | sed 's/[][\\.^$*+?(){}|/]/\\&/g'
}

# name_regex NAME: a bats -f regex that matches NAME and nothing longer.
name_regex() {
	printf '^%s$' "$(regex_escape "$1")"
}

# retry_failed FILE TAP_FILE: each failed test of FILE once more, alone,
# in a fresh bats process; one that passes moves from failed to passed.
retry_failed() {
	local t=$1 tap=$2 name out=$tmp/retry
	while IFS= read -r name; do
		[ -n "$name" ] || continue
		echo "# retrying, alone: $(basename "$t"): $name"
		timeout -k 10 "$file_timeout" bats --tap -f "$(name_regex "$name")" "$t" >"$out" 2>&1
		sed 's/^/    /' "$out"
		if [ "$(grep -Ec '^ok [0-9]+' "$out")" = 1 ] && ! grep -Eq '^not ok ' "$out" &&
			! grep -Eiq '^ok [0-9]+.*# skip' "$out"; then
			failed=$((failed - 1))
			passed=$((passed + 1))
			flaky+=("# FLAKY $(basename "$t"): $name")
		fi
	done < <(failed_tests "$tap")
}

case $what in all | unit | check | smoke) run_unit=1 ;; esac
if [ -n "${run_unit:-}" ]; then
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

# The integration files of a tier: TIER for tier_args (tests/tags.sh).
case $what in
check | smoke | soak) tier=$what ;;
all | integration) tier=all ;;
*) tier= ;;
esac

# start_file FILE ARGS...: run one bats file in the background; its TAP,
# exit status and wall time land in $tmp/<file>.{tap,rc,time}.
declare -A running=()
start_file() {
	local f=$1 b
	shift
	b=$(basename "$f")
	(
		start=$(date +%s%N)
		rc=0
		timeout -k 10 "$file_timeout" bats --tap --timing ${filter:+-f "$filter"} "$@" "$f" >"$tmp/$b.tap" 2>&1 || rc=$?
		echo "$rc" >"$tmp/$b.rc"
		echo $((($(date +%s%N) - start) / 1000000)) >"$tmp/$b.time"
	) &
	running[$!]=$f
}

# finish_one: wait for one running file, show and tally its results.
times=
retry=()
finish_one() {
	local pid f b ms
	wait -n -p pid
	f=${running[$pid]}
	unset "running[$pid]"
	b=$(basename "$f")
	ms=$(cat "$tmp/$b.time" 2>/dev/null || echo 0)
	echo "# == integration $b"
	sed 's/^/  /' "$tmp/$b.tap"
	tally "integration $b" "$tmp/$b.tap" "$(cat "$tmp/$b.rc" 2>/dev/null || echo 1)"
	awk -v b="$b" -v ms="$ms" 'BEGIN { printf "# integration %s took %.1f s\n", b, ms / 1000 }'
	times="$times$ms $b"$'\n'
	[ -z "$(failed_tests "$tmp/$b.tap")" ] || retry+=("$f")
}

if [ -n "$tier" ]; then
	serial=() parallel=()
	for t in tests/integration/*.bats; do
		tier_args "$tier" "$t" >/dev/null || continue
		if is_serial "$t"; then serial+=("$t"); else parallel+=("$t"); fi
	done
	# the serial files alone, one after another; then the others, $jobs at a time
	for t in "${serial[@]}"; do
		start_file "$t" $(tier_args "$tier" "$t")
		finish_one
	done
	for t in "${parallel[@]}"; do
		[ "${#running[@]}" -ge "$jobs" ] && finish_one
		start_file "$t" $(tier_args "$tier" "$t")
	done
	while [ "${#running[@]}" -gt 0 ]; do finish_one; done
	[ -n "$times" ] && echo "# slowest files: $(sort -rn <<<"$times" | head -5 |
		awk 'NF { printf "%s%s %.1f s", sep, $2, $1 / 1000; sep = ", " }')"
	# the failed tests once more, each alone, with nothing else running
	for t in "${retry[@]}"; do retry_failed "$t" "$tmp/$(basename "$t").tap"; done
fi

if [ "$what" = soak ]; then
	# the benchmarks measure and never fail; they run last, alone
	echo "# == bench (scripts/bench.sh)"
	scripts/bench.sh 2>&1 | sed 's/^/  /'
fi

# kernel_tap STREAM FILE OUT: FILE's TAP from a guest's stream into OUT;
# prints its "# rc" status; fails when the guest never started FILE.
kernel_tap() {
	grep -qx "# == integration $2" "$1" || return 1
	awk -v f="$2" '$0 == "# == integration " f { on = 1; next }
		on && /^# rc / { print $3 > "/dev/stderr"; exit }
		on && /^# == integration / { exit }
		on { print }' "$1" 2>"$tmp/rc" >"$3"
	cat "$tmp/rc"
}

# The kernel matrix: one boot per kernel, the guest's part of the suite
# (the tests tagged vm) in it; its stream is split back into one TAP program
# per bats file and tallied like the host's. The files with a failed test
# and those the guest did not run (a hung or panicked guest) go through one
# fresh boot more, and count as they end there.
if [ "$what" = all ] || [ "$what" = kernels ]; then
	kernels=${BPFLITE_KERNELS:-$(awk '!/^#/ && NF { print $1 }' tests/vm/kernels)}
	[ "$kernels" = none ] && kernels=
	# The first boots, BPFLITE_VM_JOBS (2) at a time: a guest's TCG is one
	# host thread, so two guests use the two CPUs a lone guest leaves half
	# idle. Each guest's output is printed once all have ended.
	vmjobs=${BPFLITE_VM_JOBS:-2}
	mstart=$SECONDS
	for k in $kernels; do
		while [ "$(jobs -rp | wc -l)" -ge "$vmjobs" ]; do wait -n; done
		(
			s=$SECONDS
			tests/vm/run.sh "$k" "$tmp/vm-$k" "$filter" >"$tmp/vmlog-$k" 2>&1
			echo "$? $((SECONDS - s))" >"$tmp/vmrc-$k"
		) &
	done
	wait
	for k in $kernels; do
		stream=$tmp/vm-$k
		echo "# == kernel $k: booting (tests/vm/run.sh, $vmjobs guests at a time)"
		start=$SECONDS
		cat "$tmp/vmlog-$k"
		read -r vmrc took <"$tmp/vmrc-$k"
		grep '^# vm kernel\|^# took' "$stream" | sed 's/^/  /'
		echo "# kernel $k: the guest ran $took s (exit $vmrc)"
		again=()
		for t in tests/integration/*.bats; do
			tier_args vm "$t" >/dev/null || continue
			f=$(basename "$t")
			if ! rc=$(kernel_tap "$stream" "$f" "$tmp/tap-$f"); then
				again+=("$f")
			elif [ -n "$(failed_tests "$tmp/tap-$f")" ] || [ "${rc:-124}" != 0 ]; then
				again+=("$f")
			fi
		done
		stream2=
		if [ "${#again[@]}" -gt 0 ]; then
			echo "# == kernel $k: booting once more for ${again[*]}"
			s2=$SECONDS
			stream2=$tmp/vm2-$k
			tests/vm/run.sh "$k" "$stream2" "$filter" "${again[*]}"
			echo "# kernel $k: the second guest ran $((SECONDS - s2)) s (exit $?)"
		fi
		for t in tests/integration/*.bats; do
			tier_args vm "$t" >/dev/null || continue
			f=$(basename "$t")
			use=$stream
			if [[ " ${again[*]} " == *" $f "* ]]; then
				use=$stream2
				if rc1=$(kernel_tap "$stream" "$f" "$tmp/tap1"); then
					echo "# == kernel $k: integration $f (first boot, exit status ${rc1:-124})"
					sed 's/^/  /' "$tmp/tap1"
				else
					: >"$tmp/tap1"
				fi
			fi
			if ! rc=$(kernel_tap "$use" "$f" "$tmp/tap"); then
				echo "# FAIL kernel $k: $f did not run (guest exit $vmrc)"
				failed=$((failed + 1))
				continue
			fi
			echo "# == kernel $k: integration $f"
			sed 's/^/  /' "$tmp/tap"
			tally "kernel $k: $f" "$tmp/tap" "${rc:-124}"
			if [ "$use" = "$stream2" ]; then
				if [ ! -s "$tmp/tap1" ]; then
					[ -n "$(failed_tests "$tmp/tap")" ] || flaky+=("# FLAKY kernel $k: $f did not run in the first boot")
				else
					while IFS= read -r name; do
						[ -n "$name" ] || continue
						grep -Eq "^ok [0-9]+ $(regex_escape "$name")( in [0-9]+ms)?$" "$tmp/tap" &&
							flaky+=("# FLAKY kernel $k: $f: $name")
					done < <(failed_tests "$tmp/tap1")
				fi
			fi
		done
		echo "# kernel $k took $((took + SECONDS - start)) s"
	done
	[ -z "$kernels" ] || echo "# the kernel matrix took $((SECONDS - mstart)) s"
fi

for line in "${flaky[@]}"; do echo "$line"; done
[ "${#flaky[@]}" = 0 ] || echo "${#flaky[@]} flaky"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
