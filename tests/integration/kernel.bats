#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Kernels without /sys/kernel/btf/vmlinux: the file is hidden in a private
# mount namespace (an empty file bound over it). Every tool then says what
# is missing; given the kernel's BTF with --btf FILE, each one loads and
# works. Under tests/vm/run.sh, BPFLITE_TEST_BTF is the .BTF section taken
# from the guest kernel's own image; on the host, a copy of the sysfs file
# taken before hiding it.

bats_require_minimum_version 1.5.0
load helpers

BPF_TOOLS="runqlat biolatency tcpretrans dstate strace offcputime execsnoop opensnoop"

setup() {
	require_root
	ensure_tracefs
	BTF=${BPFLITE_TEST_BTF:-}
	if [ -z "$BTF" ]; then
		BTF=$BATS_TEST_TMPDIR/vmlinux.btf
		cp /sys/kernel/btf/vmlinux "$BTF"
	fi
	EMPTY=$BATS_TEST_TMPDIR/empty
	: >"$EMPTY"
}

# no_btf CMD...: run CMD with /sys/kernel/btf/vmlinux hidden (the same
# process: unshare and sh exec, so $! of "no_btf ... &" is not it, use
# no_btf_bg for a background run).
HIDE='mount --bind "$1" /sys/kernel/btf/vmlinux && shift && exec "$@"'
no_btf() {
	unshare -m sh -c "$HIDE" sh "$EMPTY" "$@"
}

# bats test_tags=vm
@test "kernel: without BTF in sysfs every tool says so, with a --btf hint, exit 1" {
	local t
	for t in $BPF_TOOLS; do
		if [ "$t" = strace ]; then
			run no_btf "$BIN/$t-lite" -c true
		else
			run no_btf "$BIN/$t-lite" -j
		fi
		echo "$t: $output"
		[ "$status" = 1 ]
		grep -q "^$t-lite: kernel BTF not found at /sys/kernel/btf/vmlinux" <<<"$output"
		grep -q "^$t-lite: hint: .*--btf FILE" <<<"$output"
	done
}

# bats test_tags=smoke, vm
@test "kernel: with --btf FILE every tool attaches, then exits 0 on SIGINT with no error" {
	local t args err bad
	for t in $BPF_TOOLS; do
		args=
		[ "$t" = strace ] && args="-c -p $$"
		err=$BATS_TEST_TMPDIR/$t.err
		unshare -m sh -c "$HIDE" sh "$EMPTY" "$BIN/$t-lite" --btf "$BTF" $args >/dev/null 2>"$err" &
		TOOL_PID=$!
		for _ in $(seq 300); do
			grep -q "Hit Ctrl-C to end" "$err" && break
			kill -0 "$TOOL_PID" 2>/dev/null || break
			sleep 0.1
		done
		cat "$err"
		grep -q "Hit Ctrl-C to end" "$err"
		stop_tool INT
		[ "$TOOL_RC" = 0 ]
		# dstate-lite alone warns: its task iterator needs the kernel's own BTF
		if [ "$t" = dstate ]; then
			grep -q "not listed: the kernel has no BTF" "$err"
		fi
		# loss counts are reports, not faults (offcputime-lite misses the
		# stacks of tasks without one); nothing else may be said
		bad=$(grep -v "tasks already in D at start-up are not listed" "$err" |
			grep -E "^$t-lite: (.*(error|failed)|warning: [^0-9])" || true)
		[ -z "$bad" ]
	done
}

# bats test_tags=vm
@test "kernel: with --btf FILE and no BTF in sysfs, strace-lite -c counts exactly (raw_tp chosen)" {
	local out=$BATS_TEST_TMPDIR/out.json
	run no_btf "$BIN/strace-lite" --btf "$BTF" --verbose -c -j -o "$out" "$WL/sysload" -n 2001 -r 301 -w 3 -F 1
	[ "$status" = 0 ]
	grep -q "attach sys_enter: raw_tp (no BTF for tp_btf)" <<<"$output"
	[ "$(jq -s '[.[] | select(.type=="summary") | .syscalls[] | select(.syscall=="getppid") | .calls] | add' "$out")" = 2001 ]
	[ "$(jq -s '[.[] | select(.type=="summary") | .syscalls[] | select(.syscall=="read") | .calls] | add' "$out")" = 301 ]
}
