#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Python frames in profile-lite's stacks (--python): CPython 3.11 as
# Debian ships it (/usr/bin/python3.11: libpython linked in, stripped, only
# .dynsym) and 3.10 to 3.13 as pyenv builds them (3.10.13, 3.11.7, 3.12.1,
# 3.13.0: shared libpython). Workload:
# tests/workloads/pyhotcold.py, hot() and cold() burning CPU 4:1, each
# one's CPU time measured by the script itself; pywait.py, waiting off CPU
# 4:1; pyshapes.py, generators, callbacks from C, asyncio, deep recursion
# and threads.

# bpflite: serial: the CPU-time ratio is measured against samples

load helpers
bats_require_minimum_version 1.5.0

PYWL=$ROOT/tests/workloads/pyhotcold.py

setup() {
	require_root
	WLPID=
}

teardown() {
	[ -z "$WLPID" ] || kill "$WLPID" 2>/dev/null || true
	cleanup_test
}

# pyenv_python VERSION: pyenv's python3.X of VERSION (3.12.1)
pyenv_python() {
	local root
	root=${PYENV_ROOT:-$(pyenv root 2>/dev/null || echo /root/.pyenv)}
	echo "$root/versions/$1/bin/python${1%.*}"
}

# wait_ready: the script writing WLOUT has said "ready" (its set-up
# done), or 10 s have passed.
wait_ready() {
	for _ in $(seq 100); do
		grep -q ready "$WLOUT" && break
		sleep 0.1
	done
}

# pyend GO SCRIPT TOOL: the script (WLPID) let go and waited for, then
# the tool (TOOL_PID) stopped by SIGINT, exit 0; prints what the script
# measured (WLOUT).
pyend() {
	go "$1"
	wait_bounded "$WLPID" 30 "$2"
	kill -INT "$TOOL_PID"
	TOOL_RC=0
	wait_bounded "$TOOL_PID" 30 "$3" || TOOL_RC=$?
	[ "$TOOL_RC" = 0 ]
	cat "$WLOUT"
}

# pyrun PYTHON SCRIPT SECONDS TOOL ARGS...: SCRIPT under PYTHON for
# SECONDS once TOOL ARGS... -p PID is attached around it; the tool reports
# at its end, when the script has exited (its code objects were named
# while it ran). Leaves WLPID, WLOUT (what the script measured), TOOL_OUT,
# TOOL_ERR.
pyrun() {
	local py=$1 script=$2 secs=$3 tool=$4 go
	shift 4
	[ -x "$py" ] || skip "$py not installed"
	go=$(make_go)
	WLOUT=$BATS_TEST_TMPDIR/wl.out
	"$py" "$script" "$secs" "$go" >"$WLOUT" &
	WLPID=$!
	wait_ready
	start_tool "$tool" "$@" -p "$WLPID" 8
	pyend "$go" "$script" "$tool"
}

# hotcold PYTHON ARGS...: pyhotcold.py (the script's CPU times) under
# profile-lite -j -U -F 999 ARGS... PYWL is the script (a test may set
# another).
hotcold() {
	local py=$1
	shift
	pyrun "$py" "$PYWL" 4 profile-lite -j -U -F 999 "$@"
	assert_ndjson "$TOOL_OUT"
}

# pyshare FILE PID REGEX: the share of PID's samples whose user stack has a
# frame matching REGEX; pysamples FILE PID REGEX: their count.
pysamples() {
	jq -s --argjson p "$2" --arg re "$3" '
		[.[] | select(.type == "stack" and .pid == $p) |
		 select((.user_stack // []) | any(test($re))) | .samples] | add // 0' "$1"
}

# assert_hotcold: >= 90% of the samples under named Python frames; hot's and
# cold's samples in the ratio of their measured CPU time, +-10%.
assert_hotcold() {
	local all named hot cold want got hl loop
	all=$(pysamples "$TOOL_OUT" "$WLPID" '.')
	named=$(pysamples "$TOOL_OUT" "$WLPID" '^[^ ]+ \(.*\.py:[0-9]+\)$')
	hot=$(pysamples "$TOOL_OUT" "$WLPID" '^hot \(.*pyhotcold\.py:[0-9]+\)$')
	cold=$(pysamples "$TOOL_OUT" "$WLPID" '^cold \(.*pyhotcold\.py:[0-9]+\)$')
	# hot's time is in its loop: the two lines after "x = 0"
	hl=$(grep -n '^def hot' "$PYWL" | cut -d: -f1)
	loop=$(pysamples "$TOOL_OUT" "$WLPID" "^hot \\(.*pyhotcold\\.py:($((hl + 2))|$((hl + 3)))\\)\$")
	want=$(awk '$1 == "hot" { h = $2 } $1 == "cold" { c = $2 } END { print h / c }' "$WLOUT")
	echo "samples $all, under Python frames $named, hot $hot (in its loop's lines $loop), cold $cold; measured ratio $want"
	[ "$all" -ge 1000 ]
	[ "$cold" -gt 0 ]
	assert_between "share under named Python frames" "$(awk -v n="$named" -v a="$all" 'BEGIN { print n / a }')" 0.9 1
	assert_between "hot's samples in its loop" "$(awk -v l="$loop" -v h="$hot" 'BEGIN { print l / h }')" 0.9 1
	got=$(awk -v h="$hot" -v c="$cold" 'BEGIN { print h / c }')
	assert_between "hot:cold samples" "$got" "$(awk -v w="$want" 'BEGIN { print w * 0.9 }')" \
		"$(awk -v w="$want" 'BEGIN { print w * 1.1 }')"
}

@test "python: Debian's python3.11 (static libpython, stripped), by default (tables, Python frames): Python frames in place of the eval loop, hot:cold as measured" {
	hotcold /usr/bin/python3.11 -v
	assert_hotcold
	# -v names the interpreter and the offsets
	grep -E "python: PID $WLPID: CPython 3\.11\.[0-9]+ \(/usr/bin/python3\.11\), _PyRuntime at 0x[0-9a-f]+; offsets of 3\.11 " "$TOOL_ERR"
	assert_merged
}

# assert_eval_left pid|tid TOTAL: in WLPID's stacks (by process and
# samples, or by thread and microseconds) no Python frames unmatched, and
# an eval frame left only innermost, leafward of every Python frame, in at
# most 0.5% of TOTAL: an eval call sampled (or preempted) as it is entered
# or left has no Python frame (it is linked a few instructions in,
# unlinked a few before the return), a sample or two of thousands.
assert_eval_left() {
	local count=pysamples left unmatched
	[ "$1" = tid ] && count=pyus
	left=$($count "$TOOL_OUT" "$WLPID" '^_PyEval_EvalFrameDefault$')
	unmatched=$($count "$TOOL_OUT" "$WLPID" '^\[python unmatched\]$')
	echo "with an eval loop frame left: $left, with Python frames unmatched: $unmatched, of $2"
	[ "$left" = 0 ] && [ "$unmatched" = 0 ] || jq -c --argjson w "$WLPID" --arg by "$1" \
		'select(.type == "stack" and .[$by] == $w and (.user_stack | any(test("^_PyEval_EvalFrameDefault$|^\\[python unmatched\\]$"))))' "$TOOL_OUT"
	[ "$unmatched" = 0 ]
	assert_between "share with an eval frame left" "$(awk -v l="$left" -v a="$2" 'BEGIN { print l / a }')" 0 0.005
	jq -e -s --argjson w "$WLPID" --arg by "$1" 'def py: test(" \\(.*:[0-9]+\\)$");
		all(.[] | select(.type == "stack" and .[$by] == $w) | .user_stack;
		    (map(test("^_PyEval_EvalFrameDefault$")) | rindex(true)) as $e |
		    (map(py) | index(true)) as $q | $e == null or $q == null or $e < $q)' "$TOOL_OUT"
}

# assert_merged (--unwind dwarf): callers under callees, the eval loop's
# frames replaced: the script's frames reach the native root
assert_merged() {
	assert_eval_left pid "$(pysamples "$TOOL_OUT" "$WLPID" '.')"
	jq -e -s --argjson p "$WLPID" 'def at(re): (map(test(re)) | index(true)) // -1;
		any(.[]; .type == "stack" and .pid == $p and
		(.user_stack | at("^hot \\(") as $h | at("^main \\(") as $m |
		 at("^<module> \\(") as $g | at("^__libc_start_call_main$") as $r |
		 $h >= 0 and $h < $m and $m < $g and $g < $r))' "$TOOL_OUT"
}

@test "python: Debian's python3.11 by frame pointers: Python frames above the native leaf" {
	hotcold /usr/bin/python3.11 --python --unwind fp
	assert_hotcold
}

@test "python: pyenv's CPython 3.11.7 (shared libpython), --unwind dwarf: hot:cold as measured" {
	hotcold "$(pyenv_python 3.11.7)" --python --unwind dwarf -v
	assert_hotcold
	grep -E "python: PID $WLPID: CPython 3\.11\.7 \(.*/libpython3\.11\.so\.1\.0\), _PyRuntime at 0x[0-9a-f]+; offsets of 3\.11 " "$TOOL_ERR"
}

@test "python: pyenv's CPython 3.12.1 (entry frames on the C stack), --unwind dwarf: hot:cold as measured, merged" {
	hotcold "$(pyenv_python 3.12.1)" --python --unwind dwarf -v
	assert_hotcold
	grep -E "python: PID $WLPID: CPython 3\.12\.1 \(.*/libpython3\.12\.so\.1\.0\), _PyRuntime at 0x[0-9a-f]+; offsets of 3\.12 " "$TOOL_ERR"
	assert_merged
}

@test "python: pyenv's CPython 3.12.1 by frame pointers: hot:cold as measured" {
	hotcold "$(pyenv_python 3.12.1)" --python --unwind fp
	assert_hotcold
}

@test "python: pyenv's CPython 3.13.0 (tstate->current_frame, _Py_DebugOffsets), --unwind dwarf: hot:cold as measured, merged" {
	hotcold "$(pyenv_python 3.13.0)" --python --unwind dwarf -v
	assert_hotcold
	grep -E "python: PID $WLPID: CPython 3\.13\.0 \(.*/libpython3\.13\.so\.1\.0\), _PyRuntime at 0x[0-9a-f]+; offsets of 3\.13 " "$TOOL_ERR"
	# the process's own offsets agree with the table's
	grep -E "python: PID $WLPID: offsets from its _Py_DebugOffsets: as the table's$" "$TOOL_ERR"
	assert_merged
}

@test "python: pyenv's CPython 3.13.0 by frame pointers: hot:cold as measured" {
	hotcold "$(pyenv_python 3.13.0)" --python --unwind fp
	assert_hotcold
}

@test "python: pyenv's CPython 3.10.13 (PyFrameObject chain, thread by pthread_self), --unwind dwarf: hot:cold as measured, merged" {
	hotcold "$(pyenv_python 3.10.13)" --python --unwind dwarf -v
	assert_hotcold
	grep -E "python: PID $WLPID: CPython 3\.10 \(.*/libpython3\.10\.so\.1\.0\), _PyRuntime at 0x[0-9a-f]+; offsets of 3\.10 " "$TOOL_ERR"
	assert_merged
}

@test "python: pyenv's CPython 3.10.13 by frame pointers: hot:cold as measured" {
	hotcold "$(pyenv_python 3.10.13)" --python --unwind fp
	assert_hotcold
}

@test "python: a process named python that is not one: native frames only, one line on stderr" {
	local fake=$BATS_TEST_TMPDIR/python3 n
	cp /usr/bin/yes "$fake"
	"$fake" >/dev/null &
	WLPID=$!
	start_tool profile-lite -j -U -F 199 -p "$WLPID" --python 2
	wait_tool
	[ "$TOOL_RC" = 0 ]
	assert_ndjson "$TOOL_OUT"
	[ "$(pysamples "$TOOL_OUT" "$WLPID" '.')" -ge 100 ]
	[ "$(pysamples "$TOOL_OUT" "$WLPID" '\.py:[0-9]+\)$|^\[python|^\[missed python')" = 0 ]
	n=$(grep -c "PID $WLPID is named python but" "$TOOL_ERR")
	[ "$n" = 1 ]
}

# execpy PYTHON FILE: a shell that execs PYTHON pyhotcold.py once profile-lite
# -p of the shell has attached: the snapshot of the new program is taken
# as its loader maps the libraries (the first sample after the exec comes
# there) and read again until they are in; the Python look waits for
# libpython the same way. Python frames, hot:cold as measured, merged;
# -v names FILE (a regex) as the interpreter's.
execpy() {
	local py=$1 pre go
	pre=$(make_go)
	go=$(make_go)
	WLOUT=$BATS_TEST_TMPDIR/wl.out
	# a shell, until it execs python once the tool has attached to it
	sh -c 'read -r _ <"$1"; exec "$2" "$3" 4 "$4"' sh "$pre" "$py" "$PYWL" "$go" >"$WLOUT" &
	WLPID=$!
	start_tool profile-lite -j -U -F 999 --python --unwind dwarf -v -p "$WLPID" 8
	go "$pre"
	wait_ready
	pyend "$go" pyhotcold.py profile-lite
	assert_ndjson "$TOOL_OUT"
	assert_hotcold
	assert_merged
	grep -E "python: PID $WLPID: CPython 3\.11\.[0-9]+ \($2\)" "$TOOL_ERR"
}

@test "python: a process that execs python after the tool attached (-p of its shell): Python frames, hot:cold as measured (Debian's python3.11, --unwind dwarf)" {
	execpy /usr/bin/python3.11 '/usr/bin/python3\.11'
}

@test "python: a process that execs pyenv's CPython 3.11.7 (shared libpython) after the tool attached (-p of its shell): Python frames, hot:cold as measured, merged (--unwind dwarf)" {
	execpy "$(pyenv_python 3.11.7)" '.*/libpython3\.11\.so\.1\.0'
}

@test "python: system-wide (no -p), a python3.11 started after the tool attached, by default: Python frames, hot:cold as measured, merged" {
	local go
	go=$(make_go)
	WLOUT=$BATS_TEST_TMPDIR/wl.out
	start_tool profile-lite -j -U -F 999 -v 20
	/usr/bin/python3.11 "$PYWL" 4 "$go" >"$WLOUT" &
	WLPID=$!
	wait_ready
	pyend "$go" pyhotcold.py profile-lite
	grep -E "unwind: [0-9]+ tables" "$TOOL_ERR"
	assert_ndjson "$TOOL_OUT"
	assert_hotcold
	assert_merged
	grep -E "python: PID $WLPID: CPython 3\.11\.[0-9]+ \(/usr/bin/python3\.11\)" "$TOOL_ERR"
}

@test "python: pyenv's CPython 3.13.0, --unwind dwarf: a class's __init__ (run in its caller's eval call, behind a shim frame) under its caller" {
	PYWL=$ROOT/tests/workloads/pyinit.py
	hotcold "$(pyenv_python 3.13.0)" --python --unwind dwarf
	all=$(pysamples "$TOOL_OUT" "$WLPID" '.')
	init=$(pysamples "$TOOL_OUT" "$WLPID" '^Burn\.__init__ \(.*pyinit\.py:[0-9]+\)$')
	echo "samples $all, in Burn.__init__ $init; the most sampled stack:"
	jq -s -r --argjson p "$WLPID" '[.[] | select(.type == "stack" and .pid == $p)] |
		max_by(.samples) | .user_stack | join(";")' "$TOOL_OUT"
	[ "$all" -ge 1000 ]
	assert_between "share in Burn.__init__" "$(awk -v i="$init" -v a="$all" 'BEGIN { print i / a }')" 0.9 1
	assert_eval_left pid "$all"
	jq -e -s --argjson p "$WLPID" 'def at(re): (map(test(re)) | index(true)) // -1;
		any(.[]; .type == "stack" and .pid == $p and
		(.user_stack | at("^Burn\\.__init__ \\(") as $h | at("^main \\(") as $m |
		 at("^<module> \\(") as $g | at("^__libc_start_call_main$") as $r |
		 $h >= 0 and $h < $m and $m < $g and $g < $r))' "$TOOL_OUT"
}

# shape SHAPE PYTHON TOOL ARGS...: tests/workloads/pyshapes.py's SHAPE
# under PYTHON for 2 s, TOOL ARGS... -p PID attached around it
# (offcputime-lite: 3 s).
shape() {
	local s=$1 py=$2 tool=$3 secs=2
	shift 3
	[ "$tool" = offcputime-lite ] && secs=3
	PYSHAPE=$s pyrun "$py" "$ROOT/tests/workloads/pyshapes.py" "$secs" "$tool" "$@"
	assert_ndjson "$TOOL_OUT"
}

# pychain FILE pid|tid ID REGEX...: the samples of process ID (pid), or
# the off-CPU microseconds of thread ID (tid), whose user stack has frames
# matching each REGEX in turn, leaf to root: a frame the first, a frame
# rootward of it the second...
pychain() {
	local f=$1 by=$2 id=$3
	shift 3
	jq -s --arg by "$by" --argjson id "$id" '
		def chain($s; $res): if ($res | length) == 0 then true else
			(($s | map(test($res[0])) | index(true)) // null) as $i |
			$i != null and chain($s[$i + 1:]; $res[1:]) end;
		[.[] | select(.type == "stack" and .[$by] == $id) |
		 select(chain(.user_stack // []; $ARGS.positional)) |
		 if $by == "pid" then .samples else .total_us end] | add // 0' "$f" --args "$@"
}

# assert_share WHAT PART WHOLE LO: PART / WHOLE between LO and 1, WHOLE > 0
assert_share() {
	[ "$3" -gt 0 ] || { echo "$1: nothing to share ($2 of $3)" >&2; return 1; }
	assert_between "$1" "$(awk -v p="$2" -v w="$3" 'BEGIN { print p / w }')" "$4" 1
}

# a native frame: not a Python one ("name (file:line)") nor a mark
NATIVE='^[^[][^ ]*$'

# assert_in_chain FN MIN REGEX...: WLPID's samples in the shape's run
# (at least 1000), the share of them in pyshapes.py's FN at least MIN,
# and >= 99% of those with frames matching each REGEX in turn rootward of
# FN's (pychain). The run's samples: those under pyshapes.py's run(), or
# with a Python mark (cut, missed, unmatched: a failure counts against
# FN's share); the interpreter's start and end are not the shape's (in
# the 6.1 guest, under TCG, they were 25-30% of a 2 s run's samples).
assert_in_chain() {
	local fn=$1 min=$2 all n chain
	shift 2
	all=$(pysamples "$TOOL_OUT" "$WLPID" '^run \(.*pyshapes\.py:[0-9]+\)$|^\[(missed )?python')
	n=$(pysamples "$TOOL_OUT" "$WLPID" "^$fn \\(.*pyshapes\\.py:[0-9]+\\)\$")
	chain=$(pychain "$TOOL_OUT" pid "$WLPID" "^$fn \\(.*pyshapes\\.py:" "$@")
	echo "samples $all, in $fn() $n, $chain of those under the frames asked for; the most sampled stack:"
	jq -s -r --argjson p "$WLPID" '[.[] | select(.type == "stack" and .pid == $p)] |
		max_by(.samples) | .user_stack | join(";")' "$TOOL_OUT"
	[ "$all" -ge 1000 ]
	assert_share "share in $fn()" "$n" "$all" "$min"
	assert_share "$fn()'s samples under the frames asked for" "$chain" "$n" 0.99
}

# bats test_tags=vm
@test "python: a generator's frame under the loop that consumes it (Debian's python3.11, --unwind dwarf)" {
	shape gen /usr/bin/python3.11 profile-lite -j -U -F 999 --python --unwind dwarf
	assert_in_chain squares 0.1 '^consume \(.*pyshapes\.py:' '^run \(.*pyshapes\.py:' '^main \(' \
		'^<module> \(' '^__libc_start_call_main$'
	assert_eval_left pid "$(pysamples "$TOOL_OUT" "$WLPID" '.')"
}

@test "python: a C function calling back into Python: key() under sorted()'s native frames under its caller (Debian's python3.11 and pyenv's 3.12.1, --unwind dwarf)" {
	local py
	for py in /usr/bin/python3.11 "$(pyenv_python 3.12.1)"; do
		shape callback "$py" profile-lite -j -U -F 999 --python --unwind dwarf
		echo "$py:"
		assert_in_chain key 0.5 "$NATIVE" '^sort_by_key \(.*pyshapes\.py:' '^run \(' '^main \(' \
			'^<module> \(' '^__libc_start_call_main$'
		assert_eval_left pid "$(pysamples "$TOOL_OUT" "$WLPID" '.')"
	done
}

@test "python: asyncio coroutines under the event loop's frames (Debian's python3.11, --unwind dwarf)" {
	shape asyncio /usr/bin/python3.11 profile-lite -j -U -F 999 --python --unwind dwarf
	assert_in_chain work 0.5 '^Handle\._run \(.*/asyncio/events\.py:' \
		'^BaseEventLoop\._run_once \(.*/asyncio/base_events\.py:' '^BaseEventLoop\.run_forever \(.*/asyncio/base_events\.py:' \
		'^run \(.*/asyncio/runners\.py:' '^run \(.*pyshapes\.py:' '^main \(' '^<module> \(' '^__libc_start_call_main$'
	assert_eval_left pid "$(pysamples "$TOOL_OUT" "$WLPID" '.')"
}

# bats test_tags=vm
@test "python: a recursion deeper than 64 Python frames: cut at 64 and marked, the native root kept (Debian's python3.11, --unwind dwarf)" {
	shape recurse /usr/bin/python3.11 profile-lite -j -U -F 999 --python --unwind dwarf
	assert_in_chain burn 0.9 '^down \(' '^\[python truncated\]$' '^__libc_start_call_main$'
	# each such stack: 64 Python frames, none of the callers above the cut
	jq -e -s --argjson p "$WLPID" '[.[] | select(.type == "stack" and .pid == $p and
		(.user_stack | any(test("^burn \\("))) and (.user_stack | any(test("^\\[python truncated\\]$"))))] |
		length > 0 and all(.[]; (.user_stack | map(select(test(" \\(.*:[0-9]+\\)$"))) | length) == 64 and
		(.user_stack | any(test("^main \\(")) | not))' "$TOOL_OUT"
}

@test "python: offcputime-lite --python, two threads (Debian's python3.11, --unwind dwarf), tp_btf and raw_tp: each thread its own stack, each function's wait as measured" {
	local path
	for path in "" --force-raw-tp; do
		two_threads -v $path
		[ -z "$path" ] || grep -q "raw_tp (forced)" "$TOOL_ERR"
	done
}

# two_threads ARGS...: pyshapes.py's threads under offcputime-lite --python
# --unwind dwarf ARGS..., checked
two_threads() {
	local waiter f got want
	shape threads /usr/bin/python3.11 offcputime-lite -j -U --python --unwind dwarf "$@"
	waiter=$(awk '$1 == "tid" && $2 == "waiter" { print $3 }' "$WLOUT")
	[ -n "$waiter" ]
	[ "$waiter" != "$WLPID" ]
	for f in nap:"$WLPID" waiter:"$waiter"; do
		got=$(pyus "$TOOL_OUT" "${f#*:}" "^${f%:*} \\(.*pyshapes\\.py:[0-9]+\\)\$")
		want=$(awk -v f="${f%:*}" '$1 == f { print $2 * 1e6 }' "$WLOUT")
		echo "${f%:*} (thread ${f#*:}): $got us off CPU, $want us measured"
		assert_between "${f%:*}'s off-CPU time / its measured time" \
			"$(awk -v g="$got" -v w="$want" 'BEGIN { print g / w }')" 0.95 1.01
	done
	# the waiter's wait (Event.wait's time) under threading's frames, down
	# to the thread's start; the waiter's GIL waits between two are not
	# under Event.wait (1% of its time off CPU in the 6.1 guest)
	got=$(pychain "$TOOL_OUT" tid "$waiter" '^Condition\.wait \(.*threading\.py:' '^Event\.wait \(.*threading\.py:' \
		'^waiter \(.*pyshapes\.py:' '^Thread\.run \(.*threading\.py:' '^Thread\._bootstrap \(.*threading\.py:' '^start_thread$')
	want=$(pyus "$TOOL_OUT" "$waiter" '^Event\.wait \(.*threading\.py:')
	assert_share "the waiter's time under threading's frames to start_thread" "$got" "$want" 0.99
	# each thread's stacks its own: no waiter() in the main thread's, no main() in the waiter's
	[ "$(pyus "$TOOL_OUT" "$WLPID" '^waiter \(')" = 0 ]
	[ "$(pyus "$TOOL_OUT" "$waiter" '^(main|nap) \(')" = 0 ]
	assert_eval_left tid "$(pyus "$TOOL_OUT" "$WLPID" '.')"
}

# offwait PYTHON ARGS...: tests/workloads/pywait.py under PYTHON for 3 s
# (read_config() and handle() waiting off CPU 4:1, each one's wall-clock
# time measured by the script), offcputime-lite -j -U --python ARGS...
offwait() {
	local py=$1
	shift
	pyrun "$py" "$ROOT/tests/workloads/pywait.py" 3 offcputime-lite -j -U --python "$@"
	assert_ndjson "$TOOL_OUT"
}

# pyus FILE TID REGEX: the off-CPU microseconds of thread TID whose user
# stack has a frame matching REGEX.
pyus() {
	jq -s --argjson t "$2" --arg re "$3" '
		[.[] | select(.type == "stack" and .tid == $t) |
		 select((.user_stack // []) | any(test($re))) | .total_us] | add // 0' "$1"
}

# assert_offwait [merged]: the main thread's off-CPU time under named
# Python frames (>= 99%), read_config()'s and handle()'s each within -5%
# and +1% of what the script measured around their calls; merged
# (--unwind dwarf): the wait's native frames (clock_nanosleep, 3.10's
# select) under the Python function, the script's frames down to the
# native root.
assert_offwait() {
	local all named f got want
	all=$(pyus "$TOOL_OUT" "$WLPID" '.')
	named=$(pyus "$TOOL_OUT" "$WLPID" '^[^ ]+ \(.*\.py:[0-9]+\)$')
	echo "main thread off CPU: $all us, under Python frames $named us"
	assert_between "share under named Python frames" "$(awk -v n="$named" -v a="$all" 'BEGIN { print n / a }')" 0.99 1
	for f in read_config handle; do
		got=$(pyus "$TOOL_OUT" "$WLPID" "^$f \\(.*pywait\\.py:[0-9]+\\)\$")
		want=$(awk -v f="$f" '$1 == f { print $2 * 1e6 }' "$WLOUT")
		echo "$f: $got us off CPU, $want us measured"
		assert_between "$f's off-CPU time / its measured time" \
			"$(awk -v g="$got" -v w="$want" 'BEGIN { print g / w }')" 0.95 1.01
	done
	[ "${1:-}" = merged ] || return 0
	assert_eval_left tid "$all"
	jq -e -s --argjson p "$WLPID" 'def at(re): (map(test(re)) | index(true)) // -1;
		any(.[]; .type == "stack" and .tid == $p and
		(.user_stack | at("^(clock_nanosleep|__select)$") as $c | at("^read_config \\(") as $h |
		 at("^main \\(") as $m | at("^<module> \\(") as $g | at("^__libc_start_call_main$") as $r |
		 $c >= 0 and $c < $h and $h < $m and $m < $g and $g < $r))' "$TOOL_OUT"
}

@test "python: offcputime-lite --python, Debian's python3.11, --unwind dwarf: where each function waits, as measured, merged with the native frames" {
	offwait /usr/bin/python3.11 --unwind dwarf -v
	assert_offwait merged
	grep -E "python: PID $WLPID: CPython 3\.11\.[0-9]+ \(/usr/bin/python3\.11\), _PyRuntime at 0x[0-9a-f]+; offsets of 3\.11 " "$TOOL_ERR"
}

@test "python: offcputime-lite --python, Debian's python3.11 by frame pointers: each function's wait as measured" {
	offwait /usr/bin/python3.11 --unwind fp
	assert_offwait
}

@test "python: offcputime-lite --python, pyenv's CPython 3.10.13, 3.12.1 and 3.13.0, --unwind dwarf: each function's wait as measured, merged" {
	local v
	for v in 3.10.13 3.12.1 3.13.0; do
		offwait "$(pyenv_python "$v")" --unwind dwarf
		assert_offwait merged
	done
}

@test "python: offcputime-lite --python --pprof: each Python function with its file and lines in pprof's fields (go tool pprof: the time, and -list's wait on time.sleep's line)" {
	command -v go >/dev/null || skip "go (golang-go) not installed: scripts/deps.sh test"
	# go tool keeps its caches under HOME (helpers.bash's go() is another)
	export HOME=$BATS_TEST_TMPDIR GOCACHE=$BATS_TEST_TMPDIR/gocache
	local prof=$BATS_TEST_TMPDIR/py.pb.gz f got want sl list
	pyrun /usr/bin/python3.11 "$ROOT/tests/workloads/pywait.py" 3 offcputime-lite -U --python --unwind dwarf --pprof "$prof"
	[ ! -s "$TOOL_OUT" ]
	# each function's off-CPU time as pprof sums it: what the script measured
	for f in read_config handle; do
		got=$(command go tool pprof -top -nodefraction=0 -nodecount=1000 -unit=us "$prof" 2>/dev/null |
			F=$f awk '$6 == ENVIRON["F"] { v = $4; sub(/[a-z]+$/, "", v); print v }')
		want=$(awk -v f="$f" '$1 == f { print $2 * 1e6 }' "$WLOUT")
		echo "$f: $got us in pprof, $want us measured"
		assert_between "$f's time in pprof / measured" "$(awk -v g="${got:-0}" -v w="$want" 'BEGIN { print g / w }')" 0.95 1.01
	done
	# read_config's source, from its file: the wait on time.sleep's line
	sl=$(grep -n 'time.sleep(0.040)' "$ROOT/tests/workloads/pywait.py" | cut -d: -f1)
	list=$(command go tool pprof -list '^read_config$' "$prof" 2>/dev/null)
	echo "$list"
	grep -Eq "^ROUTINE =+ read_config in .*/tests/workloads/pywait\.py$" <<<"$list"
	grep -Eq "^ +\. +[0-9.]+s +$sl: +time\.sleep\(0\.040\)$" <<<"$list"
}

@test "python: profile-lite --off-cpu --python, Debian's python3.11, --unwind dwarf: each function's wait as measured, in the off-CPU stream, merged" {
	local f got want all named
	pyrun /usr/bin/python3.11 "$ROOT/tests/workloads/pywait.py" 3 profile-lite -j -v -F 199 --off-cpu --python --unwind dwarf
	assert_ndjson "$TOOL_OUT"
	# offus REGEX: the off-CPU microseconds of WLPID's stacks with a frame matching REGEX
	offus() {
		jq -s --argjson p "$WLPID" --arg re "$1" '[.[] | select(.type == "stack" and .kind == "off-cpu" and .pid == $p) |
			select((.user_stack // []) | any(test($re))) | .total_us] | add // 0' "$TOOL_OUT"
	}
	all=$(offus '.')
	named=$(offus '^[^ ]+ \(.*\.py:[0-9]+\)$')
	echo "off CPU: $all us, under Python frames $named us"
	assert_between "share under named Python frames" "$(awk -v n="$named" -v a="$all" 'BEGIN { print n / a }')" 0.99 1
	for f in read_config handle; do
		got=$(offus "^$f \\(.*pywait\\.py:[0-9]+\\)\$")
		want=$(awk -v f="$f" '$1 == f { print $2 * 1e6 }' "$WLOUT")
		echo "$f: $got us off CPU, $want us measured"
		assert_between "$f's off-CPU time / its measured time" \
			"$(awk -v g="$got" -v w="$want" 'BEGIN { print g / w }')" 0.95 1.01
	done
	# merged: the wait's native frames under read_config(), the script's frames to the native root
	jq -e -s --argjson p "$WLPID" 'def at(re): (map(test(re)) | index(true)) // -1;
		any(.[]; .type == "stack" and .kind == "off-cpu" and .pid == $p and
		(.user_stack | at("^clock_nanosleep$") as $c | at("^read_config \\(") as $h |
		 at("^main \\(") as $m | at("^<module> \\(") as $g | at("^__libc_start_call_main$") as $r |
		 $c >= 0 and $c < $h and $h < $m and $m < $g and $g < $r))' "$TOOL_OUT"
	# one look at the interpreter for both objects
	[ "$(grep -c "python: PID $WLPID: CPython 3\\.11" "$TOOL_ERR")" = 1 ]
}

# pydio PYTHON ARGS...: tests/workloads/pydio.py under PYTHON (2,000
# O_DIRECT reads of 4 KiB from a file on the root file system in
# read_block()), dstate-lite -j -m 0 -U --python ARGS... -p PID around it.
# Leaves WLPID, TOOL_OUT, TOOL_ERR.
pydio() {
	local py=$1 f=$BATS_TEST_TMPDIR/dio.img go
	shift
	[ -f "$f" ] || { dd if=/dev/urandom of="$f" bs=1M count=8 status=none && sync "$f"; }
	go=$(make_go)
	WLOUT=$BATS_TEST_TMPDIR/wl.out
	"$py" "$ROOT/tests/workloads/pydio.py" "$f" 2000 "$go" >"$WLOUT" &
	WLPID=$!
	wait_ready
	start_tool dstate-lite -j -m 0 -U --python -p "$WLPID" "$@"
	go "$go"
	wait_bounded "$WLPID" 60 pydio.py
	stop_tool INT
	[ "$TOOL_RC" = 0 ]
	assert_ndjson "$TOOL_OUT"
}

# dsleeps REGEX...: WLPID's D sleeps (episodes) whose user stack has frames
# matching each REGEX in turn, leaf to root (as pychain)
dsleeps() {
	jq -s --argjson p "$WLPID" '
		def chain($s; $res): if ($res | length) == 0 then true else
			(($s | map(test($res[0])) | index(true)) // null) as $i |
			$i != null and chain($s[$i + 1:]; $res[1:]) end;
		[.[] | select(.type == "episode" and .pid == $p) |
		 select(chain(.user_stack // []; $ARGS.positional))] | length' "$TOOL_OUT" --args "$@"
}

@test "python: dstate-lite -U --python, Debian's python3.11, --unwind dwarf: each D sleep under the Python function that made it, merged with the native frames" {
	local all named merged
	pydio /usr/bin/python3.11 --unwind dwarf -v
	all=$(dsleeps '.')
	named=$(dsleeps '^read_block \(.*pydio\.py:[0-9]+\)$' '^main \(.*pydio\.py:[0-9]+\)$')
	merged=$(dsleeps '^preadv' '^read_block \(' '^main \(' '^<module> \(' '^__libc_start_call_main$')
	echo "D sleeps $all, under read_block() under main() $named, merged to the native root $merged"
	jq -c --argjson p "$WLPID" 'select(.type == "episode" and .pid == $p) | .user_stack' "$TOOL_OUT" | sort | uniq -c | sort -rn | head -3
	[ "$all" -ge 500 ]
	assert_share "sleeps under read_block() under main()" "$named" "$all" 0.99
	assert_share "sleeps merged to the native root" "$merged" "$all" 0.99
	grep -E "python: PID $WLPID: CPython 3\.11\.[0-9]+ \(/usr/bin/python3\.11\)" "$TOOL_ERR"
}

@test "python: dstate-lite -U --python, Debian's python3.11 by frame pointers: each D sleep under the Python function that made it, above the native leaf" {
	local all named
	pydio /usr/bin/python3.11 --unwind fp
	all=$(dsleeps '.')
	named=$(dsleeps '^read_block \(.*pydio\.py:[0-9]+\)$' '^main \(.*pydio\.py:[0-9]+\)$' '^<module> \(')
	echo "D sleeps $all, under read_block() under main() $named"
	[ "$all" -ge 500 ]
	assert_share "sleeps under read_block() under main()" "$named" "$all" 0.99
}

@test "python: offcputime-lite --python: not with -K, a clear error; -K alone turns the default off" {
	run -2 "$BIN/offcputime-lite" --python -K 1
	[[ "$output" == *"--python needs user stacks (not with -K)"* ]]
	run -2 "$BIN/dstate-lite" --python 1
	[[ "$output" == *"--python names user stacks: it needs -U"* ]]
	run -0 --separate-stderr "$BIN/offcputime-lite" -K 1
	[[ "$stderr" != *python* ]]
}

@test "python: --no-python: native frames only, the eval loop's frames kept (Debian's python3.11, profile-lite and offcputime-lite)" {
	local t all eval samples
	WLOUT=$BATS_TEST_TMPDIR/wl.out
	/usr/bin/python3.11 -c 'import time
print("ready", flush=True)
while True:
    sum(range(100000))
    time.sleep(0.001)' >"$WLOUT" &
	WLPID=$!
	wait_ready
	for t in profile-lite offcputime-lite; do
		if [ "$t" = profile-lite ]; then
			start_tool profile-lite -j -U -F 199 --no-python -p "$WLPID" 2
		else
			start_tool offcputime-lite -j -U --no-python -p "$WLPID" 2
		fi
		wait_tool
		[ "$TOOL_RC" = 0 ]
		assert_ndjson "$TOOL_OUT"
		all=$(jq -s --argjson p "$WLPID" '[.[] | select(.type == "stack" and .pid == $p)] | length' "$TOOL_OUT")
		samples=$(pysamples "$TOOL_OUT" "$WLPID" '.')
		eval=$(pysamples "$TOOL_OUT" "$WLPID" '^_PyEval_EvalFrameDefault$')
		echo "$t: $all stacks; samples $samples, in the eval loop $eval"
		[ "$all" -ge 1 ]
		[ "$(jq -s --argjson p "$WLPID" '[.[] | select(.type == "stack" and .pid == $p and
			((.user_stack // []) | any(test("\\.py:[0-9]+\\)$|^\\[python|^\\[missed python"))))] | length' "$TOOL_OUT")" = 0 ]
		# on CPU the script runs in the eval loop: every sample under its frame
		[ "$t" = offcputime-lite ] || { [ "$samples" -ge 20 ] &&
			assert_share "samples in the eval loop" "$eval" "$samples" 0.95; }
	done
}
