#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# strace-lite against sysload, a static workload that makes exact numbers
# of system calls (tests/workloads/sysload.c).

load helpers
bats_require_minimum_version 1.5.0

setup() {
	require_root
	SL=$WL/sysload
	WLP=
}

# A long-running workload must not outlive a failed test.
teardown() {
	[ -n "$WLP" ] && kill "$WLP" 2>/dev/null
	[ -n "${TOOL_PID:-}" ] && kill "$TOOL_PID" 2>/dev/null
	[ -n "${NOBODY_DIR:-}" ] && rm -rf "$NOBODY_DIR"
	true
}

# Calls of one syscall in a JSON summary: count NAME [field]
count() { jq -s --arg n "$1" --arg f "${2:-calls}" '[.[] | select(.type=="summary") | .syscalls[] | select(.syscall==$n) | .[$f]] | add // 0' "$OUT"; }

# summary_run TOOL_ARGS... -- runs sysload in command mode under -c -j.
summary_run() {
	OUT=$BATS_TEST_TMPDIR/out.json
	run "$BIN/strace-lite" -c -j -o "$OUT" "$@"
	echo "$output"
	[ "$status" = 0 ]
	assert_ndjson "$OUT"
}

check_exact_counts() {
	[ "$(count getppid)" = 100000 ]
	[ "$(count read)" = 5000 ]
	# 3 writes to /dev/null and the final JSON line to stdout
	[ "$(count write)" = 4 ]
	# /dev/zero, /dev/null, and the failing one
	[ "$(count openat)" = 3 ]
	[ "$(count openat errors)" = 1 ]
	# exit_group never returns: strace 6.1's -c does not list it
	[ "$(count exit_group)" = 0 ]
	jq -se '[.[] | select(.type=="summary")][0].total.calls > 105000' "$OUT"
}

# bats test_tags=smoke, vm
@test "strace: -c counts the workload's calls exactly (tp_btf)" {
	summary_run --debug "$SL" -n 100000 -r 5000 -w 3 -F 1
	grep -q "loader: light" <<<"$output"
	grep -q "attach sys_enter: tp_btf" <<<"$output"
	grep -q "per-task state: task storage" <<<"$output"
	check_exact_counts
}

# bats test_tags=vm
@test "strace: -c counts exactly on the forced raw_tp path" {
	summary_run --debug --force-raw-tp "$SL" -n 100000 -r 5000 -w 3 -F 1
	grep -q "loader: light" <<<"$output"
	grep -q "attach sys_enter: raw_tp (forced)" <<<"$output"
	grep -q "per-task state: hash by tid" <<<"$output"
	check_exact_counts
}

@test "strace: -c counts exactly through the forced libbpf skeleton" {
	summary_run --debug --force-libbpf "$SL" -n 100000 -r 5000 -w 3 -F 1
	grep -q "loader: libbpf skeleton (forced)" <<<"$output"
	grep -q "attach sys_enter: tp_btf" <<<"$output"
	check_exact_counts
}

@test "strace: -c text summary in strace's layout, -S calls, -L histograms" {
	run "$BIN/strace-lite" -c -S calls -L -o "$BATS_TEST_TMPDIR/s.txt" "$SL" -n 20000 -r 700 -w 3 -F 2
	[ "$status" = 0 ]
	local f=$BATS_TEST_TMPDIR/s.txt
	cat "$f"
	grep -q '^% time     seconds  usecs/call     calls    errors syscall$' "$f"
	grep -q '^------ ----------- ----------- --------- --------- ----------------$' "$f"
	grep -Eq '^ *[0-9.]+ +[0-9.]+ +[0-9]+ +20000 +getppid$' "$f"
	grep -Eq '^ *[0-9.]+ +[0-9.]+ +[0-9]+ +700 +read$' "$f"
	grep -Eq '^ *[0-9.]+ +[0-9.]+ +[0-9]+ +4 +2 openat$' "$f"
	grep -Eq '^100.00 +[0-9.]+ +[0-9]+ +[0-9]+ +[0-9]+ total$' "$f"
	# -S calls: getppid (most calls) is the first row
	[ "$(sed -n 3p "$f" | awk '{print $NF}')" = getppid ]
	grep -q '^syscall = getppid$' "$f"
	grep -q 'usecs               : count     distribution' "$f"
}

# seconds FILE NAME: the seconds column of NAME's row in a -c text summary (0 when none)
seconds() { awk -v n="$2" '$NF == n { s = $2 } END { print s + 0 }' "$1"; }

# zero_rows FILE: the names of a -c table's rows of 0 seconds, in its
# order; all_rows FILE: the names of all its rows
zero_rows() { awk '$2 == "0.000000" && $NF != "total" { print $NF }' "$1"; }
all_rows() { awk '$1 ~ /^[0-9.]+$/ && $NF != "total" { print $NF }' "$1"; }

@test "strace: -c lists calls of equal time in syscall number order, as strace" {
	local a=$BATS_TEST_TMPDIR/strace.txt b=$BATS_TEST_TMPDIR/lite.txt
	command -v strace >/dev/null || skip "no strace"
	# strace's table unsorted: syscall number order, whatever the times
	strace -c -S nothing -o "$a" ls / >/dev/null
	"$BIN/strace-lite" -c -o "$b" ls / >/dev/null
	cat "$a" "$b"
	# our calls of 0 s (system time in ticks: most of them), in our order
	# and in strace's, of the calls both list
	grep -Fxf <(all_rows "$a") <(zero_rows "$b") >"$b.zero" || true
	grep -Fxf "$b.zero" <(all_rows "$a") >"$a.zero" || true
	[ "$(wc -l <"$b.zero")" -ge 5 ]
	diff "$a.zero" "$b.zero"
}

@test "strace: -c sums system time, -w wall time, and lists no exit_group, as strace 6.1" {
	command -v strace >/dev/null || skip "no strace"
	local a=$BATS_TEST_TMPDIR/a b=$BATS_TEST_TMPDIR/b w r
	# a call that sleeps 0.4 s: wall time, next to no system time
	strace -c -o "$a" sleep 0.4
	run "$BIN/strace-lite" -c -o "$b" sleep 0.4
	[ "$status" = 0 ]
	cat "$a" "$b"
	assert_between "strace's sleep" "$(seconds "$a" clock_nanosleep)" 0 0.02
	assert_between "our sleep" "$(seconds "$b" clock_nanosleep)" 0 0.02
	run ! grep -q exit_group "$a"
	run ! grep -q exit_group "$b"
	strace -c -w -o "$a" sleep 0.4
	run "$BIN/strace-lite" -c -w -o "$b" sleep 0.4
	[ "$status" = 0 ]
	cat "$a" "$b"
	assert_between "strace -w's sleep" "$(seconds "$a" clock_nanosleep)" 0.39 1
	assert_between "our -w sleep" "$(seconds "$b" clock_nanosleep)" 0.39 1
	run ! grep -q exit_group "$b"
	# calls that work in the kernel (reads of /dev/zero): their system time
	# is most of their wall time, to the tick (4 ms here) it is counted by
	run "$BIN/strace-lite" -c -w -e trace=read -o "$a" dd if=/dev/zero of=/dev/null bs=4M count=4000
	[ "$status" = 0 ]
	run "$BIN/strace-lite" -c -e trace=read -o "$b" dd if=/dev/zero of=/dev/null bs=4M count=4000
	[ "$status" = 0 ]
	cat "$a" "$b"
	w=$(seconds "$a" read)
	r=$(seconds "$b" read)
	assert_between "-w reads" "$w" 0.05 30
	assert_between "reads' system time" "$r" "$(awk -v w="$w" 'BEGIN { print w * 0.3 }')" \
		"$(awk -v w="$w" 'BEGIN { print w * 2 + 0.02 }')"
}

# check_short_trace TOOL_ARGS...: the trace of a short sysload run, line by line.
check_short_trace() {
	local out=$BATS_TEST_TMPDIR/t.txt wl ppid z n
	run "$BIN/strace-lite" "$@" -e trace=openat,read,write,getppid,exit_group -o "$out" \
		"$SL" -n 3 -r 3 -w 2 -F 1
	[ "$status" = 0 ]
	cat "$out"
	wl=$(echo "$output" | grep '^{')
	ppid=$(echo "$wl" | jq .ppid)
	z=$(echo "$wl" | jq .zero_fd)
	n=$(echo "$wl" | jq .null_fd)
	cat >"$BATS_TEST_TMPDIR/want" <<-EOF
	openat(AT_FDCWD, "/dev/zero", O_RDONLY) = $z
	read($z, "\\0", 1) = 1
	read($z, "\\0", 1) = 1
	read($z, "\\0", 1) = 1
	openat(AT_FDCWD, "/dev/null", O_WRONLY) = $n
	write($n, "x", 1) = 1
	write($n, "x", 1) = 1
	openat(AT_FDCWD, "/nonexistent/sysload", O_RDONLY) = -1 ENOENT (No such file or directory)
	getppid() = $ppid
	getppid() = $ppid
	getppid() = $ppid
	WRITE
	exit_group(0) = ?
	+++ exited with 0 +++
	EOF
	# the JSON line: cut at -s 32 as strace does, with its full length returned
	# strace's alignment of " = " at column 40 aside
	sed -i -E 's/ +=/ =/' "$out"
	sed -E 's/^write\(1, "\{\\"pid\\":.*"\.\.\., ([0-9]+)\) = \1$/WRITE/' "$out" >"$BATS_TEST_TMPDIR/got"
	diff "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/got"
}

# bats test_tags=vm
@test "strace: trace mode prints every call in order with return values, paths and flags" {
	check_short_trace
}

# bats test_tags=vm
@test "strace: the same trace on the forced raw_tp path" {
	check_short_trace --force-raw-tp
}

@test "strace: the same trace through the forced libbpf skeleton" {
	check_short_trace --force-libbpf
}

@test "strace: execve with its argv, -s, -T, -tt, -y" {
	local out=$BATS_TEST_TMPDIR/t.txt
	run "$BIN/strace-lite" -e trace=execve,read,write -s 8 -T -tt -y -o "$out" \
		"$SL" -n 0 -r 1 -w 1 -F 0 -S 300
	[ "$status" = 0 ]
	cat "$out"
	# envp as strace shows it: its address and "/* N vars */"
	local nenv
	nenv=$(env -0 | tr -cd '\0' | wc -c)
	# argv: -s 8 strings of 13, each cut at 8 bytes, as strace
	grep -Eq '^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6} execve\(".*/sysload", \["[^"]*"(\.\.\.)?, "-n", "0", "-r", "1", "-w", "1", "-F", \.\.\.\], 0x[0-9a-f]+ /\* '"$nenv"' vars \*/\) = 0 <[0-9]+\.[0-9]{6}>$' "$out"
	grep -Eq ' read\([0-9]+</dev/zero>, "\\0", 1\) = 1 <[0-9]+\.[0-9]{6}>$' "$out"
	grep -Eq ' write\([0-9]+</dev/null>, "x", 1\) = 1 <' "$out"
	# -s 8 cuts the JSON line
	grep -Eq ' write\(1(<[^>]*>)?, "\{\\"pid\\":[0-9]?"\.\.\., [0-9]+\) = [0-9]+ <' "$out"
}

@test "strace: -j trace events filtered by -e trace=%file and negation" {
	local out=$BATS_TEST_TMPDIR/t.json
	run "$BIN/strace-lite" -j -e trace=%file -o "$out" "$SL" -n 5 -r 5 -w 5 -F 3
	[ "$status" = 0 ]
	assert_ndjson "$out"
	[ "$(jq -s '[.[] | select(.syscall=="openat" and .args[1]=="\"/nonexistent/sysload\"" and .error=="ENOENT" and .ret==-2)] | length' "$out")" = 3 ]
	[ "$(jq -s '[.[] | select(.syscall=="read" or .syscall=="write" or .syscall=="getppid")] | length' "$out")" = 0 ]

	run "$BIN/strace-lite" -j -e 'trace=!getppid,read' -o "$out" "$SL" -n 50 -r 50 -w 5 -F 1
	[ "$status" = 0 ]
	[ "$(jq -s '[.[] | select(.syscall=="getppid" or .syscall=="read")] | length' "$out")" = 0 ]
	[ "$(jq -s '[.[] | select(.syscall=="write" and .args[1]=="\"x\"")] | length' "$out")" = 5 ]

	run "$BIN/strace-lite" -j -e trace=%desc -o "$out" "$SL" -n 50 -r 7 -w 5 -F 1
	[ "$(jq -s '[.[] | select(.syscall=="read")] | length' "$out")" = 7 ]
	[ "$(jq -s '[.[] | select(.syscall=="getppid")] | length' "$out")" = 0 ]
}

@test "strace: -Z shows only failed calls, -z only successful ones" {
	local out=$BATS_TEST_TMPDIR/t.json
	run "$BIN/strace-lite" -j -Z -o "$out" "$SL" -n 10 -r 10 -w 2 -F 4
	[ "$status" = 0 ]
	[ "$(jq -s '[.[] | select(.type=="syscall" and (.error == null))] | length' "$out")" = 0 ]
	[ "$(jq -s '[.[] | select(.syscall=="openat" and .error=="ENOENT")] | length' "$out")" = 4 ]
	run "$BIN/strace-lite" -j -z -o "$out" "$SL" -n 10 -r 10 -w 2 -F 4
	[ "$status" = 0 ]
	[ "$(jq -s '[.[] | select(.error != null)] | length' "$out")" = 0 ]
	[ "$(jq -s '[.[] | select(.syscall=="read")] | length' "$out")" = 10 ]
	# status= spelling, and in -c mode
	OUT=$BATS_TEST_TMPDIR/c.json
	run "$BIN/strace-lite" -c -j -e status=failed -o "$OUT" "$SL" -n 10 -r 10 -w 2 -F 4
	[ "$(count openat)" = 4 ]
	[ "$(count read)" = 0 ]
}

@test "strace: -f sees a thread's and a child's calls; without -f it does not" {
	local out=$BATS_TEST_TMPDIR/t.json wl
	run "$BIN/strace-lite" -f -j -e trace=getuid,getgid -o "$out" "$SL" -n 0 -r 0 -w 0 -F 0 -t 50 -c 40
	[ "$status" = 0 ]
	wl=$(echo "$output" | grep '^{')
	local tid child
	tid=$(echo "$wl" | jq .thread_tid)
	child=$(echo "$wl" | jq .child)
	[ "$(jq -s --argjson t "$tid" '[.[] | select(.syscall=="getuid" and .tid==$t)] | length' "$out")" = 50 ]
	[ "$(jq -s --argjson p "$child" '[.[] | select(.syscall=="getgid" and .pid==$p)] | length' "$out")" = 40 ]
	[ "$(jq -s --argjson p "$child" '[.[] | select(.type=="exit" and .pid==$p and .status==7)] | length' "$out")" = 1 ]
	# text: "PID " prefixes in a -o file, "[pid PID] " on stderr, as strace's
	run "$BIN/strace-lite" -f -e trace=getgid -o "$BATS_TEST_TMPDIR/t.txt" "$SL" -n 0 -r 0 -w 0 -F 0 -c 3
	grep -Eq '^[0-9]+ +getgid\(\) += 0$' "$BATS_TEST_TMPDIR/t.txt"
	grep -Eq '^[0-9]+ +\+\+\+ exited with 7 \+\+\+$' "$BATS_TEST_TMPDIR/t.txt"
	run --separate-stderr "$BIN/strace-lite" -f -e trace=getgid "$SL" -n 0 -r 0 -w 0 -F 0 -c 3
	grep -Eq '^\[pid +[0-9]+\] getgid\(\) += 0$' <<<"$stderr"

	OUT=$BATS_TEST_TMPDIR/c.json
	summary_run -e trace=getuid,getgid "$SL" -n 0 -r 0 -w 0 -F 0 -t 50 -c 40
	[ "$(count getuid)" = 0 ]
	[ "$(count getgid)" = 0 ]
	summary_run -f -e trace=getuid,getgid "$SL" -n 0 -r 0 -w 0 -F 0 -t 50 -c 40
	[ "$(count getuid)" = 50 ]
	[ "$(count getgid)" = 40 ]
}

@test "strace: -p attaches to running processes and ends when they exit" {
	local go1 go2 p1 p2
	go1=$(make_go)
	go2=$(make_go)
	"$SL" -n 30000 -r 100 -w 1 -F 1 -g "$go1" >/dev/null &
	p1=$!
	"$SL" -n 20000 -r 100 -w 1 -F 1 -g "$go2" >/dev/null &
	p2=$!
	start_tool strace-lite -c -j -p "$p1,$p2"
	go "$go1" & go "$go2"
	wait "$p1" "$p2"
	# the tool ends by itself once both are gone
	for _ in $(seq 50); do kill -0 "$TOOL_PID" 2>/dev/null || break; sleep 0.1; done
	wait_tool
	[ "$TOOL_RC" = 0 ]
	OUT=$TOOL_OUT
	[ "$(count getppid)" = 50000 ]
	# and each one's read of its go FIFO
	[ "$(count read)" = 202 ]
}

@test "strace: -p on a process already busy making calls traces it from the attach on" {
	local p n
	# it calls before and while -p lists it: its thread must see the
	# traced set again once it is in it
	"$SL" -n 100000000 -r 0 -w 0 -F 0 >/dev/null &
	p=$!
	WLP=$p
	start_tool strace-lite -c -p "$p"
	sleep 1
	stop_tool INT
	kill "$p"; wait "$p" || true
	[ "$TOOL_RC" = 0 ]
	n=$(awk '$NF == "getppid" {print $4}' "$TOOL_ERR")
	echo "getppid calls seen in a second: ${n:-none}"
	[ "${n:-0}" -gt 1000 ]
}

# IDs of loaded programs with strace-lite's names (others' come and go on a shared machine).
strace_progs() {
	bpftool prog show -j 2>/dev/null | jq -r '.[] | select(.name | test("^(sys_enter|sys_exit|sched_switch|sched_process_fork|sched_process_exit|signal_deliver)_(btf|raw)$")) | .id' | sort -n
}

@test "strace: -p stopped by SIGINT prints the summary, exit 0, leaves no BPF behind" {
	local before mine go p left
	before=$(strace_progs)
	go=$(make_go)
	"$SL" -n 1000 -r 0 -w 0 -F 0 -S 30000 -g "$go" >/dev/null &
	p=$!
	WLP=$p
	start_tool strace-lite -c -p "$p"
	# the ones that appeared with the tool: sys_enter, sys_exit, fork, exit, signal
	# (by exact id: sorted numerically, 999 and 1000 would confuse comm)
	mine=$(strace_progs | grep -vxF -f <(echo "$before") || true)
	[ "$(echo "$mine" | wc -w)" -ge 5 ]
	go "$go"
	sleep 0.5
	stop_tool INT
	kill "$p"; wait "$p" || true
	[ "$TOOL_RC" = 0 ]
	# the summary goes where strace puts it: stderr
	cat "$TOOL_ERR"
	grep -Eq '^ *[0-9.]+ +[0-9.]+ +[0-9]+ +1000 +getppid$' "$TOOL_ERR"
	# its programs are gone (freed after an RCU grace period)
	for _ in $(seq 50); do
		left=$(bpftool prog show -j 2>/dev/null | jq -r '.[].id' | grep -Fxf <(echo "$mine") || true)
		[ -z "$left" ] && break
		sleep 0.1
	done
	[ -z "$left" ]
}

@test "strace: -u USER runs the command as USER; without a command traces USER's processes" {
	local out=$BATS_TEST_TMPDIR/u.txt go wp
	# nobody runs the workload from a folder it can reach: the checkout
	# may sit under one it cannot (a mktemp -d of mode 0700)
	NOBODY_DIR=$(mktemp -d /tmp/bpflite-nobody.XXXXXX)
	chmod 755 "$NOBODY_DIR"
	cp "$SL" "$NOBODY_DIR/sysload"
	SL=$NOBODY_DIR/sysload
	run "$BIN/strace-lite" -u nobody -e trace=getppid -o "$out" "$SL" -n 3 -r 0 -w 0 -F 0
	echo "$output"
	[ "$status" = 0 ]
	[ "$(grep -c '^getppid() ' "$out")" = 3 ]
	run "$BIN/strace-lite" -u 65534 -e trace=none sh -c 'id -u'
	[ "$(echo "$output" | grep -x 65534)" = 65534 ]

	command -v setpriv >/dev/null || skip "no setpriv"
	go=$(mktemp -u /tmp/strace-lite-go.XXXXXX)
	mkfifo -m 666 "$go"
	setpriv --reuid 65534 --regid 65534 --clear-groups "$SL" -n 4321 -r 7 -w 0 -F 0 -g "$go" >/dev/null &
	wp=$!
	WLP=$wp
	start_tool strace-lite -c -j -u nobody
	go "$go"
	wait "$wp"
	sleep 0.2
	stop_tool INT
	rm -f "$go"
	[ "$TOOL_RC" = 0 ]
	OUT=$TOOL_OUT
	# other processes of nobody may run too: at least the workload's calls
	[ "$(count getppid)" -ge 4321 ]
	[ "$(count getppid)" -lt 4400 ]
	expect_fail 2 "unknown user 'nosuchuser'" "$BIN/strace-lite" -u nosuchuser
}

@test "strace: command mode exits with the command's status or 128+signal" {
	run "$BIN/strace-lite" -c -o /dev/null "$SL" -n 1 -r 0 -w 0 -F 0 -x 42
	[ "$status" = 42 ]
	run "$BIN/strace-lite" -o "$BATS_TEST_TMPDIR/k.txt" sh -c 'kill -TERM $$'
	[ "$status" = 143 ]
	grep -q '^+++ killed by SIGTERM +++$' "$BATS_TEST_TMPDIR/k.txt"
	# the child's stdout is its own; the trace went to -o
	run "$BIN/strace-lite" -o /dev/null echo hello-from-child
	[ "$status" = 0 ]
	[ "$(echo "$output" | grep -c hello-from-child)" = 1 ]
	expect_fail 1 "failed to run '/nonexistent/cmd': No such file or directory" "$BIN/strace-lite" /nonexistent/cmd
}

@test "strace: signals delivered are shown as strace shows them" {
	local out=$BATS_TEST_TMPDIR/s.txt
	run "$BIN/strace-lite" -e trace=kill -o "$out" sh -c 'trap "true" USR1; kill -USR1 $$; kill -TERM $$'
	[ "$status" = 143 ]
	cat "$out"
	grep -Eq '^kill\([0-9]+, SIGUSR1\) += 0$' "$out"
	grep -Eq '^--- SIGUSR1 \{si_signo=SIGUSR1, si_code=SI_USER, si_pid=[0-9]+, si_uid=0\} ---$' "$out"
	grep -q '^+++ killed by SIGTERM +++$' "$out"
	# a fatal signal is not shown as a delivery (the kernel's is a synthetic SIGKILL)
	refute grep -q -- '--- SIGKILL' "$out"
	run "$BIN/strace-lite" -f -j -e trace=none -o "$out" sh -c '/bin/true; exit 0'
	[ "$status" = 0 ]
	jq -se '[.[] | select(.type=="signal" and .signal=="SIGCHLD" and .si_code=="CLD_EXITED")] | length == 1' "$out"
}

@test "strace: ia32 calls are named as such" {
	local out=$BATS_TEST_TMPDIR/t.txt rc=0
	# a kernel built without ia32 emulation, or booted with it off, ends
	# an int $0x80 in SIGSEGV: probe it with one call, untraced
	"$SL" -n 0 -r 0 -w 0 -F 0 -i 1 || rc=$?
	[ "$rc" != 139 ] || skip "ia32 calls cannot run on this kernel (int \$0x80 ends in SIGSEGV: no ia32 emulation)"
	[ "$rc" = 0 ]
	run "$BIN/strace-lite" -e trace=ia32:getpid,getppid -o "$out" "$SL" -n 2 -r 0 -w 0 -F 0 -i 3
	[ "$status" = 0 ]
	cat "$out"
	[ "$(grep -c '^ia32:getpid() \+= [0-9]\+$' "$out")" = 3 ]
	[ "$(grep -c '^getppid() \+= ' "$out")" = 2 ]
	OUT=$BATS_TEST_TMPDIR/c.json
	summary_run "$SL" -n 2 -r 0 -w 0 -F 0 -i 3
	[ "$(count ia32:getpid)" = 3 ]
}

@test "strace: a storm in trace mode: every call reported or counted as lost" {
	local out=$BATS_TEST_TMPDIR/t.json n lost
	run "$BIN/strace-lite" -j -e trace=getppid -o "$out" "$SL" -n 300000 -r 0 -w 0 -F 0
	[ "$status" = 0 ]
	n=$(jq -s '[.[] | select(.syscall=="getppid")] | length' "$out")
	lost=$(echo "$output" | sed -n 's/.*warning: \([0-9]*\) events lost.*/\1/p' | head -1)
	echo "records $n lost ${lost:-0}"
	# exactly: a tool that over-counts its loss fails as one that drops
	[ $((n + ${lost:-0})) = 300000 ]
	if [ -n "$lost" ]; then
		jq -se '[.[] | select(.type=="loss")] | length == 1' "$out"
		echo "$output" | grep -Eq "warning: pid [0-9]+: [0-9]+ events lost"
	fi
}

# sw_lines FILE: cat's read and write of the test's file (310 or 20 bytes), strace's column aside
sw_lines() { grep -E '^(read\([0-9]+|write\(1), .* += (310|20)$' "$1" | sed -E 's/ +=/ =/'; }

# beside_strace PICK N OPTS CMD...: strace and strace-lite with the options
# OPTS (split at spaces) on CMD; PICK FILE picks N lines of each trace, the same
beside_strace() {
	local pick=$1 n=$2 opts=$3 a=$BATS_TEST_TMPDIR/a b=$BATS_TEST_TMPDIR/b
	shift 3
	# shellcheck disable=SC2086 # the options, word-split
	strace $opts -o "$a" "$@" >/dev/null
	# shellcheck disable=SC2086
	run "$BIN/strace-lite" $opts -o "$b" "$@"
	[ "$status" = 0 ] || { echo "$opts: $output"; return 1; }
	"$pick" "$a" >"$a.l"
	"$pick" "$b" >"$b.l"
	[ "$(wc -l <"$a.l")" = "$n" ] || { echo "$opts: strace's trace"; cat "$a"; return 1; }
	diff "$a.l" "$b.l" || { echo "options: $opts"; return 1; }
}

# execve_line FILE: the execve of /bin/echo, its addresses and the " = " column aside
execve_line() { grep -E '^execve\("/bin/echo", ' "$1" | sed -E 's/0x[0-9a-f]+/ADDR/g; s/ +=/ =/'; }

# bats test_tags=vm
@test "strace: execve's argv in full, cut at -s strings of -s bytes, envp with -v, as strace prints them" {
	command -v strace >/dev/null || skip "no strace"
	local b=$BATS_TEST_TMPDIR/b long n
	long=$(printf '%050d' 7)
	# 44 strings: more than -s 32, one longer than 32 bytes, an empty one
	# shellcheck disable=SC2207 # seq's words, one string each
	local cmd=(env -i A=1 "B=$long" /bin/echo $(seq -f a%g 1 40) "$long" "" short)
	for s in "" "-s 0" "-s 5" "-s 33" "-s 100" "-v" "-v -s 5" "-v -s 0"; do
		beside_strace execve_line 1 "$s -e trace=execve" "${cmd[@]}"
	done
	# and without strace: the default shows 32 strings and "..."
	run "$BIN/strace-lite" -e trace=execve -o "$b" "${cmd[@]}"
	[ "$status" = 0 ]
	local want='execve("/bin/echo", ["/bin/echo"'
	for n in $(seq 1 31); do want+=", \"a$n\""; done
	want+=', ...], ADDR /* 2 vars */) = 0'
	[ "$(execve_line "$b")" = "$want" ]
	# -v: every string strace would print, up to the copy's bound (16 KiB), then "..."
	run "$BIN/strace-lite" -v -e trace=execve -o "$b" env -i /bin/echo $(seq 1 3000)
	[ "$status" = 0 ]
	n=$(execve_line "$b" | grep -oE '"[0-9]+"' | wc -l)
	[ "$n" -ge 400 ]
	want='execve("/bin/echo", ["/bin/echo"'
	for i in $(seq 1 "$n"); do want+=", \"$i\""; done
	want+=', ...], []) = 0'
	[ "$(execve_line "$b")" = "$want" ]
}

@test "strace: every -s up to the maximum loads and cuts strings as strace does" {
	command -v strace >/dev/null || skip "no strace"
	local big=$BATS_TEST_TMPDIR/big small=$BATS_TEST_TMPDIR/small b=$BATS_TEST_TMPDIR/b
	python3 -c "import string,sys; sys.stdout.write((string.ascii_letters + string.digits) * 5)" >"$big"
	printf 'abcdefghijklmnopqrst' >"$small"
	for s in 0 1 5 20 31 32 33 34 40 64 100 255 256; do
		for f in "$big" "$small"; do
			beside_strace sw_lines 2 "-s $s -e trace=read,write" cat "$f"
		done
	done
	# above the maximum: served up to it, with a warning
	run "$BIN/strace-lite" -s 1024 -e trace=write -o "$b" cat "$big"
	[ "$status" = 0 ]
	grep -q 'warning: -s 1024: strings and buffers are copied up to 256 bytes' <<<"$output"
}

@test "strace: the trace goes to stderr, one whole line per write, never spliced with the program's output" {
	local t=$BATS_TEST_TMPDIR/t.txt w=$BATS_TEST_TMPDIR/w.txt
	# the program's stdout and the trace share one pipe: every line is whole
	"$BIN/strace-lite" -e trace=write sh -c 'for i in $(seq 300); do echo line$i; done' 2>&1 | cat >"$t"
	[ "$(grep -c '^line[0-9]*$' "$t")" = 300 ]
	[ "$(grep -Ec '^write\(1, "line[0-9]+\\n", [0-9]+\) += [0-9]+$' "$t")" = 300 ]
	# and nothing else but the signal of seq's end and the exit
	[ "$(grep -Evc '^(line[0-9]+|write\(1, "line[0-9]+\\n", [0-9]+\) += [0-9]+|--- SIGCHLD \{.*\} ---|\+\+\+ exited with 0 \+\+\+)$' "$t")" = 0 ]
	# 2>FILE captures the trace, stdout keeps only the program's
	run --separate-stderr "$BIN/strace-lite" -e trace=write echo hi
	[ "$output" = hi ]
	grep -Eq '^write\(1, "hi\\n", 3\) += 3$' <<<"$stderr"
	# each write(2) of the tool is exactly one line
	command -v strace >/dev/null || skip "no strace"
	strace -s 1000 -e trace=write -e signal=none -o "$w" "$BIN/strace-lite" -e trace=getppid "$SL" -n 500 -r 0 -w 0 -F 0 2>/dev/null >/dev/null
	[ "$(grep -c '^write(2, "getppid() ' "$w")" = 500 ]
	[ "$(grep '^write(2, ' "$w" | grep -vc '^write(2, "[^"]*\\n", [0-9]*) *= [0-9]*$')" = 0 ]
}

@test "strace: the command is found in PATH before tracing starts: one execve" {
	local t=$BATS_TEST_TMPDIR/t.txt
	run env PATH="/nonexistent/a:/nonexistent/b:/usr/local/bin:/usr/bin:/bin" \
		"$BIN/strace-lite" -e trace=execve -o "$t" ls /
	[ "$status" = 0 ]
	cat "$t"
	[ "$(grep -c '^execve(' "$t")" = 1 ]
	grep -Eq '^execve\("/usr/bin/ls", \["ls", "/"\], ' "$t"
	OUT=$BATS_TEST_TMPDIR/c.json
	summary_run true
	[ "$(count execve)" = 1 ]
	[ "$(count execve errors)" = 0 ]
	expect_fail 1 "failed to run 'no-such-cmd-xyz': No such file or directory" "$BIN/strace-lite" no-such-cmd-xyz
}

@test "strace: no banner when running a command or writing to -o" {
	run --separate-stderr "$BIN/strace-lite" -e trace=none true
	[ "$status" = 0 ]
	[ "$stderr" = "+++ exited with 0 +++" ]
	run --separate-stderr "$BIN/strace-lite" -o "$BATS_TEST_TMPDIR/t.txt" true
	[ "$status" = 0 ]
	[ -z "$stderr" ]
}

@test "strace: SIGINT or SIGTERM to the tool kills the command it started" {
	local t=$BATS_TEST_TMPDIR/t.txt sig p child rc
	for sig in INT TERM; do
		: >"$t"
		"$BIN/strace-lite" -o "$t" sleep 60 &
		p=$!
		for _ in $(seq 100); do grep -q '^clock_nanosleep' "$t" 2>/dev/null && break; sleep 0.05; done
		child=$(pgrep -P "$p" -x sleep)
		[ -n "$child" ]
		kill -"$sig" "$p"
		rc=0
		wait "$p" || rc=$?
		[ "$rc" = $((128 + $(kill -l "$sig"))) ]
		run kill -0 "$child"
		[ "$status" != 0 ]
		[ "$(tail -1 "$t")" = "+++ killed by SIG$sig +++" ]
	done
}

@test "strace: argument counts from the kernel's metadata: set_robust_list, rseq, accept4" {
	local t=$BATS_TEST_TMPDIR/t.txt
	run "$BIN/strace-lite" -e trace=set_robust_list,rseq,accept4 -o "$t" python3 -c '
import socket, threading
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
c = socket.create_connection(s.getsockname()); a, _ = s.accept()'
	[ "$status" = 0 ]
	cat "$t"
	grep -Eq '^set_robust_list\(0x[0-9a-f]+, 24\) += 0$' "$t"
	grep -Eq '^rseq\(0x[0-9a-f]+, 0x20, 0, 0x53053053\) += 0$' "$t"
	grep -Eq '^accept4\([0-9]+, \{sa_family=AF_INET, [^}]*\}, \[16\], SOCK_CLOEXEC\) += [0-9]+$' "$t"
}

@test "strace: -p on a process whose threads come and go ends when it exits (no thread left behind)" {
	local w p i hung=0
	# threads that exit while -p lists /proc/PID/task: once, one stayed
	# in the traced set for good, and -p never ended (3 in 20 here)
	for i in $(seq 25); do
		"$WL/threadchurn" -t 16 -s 30 &
		w=$!
		WLP=$w
		sleep 0.1
		"$BIN/strace-lite" -e trace=none -o /dev/null -p "$w" &
		p=$!
		TOOL_PID=$p
		sleep 0.3
		kill "$w"
		wait "$w" || true
		for _ in $(seq 30); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		if kill -0 "$p" 2>/dev/null; then
			hung=$((hung + 1))
			kill "$p"
		fi
		wait "$p" || true
	done
	echo "hung: $hung of 25"
	[ "$hung" = 0 ]
}

@test "strace: -y paths are escaped as strace escapes them: a file name cannot forge a line" {
	local d=$BATS_TEST_TMPDIR/y f t=$BATS_TEST_TMPDIR/t.txt s=$BATS_TEST_TMPDIR/s.txt
	mkdir -p "$d"
	f=$(printf '%s/a\n+++ exited with 0 +++\n\033[2Jb<c>"d\\e' "$d")
	echo x >"$f"
	run "$BIN/strace-lite" -y -e trace=openat,read,close -o "$t" cat "$f"
	[ "$status" = 0 ]
	cat -A "$t"
	# one exit line, no raw escape byte
	[ "$(grep -c '^+++' "$t")" = 1 ]
	[ "$(tail -1 "$t")" = "+++ exited with 0 +++" ]
	run grep -c $'\033' "$t"
	[ "$output" = 0 ]
	grep -Fq '/a\n+++ exited with 0 +++\n\33[2Jb\74c\76\"d\\e>' "$t"
	# the very lines strace prints for that file
	command -v strace >/dev/null || skip "no strace"
	strace -y -e trace=openat,read,close -o "$s" cat "$f" >/dev/null
	diff <(grep -F "$d" "$s" | sed -E 's/ +=/ =/') <(grep -F "$d" "$t" | sed -E 's/ +=/ =/')
}

# bats test_tags=vm
@test "strace: beside strace on real commands, >= 95% of its lines and >= 99% of its calls identical" {
	command -v strace >/dev/null || skip "no strace"
	command -v sqlite3 >/dev/null || skip "no sqlite3"
	run "$ROOT/tests/strace-diff.sh"
	echo "$output"
	[ "$status" = 0 ]
	# ls, cat, python, pipeline (-f), tcp (-f), tar, sqlite, structs (-f)
	[ "$(echo "$output" | grep -c ' lines ')" = 8 ]
	# each with a trace to compare: strace's lines, at least 50
	echo "$output" | awk '{ sub("%", "", $3); sub("%", "", $5); n = substr($6, 2) + 0;
		if ($3 + 0 < 95 || $5 + 0 < 99 || n < 50) { print "below: " $0; bad = 1 } } END { exit bad }'
}

# the lines of a trace file with strace's column and the run's addresses aside
lines_of() { sed -E 's/ +=/ =/; s/0x[0-9a-f]{6,}/ADDR/g' "$1"; }

# the names of the calls in a trace, sorted, once each
call_names() { sed -nE 's/^([a-z0-9_]+)\(.*/\1/p' "$1" | sort -u | tr '\n' ' '; }

@test "strace: -e trace=%stat, %lstat, %fstat, %%stat, %statfs, %fstatfs, %%statfs and /REGEX pick the calls strace picks" {
	command -v strace >/dev/null || skip "no strace"
	local a=$BATS_TEST_TMPDIR/a b=$BATS_TEST_TMPDIR/b e want got
	for e in %stat %lstat %fstat %%stat %statfs %fstatfs %%statfs '/^(get|set)p?pid$' '/stat' \
		'%%stat,/^getppid$' '!/stat|^(execve|brk|arch_prctl|set_tid_address|set_robust_list|rseq|prlimit64|readlinkat|getrandom|mprotect|exit_group)$'; do
		strace -qq -e trace="$e" -o "$a" "$WL/statcalls"
		run "$BIN/strace-lite" -qq -e trace="$e" -o "$b" "$WL/statcalls"
		[ "$status" = 0 ]
		want=$(call_names "$a")
		got=$(call_names "$b")
		echo "$e: strace: $want; strace-lite: $got"
		[ -n "$want" ]
		[ "$got" = "$want" ]
	done
	expect_fail 2 "no system call matches '/xyzzy'" "$BIN/strace-lite" -e trace=/xyzzy true
	expect_fail 2 "is not a regular expression" "$BIN/strace-lite" -e 'trace=/(' true
	expect_fail 2 "invalid system call class '%%bogus'" "$BIN/strace-lite" -e 'trace=%%bogus' true
}

@test "strace: -X raw and -X verbose print constants as strace does" {
	command -v strace >/dev/null || skip "no strace"
	local a=$BATS_TEST_TMPDIR/a b=$BATS_TEST_TMPDIR/b x
	for x in raw verbose; do
		strace -X $x -e trace=openat,mmap,rt_sigaction -o "$a" cat /etc/hostname >/dev/null
		run "$BIN/strace-lite" -X $x -e trace=openat,mmap,rt_sigaction -o "$b" cat /etc/hostname
		[ "$status" = 0 ]
		diff <(lines_of "$a") <(lines_of "$b")
	done
	grep -Eq '^openat\(-100 /\* AT_FDCWD \*/, "/etc/hostname", 0 /\* O_RDONLY \*/\) = [0-9]+$' <(lines_of "$b")
	expect_fail 2 "invalid -X format 'bogus'" "$BIN/strace-lite" -X bogus true
}

@test "strace: -P PATH shows only the calls that touch PATH, as strace does" {
	command -v strace >/dev/null || skip "no strace"
	local a=$BATS_TEST_TMPDIR/a b=$BATS_TEST_TMPDIR/b
	strace -P /etc/hostname -o "$a" cat /etc/passwd /etc/hostname /etc/services >/dev/null
	run "$BIN/strace-lite" -P /etc/hostname -o "$b" cat /etc/passwd /etc/hostname /etc/services
	[ "$status" = 0 ]
	cat "$b"
	grep -Eq '^openat\(AT_FDCWD, "/etc/hostname", O_RDONLY\) = [0-9]+$' <(lines_of "$b")
	run grep -c passwd "$b"
	[ "$output" = 0 ]
	diff <(lines_of "$a") <(lines_of "$b")
}

@test "strace: -ff -o FILE writes FILE.PID per process, without pid prefixes" {
	local d=$BATS_TEST_TMPDIR/ff f n
	mkdir -p "$d"
	run "$BIN/strace-lite" -ff -e trace=execve,exit_group -o "$d/t" sh -c '/bin/true; /bin/true'
	[ "$status" = 0 ]
	[ ! -e "$d/t" ]
	n=$(ls "$d" | grep -c '^t\.[0-9]*$')
	[ "$n" = 3 ]
	for f in "$d"/t.*; do
		cat "$f"
		[ "$(grep -c '^execve(' "$f")" = 1 ]
		[ "$(tail -1 "$f")" = "+++ exited with 0 +++" ]
		run grep -Ec '^(\[pid|[0-9]+ )' "$f"
		[ "$output" = 0 ]
	done
}

@test "strace: -q, -qq, -e signal=, legacy class names, -k" {
	local t=$BATS_TEST_TMPDIR/t.txt u=$BATS_TEST_TMPDIR/u.txt
	# -qq: no exit lines
	run "$BIN/strace-lite" -qq -e trace=exit_group -o "$t" true
	[ "$status" = 0 ]
	[ "$(cat "$t")" = "exit_group(0) = ?" ] || [ "$(sed -E 's/ +=/ =/' "$t")" = "exit_group(0) = ?" ]
	# -e signal=: only the signals asked for
	run "$BIN/strace-lite" -e trace=none -e signal=USR1 -o "$t" sh -c 'trap true USR1 USR2; kill -USR2 $$; kill -USR1 $$'
	cat "$t"
	[ "$(grep -c '^--- SIGUSR1 ' "$t")" = 1 ]
	[ "$(grep -c '^---' "$t")" = 1 ]
	run "$BIN/strace-lite" -e trace=none -e 'signal=!SIGUSR1' -o "$t" sh -c 'trap true USR1 USR2; kill -USR2 $$; kill -USR1 $$'
	[ "$(grep -c '^--- SIGUSR2 ' "$t")" = 1 ]
	[ "$(grep -c '^--- SIGUSR1 ' "$t")" = 0 ]
	expect_fail 2 "invalid signal 'NOSUCH'" "$BIN/strace-lite" -e signal=NOSUCH true
	# trace=file is trace=%file
	"$BIN/strace-lite" -e trace=file -o "$t" cat /etc/hostname >/dev/null
	"$BIN/strace-lite" -e trace=%file -o "$u" cat /etc/hostname >/dev/null
	grep -q '^openat(AT_FDCWD, "/etc/hostname"' "$t"
	diff <(lines_of "$t") <(lines_of "$u")
	# -q: no banner with -p
	local go p
	go=$(make_go)
	"$SL" -n 10 -r 0 -w 0 -F 0 -g "$go" >/dev/null &
	p=$!
	WLP=$p
	run --separate-stderr timeout 1 "$BIN/strace-lite" -q -c -p "$p"
	grep -q '^% time ' <<<"$stderr"	# it ran: its summary at SIGTERM
	run grep -c "Hit Ctrl-C" <<<"$stderr"
	[ "$output" = 0 ]
	go "$go"
	wait "$p"
	expect_fail 2 "-k is not supported" "$BIN/strace-lite" -k true
}

@test "strace: socket calls as strace prints them: levels, options, int values, shutdown, sockaddr" {
	command -v strace >/dev/null || skip "no strace"
	local a=$BATS_TEST_TMPDIR/a b=$BATS_TEST_TMPDIR/b py=$BATS_TEST_TMPDIR/so.py
	cat >"$py" <<-'PY'
	import socket
	s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
	s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
	s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
	s.bind(("127.0.0.1", 0)); s.listen()
	c = socket.create_connection(s.getsockname()); a, _ = s.accept()
	c.shutdown(socket.SHUT_WR)
	PY
	local calls=setsockopt,shutdown,socket,bind,listen,connect,accept4,getsockname,getpeername
	strace -e trace=$calls -o "$a" /usr/bin/python3 -S "$py"
	run "$BIN/strace-lite" -e trace=$calls -o "$b" /usr/bin/python3 -S "$py"
	[ "$status" = 0 ]
	cat "$b"
	grep -q '^setsockopt([0-9]*, SOL_SOCKET, SO_REUSEADDR, \[1\], 4) = 0$' <(lines_of "$b")
	grep -q '^shutdown([0-9]*, SHUT_WR) = 0$' <(lines_of "$b")
	grep -Eq '^accept4\([0-9]+, \{sa_family=AF_INET, sin_port=htons\([0-9]+\), sin_addr=inet_addr\("127.0.0.1"\)\}, \[16\], SOCK_CLOEXEC\) = [0-9]+$' <(lines_of "$b")
	grep -Eq '^connect\([0-9]+, \{sa_family=AF_INET, sin_port=htons\([0-9]+\), sin_addr=inet_addr\("127.0.0.1"\)\}, 16\) = 0$' <(lines_of "$b")
	# the server's port is the run's own
	diff <(lines_of "$a" | sed -E 's/htons\([0-9]+\)/htons(PORT)/') \
		<(lines_of "$b" | sed -E 's/htons\([0-9]+\)/htons(PORT)/')
}

@test "strace: -f on the terminal prefixes [pid N] only while two or more are traced, as strace" {
	run --separate-stderr "$BIN/strace-lite" -f -e trace=execve,exit_group sh -c '/bin/true; exit 3'
	[ "$status" = 3 ]
	echo "$stderr"
	[ "$(echo "$stderr" | grep -c '^execve("/usr/bin/sh"')" = 1 ]
	[ "$(echo "$stderr" | grep -Ec '^\[pid +[0-9]+\] execve\("/bin/true"')" = 1 ]
	[ "$(echo "$stderr" | grep -Ec '^\[pid +[0-9]+\] \+\+\+ exited with 0 \+\+\+$')" = 1 ]
	# the shell alone again at its end
	[ "$(echo "$stderr" | tail -2 | head -1 | sed -E 's/ +=/ =/')" = "exit_group(3) = ?" ]
	[ "$(echo "$stderr" | tail -1)" = "+++ exited with 3 +++" ]
}

@test "strace: poll's pollfd array and revents, socketpair's fds, as strace prints them" {
	command -v strace >/dev/null || skip "no strace"
	local a=$BATS_TEST_TMPDIR/a b=$BATS_TEST_TMPDIR/b py=$BATS_TEST_TMPDIR/p.py
	cat >"$py" <<-'PY'
	import select, os, socket
	a, b = socket.socketpair()
	r, w = os.pipe(); os.write(w, b'x')
	p = select.poll(); p.register(r, select.POLLIN); p.register(w, select.POLLOUT | select.POLLIN); p.poll(0)
	q = select.poll(); q.register(r, select.POLLPRI); q.poll(0)
	PY
	strace -e trace=poll,socketpair -o "$a" /usr/bin/python3 -S "$py"
	run "$BIN/strace-lite" -e trace=poll,socketpair -o "$b" /usr/bin/python3 -S "$py"
	[ "$status" = 0 ]
	cat "$b"
	grep -Eq '^poll\(\[\{fd=[0-9]+, events=POLLIN\}, \{fd=[0-9]+, events=POLLIN\|POLLOUT\}\], 2, 0\) = 2 \(\[\{fd=[0-9]+, revents=POLLIN\}, \{fd=[0-9]+, revents=POLLOUT\}\]\)$' <(lines_of "$b")
	grep -Eq '^poll\(\[\{fd=[0-9]+, events=POLLPRI\}\], 1, 0\) = 0 \(Timeout\)$' <(lines_of "$b")
	diff <(lines_of "$a") <(lines_of "$b")
}

# structs's calls under strace and strace-lite (-s and -v as given): the
# lines of the calls with structures, addresses aside
structs_pair() {
	local calls=writev,pwritev,readv,preadv,epoll_ctl,epoll_wait,epoll_pwait,sendmsg,recvmsg
	calls=$calls,getsockopt,sendto,recvfrom,ioctl,clone3,clock_getres,clock_gettime,newfstatat,memfd_create
	# bats's own descriptors closed: the workload's are 3, 4, 5 as in a shell
	(cd "$BATS_TEST_TMPDIR" && strace "$@" -e trace=$calls -o a.txt "$WL/structs" . 3>&- 4>&- 5>&- 6>&-)
	(cd "$BATS_TEST_TMPDIR" && "$BIN/strace-lite" "$@" -e trace=$calls -o b.txt "$WL/structs" . \
		3>&- 4>&- 5>&- 6>&-)
	lines_of "$BATS_TEST_TMPDIR/a.txt" | sed -E 's/parent_tid=\[[0-9]+\]/parent_tid=[TID]/; s/^(clone3.*) = [0-9]+$/\1 = TID/; s/^(clock_gettime.*)\{tv_sec=[0-9]+, tv_nsec=[0-9]+\}/\1{TIME}/; /^newfstatat/ { s/st_ino=[0-9]+/st_ino=INO/; s/(st_[acm]time(_nsec)?=)[0-9]+( \/\* [^*]* \*\/)?/\1T/g; }' |
		grep -v '^+++' >"$BATS_TEST_TMPDIR/a.l"
	lines_of "$BATS_TEST_TMPDIR/b.txt" | sed -E 's/parent_tid=\[[0-9]+\]/parent_tid=[TID]/; s/^(clone3.*) = [0-9]+$/\1 = TID/; s/^(clock_gettime.*)\{tv_sec=[0-9]+, tv_nsec=[0-9]+\}/\1{TIME}/; /^newfstatat/ { s/st_ino=[0-9]+/st_ino=INO/; s/(st_[acm]time(_nsec)?=)[0-9]+( \/\* [^*]* \*\/)?/\1T/g; }' |
		grep -v '^+++' >"$BATS_TEST_TMPDIR/b.l"
}

@test "strace: iovecs, msghdr, epoll_event, termios, winsize, clone3, getsockopt, recvfrom's address, clock_gettime's timespec as strace prints them" {
	command -v strace >/dev/null || skip "no strace"
	local a=$BATS_TEST_TMPDIR/a.l b=$BATS_TEST_TMPDIR/b.l s
	structs_pair
	cat "$b"
	grep -Fxq 'writev(3, [{iov_base="hello ", iov_len=6}, {iov_base="vectored world, this part is lon"..., iov_len=59}, {iov_base="", iov_len=0}], 3) = 65' "$b"
	grep -Fxq 'preadv(3, [{iov_base="hello ve", iov_len=8}, {iov_base="ctored world, this part is longe"..., iov_len=64}], 2, 100) = 65' "$b"
	grep -Fxq 'epoll_wait(5, [{events=EPOLLIN, data={u32=4660, u64=4660}}], 4, 1000) = 1' "$b"
	grep -Fxq 'recvmsg(4, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base="message in two p", iov_len=16}, {iov_base="arts", iov_len=32}], msg_iovlen=2, msg_controllen=0, msg_flags=0}, 0) = 20' "$b"
	grep -Fxq 'getsockopt(4, SOL_SOCKET, SO_TYPE, [2], [4]) = 0' "$b"
	grep -Fxq 'getsockopt(4, SOL_SOCKET, SO_TYPE, [2], [16 => 4]) = 0' "$b"
	grep -Fxq 'recvfrom(3, "datagram", 64, 0, {sa_family=AF_UNIX, sun_path="v.sock"}, [110 => 9]) = 8' "$b"
	grep -Fxq 'recvmsg(3, {msg_name={sa_family=AF_UNIX, sun_path="v.sock"}, msg_namelen=110 => 9, msg_iov=[{iov_base="named", iov_len=64}], msg_iovlen=1, msg_controllen=0, msg_flags=0}, 0) = 5' "$b"
	grep -Eq '^ioctl\(4, TCGETS, \{c_iflag=ICRNL\|IXON, .*c_lflag=ISIG\|ICANON\|ECHO\|.*, \.\.\.\}\) = 0$' "$b"
	grep -Fxq 'clock_getres(CLOCK_MONOTONIC, {tv_sec=0, tv_nsec=1}) = 0' "$b"
	grep -Fxq 'clock_gettime(CLOCK_MONOTONIC, {TIME}) = 0' "$b"
	grep -Fxq 'memfd_create("structs", MFD_CLOEXEC) = 3' "$b"
	# a string not in memory at the call's entry, and an output structure
	grep -Eq '^newfstatat\([0-9]+, "", \{st_mode=S_IFREG\|[0-7]+, st_size=8, \.\.\.\}, AT_EMPTY_PATH\) = 0$' "$b"
	diff "$a" "$b"
	# the data of each element cut at -s (strace shows -s elements at most); -v: termios in
	# full; -X: the flags inside the structures too
	for s in "-s 0" "-s 1" "-s 5" "-s 40" "-X raw" "-X verbose" "-v"; do
		structs_pair $s
		diff "$a" "$b" || { echo "$s"; false; }
	done
	grep -q 'c_line=N_TTY, c_cc=\[\[VINTR\]=0x3' "$b"
	# up to the maximum -s: it loads; an element's data is cut at its slot (40 bytes of 3)
	for s in 64 256; do
		structs_pair -s $s
		diff <(grep -v 'iov_base' "$a") <(grep -v 'iov_base' "$b")
		grep -Fq 'writev(3, [{iov_base="hello ", iov_len=6}, {iov_base="vectored world, this part is longer than"..., iov_len=59}, {iov_base="", iov_len=0}], 3) = 65' "$b"
		grep -Fq 'readv(3, [{iov_base="hello ve", iov_len=8}, {iov_base="ctored world, this part is longer than thirty-two bytes\n\0\0\0\0\0\0\0\0", iov_len=64}], 2) = 72' "$b"
	done
}

# poll_line FILE ERE S: wait until a line of FILE (its last one may be an
# unended half) matches, S seconds at most; print the time it was seen.
poll_line() {
	local i
	for ((i = 0; i < $3 * 100; i++)); do
		grep -Eq "$2" "$1" 2>/dev/null && { date +%s.%N; return 0; }
		sleep 0.01
	done
	echo "no line /$2/ in $1 after $3 s; it has:" >&2
	cat "$1" >&2
	return 1
}

# wait_in_read0 PID: until PID is asleep in read(0, ...) (10 s at most)
wait_in_read0() {
	local i
	for ((i = 0; i < 1000; i++)); do
		grep -q '^0 0x0 ' "/proc/$1/syscall" 2>/dev/null && return 0
		sleep 0.01
	done
	echo "$1 not blocked in read(0): $(cat "/proc/$1/syscall")" >&2
	return 1
}

# blocked_half [ENV=VALUE...]: blockread's read(0) blocks for as long as
# the test keeps its fifo empty. Its entry half must be in the -o file
# within 200 ms of the call's entry (its -ttt time), the rest on return.
blocked_half() {
	local f=$BATS_TEST_TMPDIR/in out=$BATS_TEST_TMPDIR/t.txt seen ts ms w
	mkfifo "$f"
	exec {w}<>"$f"	# a writer: the reader's open does not wait
	env "$@" "$BIN/strace-lite" -ttt -e trace=read -o "$out" "$WL/blockread" <"$f" &
	TOOL_PID=$!
	seen=$(poll_line "$out" '^[0-9]+\.[0-9]+ read\(0, $' 20)
	ts=$(grep -Eo '^[0-9]+\.[0-9]+ read\(0, $' "$out" | cut -d' ' -f1)
	ms=$(awk -v a="$seen" -v b="$ts" 'BEGIN { printf "%d", (a - b) * 1000 }')
	echo "the half seen in the file $ms ms after the call's entry"
	assert_between "ms from read's entry to its half in the file" "$ms" 0 200
	echo abc >&"$w"
	poll_line "$out" '^[0-9]+\.[0-9]+ read\(0, "abc\\n", 64\) += 4$' 10 >/dev/null
	wait_bounded "$TOOL_PID" 10 strace-lite
	exec {w}>&-
	[ "$(grep -c 'read(' "$out")" = 1 ]
}

# A time bound: run on the host only (under the suite's TCG guests everything
# takes some 15 times longer); the -f test below checks the same events on
# every kernel, by their order.
@test "strace: a call that blocks shows its entry half at once and the rest on return, -o FILE flushed" {
	blocked_half
}

@test "strace: a call that blocks shows at once on the forced raw_tp path too" {
	blocked_half BPFLITE_FORCE_RAW_TP=1
}

# blocked_string [ENV=VALUE...]: blockread -o opens a fifo by a path in a
# page not faulted in at the call's entry, and blocks until the test opens
# the fifo for writing: the entry half shows the path (read as the call
# blocked), and so does the whole line, as strace shows them.
blocked_string() {
	local f=$BATS_TEST_TMPDIR/fifo out=$BATS_TEST_TMPDIR/t.txt w head rc=0
	rm -f "$f" "$out"
	mkfifo "$f"
	env "$@" "$BIN/strace-lite" -e trace=openat -o "$out" "$WL/blockread" -o "$f" &
	TOOL_PID=$!
	poll_line "$out" '^openat\(AT_FDCWD, .*, O_RDONLY$' 20 >/dev/null || rc=1
	head=$(cat "$out")
	exec {w}<>"$f"	# a writer (read-write: never waits), which ends the open
	wait_bounded "$TOOL_PID" 10 strace-lite
	exec {w}>&-
	printf '%s\n-- and once it returned:\n' "$head"
	cat "$out"
	[ "$rc" = 0 ]
	grep -Fqx "openat(AT_FDCWD, \"$f\", O_RDONLY" <<<"$head"
	grep -Eq "^openat\(AT_FDCWD, \"$f\", O_RDONLY\) += [0-9]+\$" "$out"
}

# bats test_tags=vm
@test "strace: a blocked call's string not in memory at its entry shows in its entry half and line, both paths" {
	blocked_string
	blocked_string BPFLITE_FORCE_RAW_TP=1
}

# attached_half [ENV=VALUE...]: -p on a process already blocked in read(0)
attached_half() {
	local f=$BATS_TEST_TMPDIR/in w
	mkfifo "$f"
	exec {w}<>"$f"
	"$WL/blockread" <"$f" &
	WLP=$!
	wait_in_read0 "$WLP"
	env "$@" "$BIN/strace-lite" -p "$WLP" 2>"$BATS_TEST_TMPDIR/err" &
	TOOL_PID=$!
	# after the banner, on a line of its own, while the read still blocks
	poll_line "$BATS_TEST_TMPDIR/err" '^read\(0, $' 20 >/dev/null
	sed -n '/Hit Ctrl-C to end/,$p' "$BATS_TEST_TMPDIR/err" | tail -n +2 | grep -q '^read(0, $'
	echo abc >&"$w"
	poll_line "$BATS_TEST_TMPDIR/err" '^read\(0, "abc\\n", 64\) += 4$' 10 >/dev/null
	wait_bounded "$TOOL_PID" 10 strace-lite
	exec {w}>&-
	[ "$(grep -c 'read(' "$BATS_TEST_TMPDIR/err")" = 1 ]
	grep -q '^+++ exited with 0 +++$' "$BATS_TEST_TMPDIR/err"
}

# bats test_tags=vm
@test "strace: -p shows the call a process is already blocked in, and completes it on return" {
	attached_half
}

@test "strace: -p shows a call in progress on the forced raw_tp path too" {
	attached_half BPFLITE_FORCE_RAW_TP=1
}

@test "strace: -p stopped while the call blocks ends its half with <detached ...>, as strace" {
	local f=$BATS_TEST_TMPDIR/in out=$BATS_TEST_TMPDIR/t.txt w
	mkfifo "$f"
	exec {w}<>"$f"
	"$WL/blockread" <"$f" &
	WLP=$!
	wait_in_read0 "$WLP"
	"$BIN/strace-lite" -p "$WLP" -o "$out" &
	TOOL_PID=$!
	poll_line "$out" '^read\(0, $' 20 >/dev/null
	stop_tool INT
	[ "$TOOL_RC" = 0 ]
	exec {w}>&-
	[ "$(cat "$out")" = "read(0,  <detached ...>" ]
}

# the -f lines of blockread -t's two threads: pids by order of appearance,
# getppid's value and strace's column aside
thread_lines() {
	awk '{ p = $1; if (!(p in id)) id[p] = "T" (++n); print id[p] substr($0, length(p) + 1) }' "$1" |
		sed -E 's/^(T[0-9]+) +/\1 /; s/ +=/ =/; s/getppid\(\) = [0-9]+/getppid() = PPID/'
}

# bats test_tags=vm
@test "strace: -f: a blocked thread's call is <unfinished ...> when another's lines come between, <... resumed> after, as strace" {
	command -v strace >/dev/null || skip "no strace"
	local a=$BATS_TEST_TMPDIR/a b=$BATS_TEST_TMPDIR/b
	strace -f -o "$a" -e trace=read,getppid "$WL/blockread" -t -n 3
	run "$BIN/strace-lite" -f -o "$b" -e trace=read,getppid "$WL/blockread" -t -n 3
	[ "$status" = 0 ]
	cat "$b"
	diff <(thread_lines "$a") <(thread_lines "$b")
	[ "$(thread_lines "$b" | head -1)" = 'T1 read(0,  <unfinished ...>' ]
	[ "$(thread_lines "$b" | grep -c '^T2 getppid() = PPID$')" = 3 ]
	thread_lines "$b" | grep -Fxq 'T1 <... read resumed>"hello\n", 64) = 6'
}

# bats test_tags=vm
@test "strace: -f: a main thread that ended first has its exit line after its other threads', with the process's code, as strace" {
	command -v strace >/dev/null || skip "no strace"
	local a=$BATS_TEST_TMPDIR/a b=$BATS_TEST_TMPDIR/b
	run strace -f -o "$a" -e trace=getppid "$WL/leadexit" -n 3 -c 3
	[ "$status" = 3 ]
	run "$BIN/strace-lite" -f -o "$b" -e trace=getppid "$WL/leadexit" -n 3 -c 3
	[ "$status" = 3 ]
	cat "$b"
	diff <(thread_lines "$a") <(thread_lines "$b")
	[ "$(thread_lines "$b" | tail -1)" = 'T2 +++ exited with 3 +++' ]
	[ "$(thread_lines "$b" | grep -c '^T1 getppid() = PPID$')" = 3 ]
}
