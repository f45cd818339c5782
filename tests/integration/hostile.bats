#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Tools run as root next to processes and files they do not control.
#   Untrusted text: tests/workloads/hostile names itself, its files, its
#   exec'd program and its argv with a newline, ESC [ 2 J, ';', 0xff and
#   a C1 CSI; no tool may print any of them raw, in any mode.
#   Untrusted files: a FIFO at /tmp/perf-PID.map, a .gnu_debuglink that
#   names a FIFO or a symlink to /proc/kmsg: the stack tools finish on
#   time, name what they can and say under -v what they skipped and why.

load helpers

setup() {
	require_root
}

# No byte a terminal would obey: C0 controls but '\n' ending lines, DEL,
# C1 controls (as UTF-8), and the whole file is valid UTF-8.
assert_no_raw_control() {
	local f=$1 n
	n=$(LC_ALL=C tr -d '\n\040-\176\200-\377' <"$f" | wc -c)
	[ "$n" = 0 ] || { echo "$f: $n raw control bytes:" >&2; LC_ALL=C grep -n $'[\x01-\x09\x0b-\x1f\x7f]' "$f" | cat -v >&2; return 1; }
	if LC_ALL=C grep -q $'\xc2[\x80-\x9f]' "$f"; then
		echo "$f: a raw C1 control" >&2
		return 1
	fi
	iconv -f UTF-8 -t UTF-8 "$f" >/dev/null || { echo "$f: invalid UTF-8" >&2; return 1; }
}

# hostile_run TOOL TOOL_ARGS...: the workload under TOOL (an argument
# "WLPID" becomes its PID); leaves WLPID, WLOUT and the tool's
# TOOL_OUT/TOOL_ERR. The tool is stopped after the workload ends.
hostile_run() {
	local tool=$1 go a args=()
	shift
	go=$(make_go)
	WLOUT=$BATS_TEST_TMPDIR/wl.json
	"$WL/hostile" -d "$BATS_TEST_TMPDIR" -g "$go" >"$WLOUT" &
	WLPID=$!
	for a in "$@"; do
		[ "$a" = WLPID ] && a=$WLPID
		args+=("$a")
	done
	start_tool "$tool" "${args[@]}"
	go "$go"
	wait "$WLPID"
	sleep 0.3
	stop_tool INT
	[ "$TOOL_RC" = 0 ]
	assert_no_raw_control "$TOOL_OUT"
	assert_no_raw_control "$TOOL_ERR"
}

# The strings as the text printers show them.
ESC_COMM='h\n\x1b[2J;\xff'
ESC_FILE='f\n\x1b[2J;\xff\xc2\x9b.txt'
ESC_ARG='a\n\x1b[2J;\xff\xc2\x9b'
ESC_EXE='e\n\x1b[2J;\xff'
# In folded lines ';' is escaped too.
FOLD_COMM='h\n\x1b[2J\x3b\xff'

# A folded line of TOOL_OUT that starts with the comm $1 and holds frame $2.
folded_line() {
	C=$1 F=$2 awk 'index($0, ENVIRON["C"] ";") == 1 && index($0, ";" ENVIRON["F"] ";")' "$TOOL_OUT" | grep .
}

@test "hostile text: opensnoop-lite text shows comm and path escaped, one line per open" {
	hostile_run opensnoop-lite
	# PID COMM FD ERR PATH: the workload's 3 opens, each one whole line
	run grep -cF -- "$ESC_FILE" "$TOOL_OUT"
	[ "$output" = 3 ]
	n=$(C=$ESC_COMM awk -v p="$WLPID" '$1 == p && $2 == ENVIRON["C"] && NF == 5' "$TOOL_OUT" |
		grep -cF -- "$ESC_FILE")
	[ "$n" = 3 ]
}

@test "hostile text: opensnoop-lite -j keeps the exact strings" {
	hostile_run opensnoop-lite -j
	assert_ndjson "$TOOL_OUT"
	n=$(jq -s --argjson p "$WLPID" '[.[] | select(.pid == $p and .comm == "h\n\u001b[2J;\ufffd" and (.path | endswith("f\n\u001b[2J;\ufffd\u009b.txt")))] | length' "$TOOL_OUT")
	[ "$n" = 3 ]
}

@test "hostile text: execsnoop-lite text escapes PCOMM and argv" {
	hostile_run execsnoop-lite
	expid=$(jq .exec_pid "$WLOUT")
	# PCOMM PID PPID RET ARGS: one line, comm and argv escaped
	run awk -v p="$expid" '$2 == p' "$TOOL_OUT"
	echo "$output"
	[ "${#lines[@]}" = 1 ]
	[ "$(echo "$output" | awk '{print $1}')" = "$ESC_EXE" ]
	[[ "$output" == *"$ESC_ARG"* ]]
}

@test "hostile text: execsnoop-lite -j keeps the exact strings" {
	hostile_run execsnoop-lite -j
	assert_ndjson "$TOOL_OUT"
	expid=$(jq .exec_pid "$WLOUT")
	jq -se --argjson p "$expid" 'map(select(.pid == $p and .pcomm == "e\n\u001b[2J;\ufffd" and .args[1] == "a\n\u001b[2J;\ufffd\u009b")) | length == 1' "$TOOL_OUT"
}

# Folded lines: "frame;frame;... count", no empty frame, the count last;
# the one comment is the count's unit.
assert_folded() {
	local f=$1
	[ -s "$f" ]
	[ "$(head -1 "$f")" = "# countname us" ]
	run grep -cvE '^[^;]+(;[^;]+)* [0-9]+$|^# countname us$' "$f"
	[ "$output" = 0 ] || { grep -vE '^[^;]+(;[^;]+)* [0-9]+$|^# countname us$' "$f" | cat -v >&2; return 1; }
}

@test "hostile text: offcputime-lite multi-line, folded and JSON" {
	hostile_run offcputime-lite -p WLPID
	grep -qF -- "$ESC_COMM ($WLPID)" "$TOOL_OUT"
	hostile_run offcputime-lite -f -p WLPID
	assert_folded "$TOOL_OUT"
	folded_line "$FOLD_COMM" hostile_sleep_fn
	hostile_run offcputime-lite -j -p WLPID
	assert_ndjson "$TOOL_OUT"
	jq -se 'map(select(.type == "stack" and .comm == "h\n\u001b[2J;\ufffd" and (.user_stack | index("hostile_sleep_fn")))) | length > 0' "$TOOL_OUT"
}

@test "hostile text: dstate-lite episodes, folded and JSON (comm and waker comm)" {
	hostile_run dstate-lite -m 50 -p WLPID
	grep -F -- "$ESC_COMM" "$TOOL_OUT" | grep -q "D(killable)"
	grep -qF -- "by $ESC_COMM " "$TOOL_OUT"
	hostile_run dstate-lite -f -p WLPID
	assert_folded "$TOOL_OUT"
	# comm first, waker comm last
	folded_line "$FOLD_COMM" -- | grep -F -- ";$FOLD_COMM "
	hostile_run dstate-lite -j -m 50 -p WLPID
	assert_ndjson "$TOOL_OUT"
	jq -se 'map(select(.type == "episode" and .comm == "h\n\u001b[2J;\ufffd" and .waker.comm == "h\n\u001b[2J;\ufffd")) | length > 0' "$TOOL_OUT"
}
