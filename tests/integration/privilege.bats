#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Errors that point at the real cause: what a user with CAP_BPF and
# CAP_PERFMON lacks, and a verifier rejection told apart from a kernel
# that restricts BPF.

bats_require_minimum_version 1.5.0
load helpers

setup() {
	require_root
	command -v setpriv >/dev/null || skip "no setpriv"
}

# As nobody with CAP_BPF and CAP_PERFMON only.
BPF_USER=(setpriv --reuid=65534 --regid=65534 --clear-groups
	--inh-caps=-all,+bpf,+perfmon --ambient-caps=-all,+bpf,+perfmon)
as_bpf_user() {
	"${BPF_USER[@]}" "$@"
}

# bats test_tags=smoke
@test "privilege: CAP_BPF+CAP_PERFMON without tracefs access: execsnoop-lite and opensnoop-lite say what is missing" {
	mountpoint -q /sys/kernel/tracing || mount -t tracefs tracefs /sys/kernel/tracing
	[ "$(stat -c %a /sys/kernel/tracing)" = 700 ] || skip "tracefs is readable by others here"
	for t in execsnoop-lite opensnoop-lite; do
		cd "$BATS_TEST_TMPDIR"
		expect_fail 1 "tracefs at /sys/kernel/tracing is mounted but this user cannot read it" \
			as_bpf_user "$BIN/$t"
		# not the advice to mount what is mounted
		run ! grep -q "mount -t tracefs" "$BATS_TEST_TMPDIR/expect.err"
		grep -q "hint: .*gid=" "$BATS_TEST_TMPDIR/expect.err"
	done
}

# A BTF file with one int type: every CO-RE relocation fails, libbpf
# poisons the instructions and the verifier rejects the first program.
tiny_btf() {
	printf '\x9f\xeb\x01\x00\x18\x00\x00\x00\x00\x00\x00\x00\x10\x00\x00\x00\x10\x00\x00\x00\x05\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x01\x04\x00\x00\x00\x20\x00\x00\x00\x00int\x00' \
		>"$BATS_TEST_TMPDIR/tiny.btf"
}

# bats test_tags=smoke
@test "privilege: a verifier rejection as root is named, with the log's last lines, without -v" {
	tiny_btf
	for t in runqlat-lite execsnoop-lite; do
		expect_fail 1 "the kernel's verifier rejected program '[a-z_]+'" \
			"$BIN/$t" --btf "$BATS_TEST_TMPDIR/tiny.btf"
		grep -q "invalid CO-RE relocation\|invalid func" "$BATS_TEST_TMPDIR/expect.err"
		run ! grep -q "BPF is restricted here" "$BATS_TEST_TMPDIR/expect.err"
	done
}

# kallsyms shows a user without CAP_SYSLOG zeros (kptr_restrict 1, or 0
# with perf_event_paranoid above 1), while CAP_PERFMON's stacks hold real
# addresses: the frames and reasons are addresses, and the tool says why
# once, in the words every stack tool uses (common/syms/stacks.c).
@test "privilege: CAP_BPF+CAP_PERFMON where kallsyms reads 0: dstate-lite reasons by address, one hint" {
	local go
	local -a TOOL_RUNNER=("${BPF_USER[@]}")
	[ "$(as_bpf_user head -c 16 /proc/kallsyms)" = 0000000000000000 ] ||
		skip "kallsyms shows this user addresses here"
	cd "$BATS_TEST_TMPDIR"
	go=$(make_go)
	"$WL/dwait" -V -n 3 -d 50 -g "$go" >/dev/null &
	WP=$!
	start_tool dstate-lite -j -m 0 -p "$WP"
	go "$go"
	wait "$WP"
	stop_tool INT
	cat "$TOOL_ERR"
	[ "$TOOL_RC" = 0 ]
	[ "$(grep -c "kptr_restrict" "$TOOL_ERR")" = 1 ]
	grep -q "^dstate-lite: hint: kernel addresses read 0 (kptr_restrict): for kernel frame names" "$TOOL_ERR"
	# the vfork parent's three sleeps at least, named by address
	jq -se --argjson p "$WP" '[.[] | select(.type == "episode" and .tid == $p)] |
		length >= 3 and all(.reason | test("^0x[0-9a-f]+$")) and
		all(.kernel_stack | length > 0 and all(test("^0x[0-9a-f]+$")))' "$TOOL_OUT"
}
