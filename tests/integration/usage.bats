#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# What every tool shares: option parsing, bad input, --version and the
# failure without privileges. One table for every tool of `make
# print-tools` instead of a copy of the same test per tool; none of it
# needs root (as root, the privilege test drops to nobody), so `make
# check` runs it.
# bats file_tags=check

bats_require_minimum_version 1.5.0
load helpers

tools() {
	make -s -C "$ROOT" --no-print-directory print-tools
}

setup() {
	D=$BATS_TEST_TMPDIR
	F=$D/1.folded
	printf 'a;b 10\n' >"$F"
}

# Bad input: one line per check, fields separated by tabs:
#   TOOL  EXIT-STATUS  STDERR-REGEX (grep -E)  ARGUMENTS (shell words)
# Every line runs bounded in time (expect_fail) and must not crash.
# $D is the test's scratch directory, $F a small folded file in it.
BAD_INPUT=$(cat <<'EOF'
runqlat-lite	2	invalid interval: 'abc' is not a number	abc
runqlat-lite	2	invalid interval: 0	0
runqlat-lite	2	invalid option	-5
runqlat-lite	2	invalid count: 0	1 0
runqlat-lite	2	unexpected argument	1 2 3
runqlat-lite	2	PID 999999999: no such process	-p 999999999
runqlat-lite	2	invalid PID: 'x1' is not a number	-p x1
runqlat-lite	2	invalid cgroup '/nonexistent'	-c /nonexistent
runqlat-lite	2	not a cgroup v2 directory	-c /tmp
runqlat-lite	2	mutually exclusive	-P -L
runqlat-lite	2	cannot read BTF file	--btf /nonexistent
runqlat-lite	2	invalid --serve 'x': PORT must be a number	--serve x
runqlat-lite	2	invalid --serve '70000'	--serve 70000
runqlat-lite	2	HOST must be a numeric	--serve example.com:9000
runqlat-lite	2	in brackets	--serve ::1:9000
runqlat-lite	2	takes no -j, interval or duration	--serve 0 1
runqlat-lite	2	takes no -P	--serve 0 -P
runqlat-lite	2	invalid --max-series: 0 \(must be 1 to 100000\)	--max-series 0
tcpretrans-lite	2	takes no -j, interval or duration	--serve 0 -j
strace-lite	2	takes no -j, interval or duration	--serve 0 -j
offcputime-lite	2	takes no -j, interval or duration	--serve 0 5
dstate-lite	2	--ring needs --interval	--serve 0 -j --ring 2
opensnoop-lite	2	unrecognized option	--serve 0
profile-lite	2	unrecognized option	--serve 0
profile-lite	2	unrecognized option	--max-series 5
flamegraph-lite	2	unrecognized option	--serve 0
biolatency-lite	2	unknown disk 'nosuchdisk'	-d nosuchdisk
biolatency-lite	2	unknown disk '/dev/\.\./etc'	-d /dev/../etc
biolatency-lite	2	unknown disk '/etc/passwd'	-d /etc/passwd
biolatency-lite	2	mutually exclusive	-D -F
biolatency-lite	2	invalid interval: 'abc' is not a number	abc
biolatency-lite	2	invalid interval: 0	0
biolatency-lite	2	invalid count: 0	1 0
biolatency-lite	2	unexpected argument	1 2 3
biolatency-lite	2	not a cgroup v2 directory	-c /tmp
biolatency-lite	2	takes no -D	--serve 0 -D
tcpretrans-lite	2	-4 and -6 are mutually exclusive	-4 -6
tcpretrans-lite	2	unrecognized option|invalid option	-l
tcpretrans-lite	2	unrecognized option|invalid option	-p 1
tcpretrans-lite	2	[Tt]oo many arguments|unexpected argument	5
dstate-lite	2	invalid MIN_MS: 'abc' is not a number	-m abc
dstate-lite	2	invalid MIN_MS: -1	-m -1
dstate-lite	2	invalid stuck threshold: 'x' is not a number	--stuck x
dstate-lite	2	invalid stack storage size: 1 	--stack-storage-size 1
dstate-lite	2	-f and -j are mutually exclusive	-f -j
dstate-lite	2	--unwind: auto, dwarf or fp, not 'x'	-U --unwind x
dstate-lite	2	--unwind walks user stacks: it needs -U	--unwind dwarf
dstate-lite	2	--python names user stacks: it needs -U	--python
dstate-lite	2	-f and -H are mutually exclusive	-f -H
dstate-lite	2	invalid interval: 0	0
dstate-lite	2	unexpected argument	1 2 3
dstate-lite	2	PID 999999999: no such process	-p 999999999
dstate-lite	2	TID 999999999: no such process	-t 999999999
dstate-lite	2	not a cgroup v2 directory	-c /tmp
dstate-lite	2	cannot read BTF file	--btf /nonexistent
strace-lite	2	invalid system call 'getppidd'	-e trace=getppidd true
strace-lite	2	did you mean: getppid	-e trace=getppidd true
strace-lite	2	invalid system call class '%bogus'	-e trace=%bogus true
strace-lite	2	must have a command to run, -p PID or -u USER	-C
strace-lite	2	invalid STRSIZE: 'abc' is not a number	-s abc true
strace-lite	2	invalid STRSIZE: -1	-s -1 true
strace-lite	2	invalid sort key 'bogus'	-c -S bogus true
strace-lite	2	PID 999999999: no such process	-p 999999999
strace-lite	2	invalid PID: 'x' is not a number	-p 1,x
strace-lite	2	-L needs -c or -C	-L true
strace-lite	2	invalid -e status	-e status=maybe true
strace-lite	2	unrecognized option|invalid option	--bogus true
strace-lite	2	cannot be combined	-p 1 true
strace-lite	2	needs -c	--serve 0 -p $$
offcputime-lite	2	invalid state mask: 'abc' is not a number	--state abc
offcputime-lite	2	invalid state mask: 0x10000	--state 0x10000
offcputime-lite	2	minimum block time \(-m 10\) is above the maximum \(-M 5\)	-m 10 -M 5
offcputime-lite	2	--unwind: auto, dwarf or fp, not 'x'	--unwind x
offcputime-lite	2	PID 999999999: no such process	-p 999999999
offcputime-lite	2	TID 999999999: no such process	-t 999999999
offcputime-lite	2	-u and -k are mutually exclusive	-u -k
offcputime-lite	2	-U and -K are mutually exclusive	-U -K
offcputime-lite	2	invalid stack depth: 200	--perf-max-stack-depth 200
offcputime-lite	2	invalid stack storage size: 0	--stack-storage-size 0
offcputime-lite	2	--python needs user stacks \(not with -K\)	--python -K
profile-lite	2	-U and -K are mutually exclusive	-U -K
profile-lite	2	--python needs user stacks \(not with -K\)	--python -K
profile-lite	2	invalid stack depth: 200	--perf-max-stack-depth 200
profile-lite	2	--unwind: auto, dwarf or fp, not 'x'	--unwind x
offcputime-lite	2	invalid duration: 'x' is not a number	x
offcputime-lite	2	unexpected argument	1 2
offcputime-lite	2	invalid minimum block time: '-1'|invalid minimum block time: -1	-m -1
execsnoop-lite	2	invalid max-args: 0	--max-args 0
execsnoop-lite	2	invalid max-args: 129	--max-args 129
execsnoop-lite	2	invalid max-args: 'x' is not a number	--max-args x
execsnoop-lite	2	invalid max-arg-len: 2	--max-arg-len 2
execsnoop-lite	2	invalid UID: 'bob' is not a number	-u bob
execsnoop-lite	2	invalid NAME '\(': 	-n '('
execsnoop-lite	2	invalid LINE '\[a': 	-l '[a'
execsnoop-lite	2	not a cgroup v2 directory	-c /tmp
execsnoop-lite	2	Too many arguments	5
execsnoop-lite	2	unrecognized option	--serve 0
opensnoop-lite	2	invalid duration: 0	-d 0
opensnoop-lite	2	invalid duration: 'x' is not a number	-d x
opensnoop-lite	2	invalid FLAG 'O_BOGUS'	-f O_BOGUS
opensnoop-lite	2	invalid UID: '-1'|invalid UID: -1	-u -1
opensnoop-lite	2	PID 999999999: no such process	-p 999999999
opensnoop-lite	2	TID 999999999: no such process	-t 999999999
opensnoop-lite	2	invalid buffer-pages: 3 \(must be a power of 2\)	-b 3
opensnoop-lite	2	invalid NAME: empty	-n ''
opensnoop-lite	2	not a cgroup v2 directory	-c /tmp
opensnoop-lite	2	Too many arguments	5
profile-lite	2	invalid frequency: 0	-F 0
profile-lite	2	invalid frequency: 'x' is not a number	-F x
profile-lite	2	-F and --count are mutually exclusive	-F 99 --count 1000000
profile-lite	2	invalid sample period: 5	--count 5
profile-lite	2	-U and -K are mutually exclusive	-U -K
profile-lite	2	no CPU 4096	-C 4096
profile-lite	2	PID 999999999: no such process	-p 999999999
profile-lite	2	invalid stack storage size: 0	--stack-storage-size 0
profile-lite	2	invalid duration: 'x' is not a number	x
profile-lite	2	--unwind: auto, dwarf or fp, not 'frames'	--unwind frames
flamegraph-lite	1	failed to open /nonexistent/none: No such file	/nonexistent/none
flamegraph-lite	1	failed to read /: Is a directory	/
flamegraph-lite	2	invalid width: 10	--width 10 "$F"
flamegraph-lite	2	invalid width: 'wide'	--width wide "$F"
flamegraph-lite	2	invalid minwidth: 'abc'	--minwidth abc "$F"
flamegraph-lite	2	invalid minwidth: '-1'	--minwidth -1 "$F"
flamegraph-lite	2	invalid minwidth: '101%'	--minwidth 101% "$F"
flamegraph-lite	2	invalid countname: empty	--countname '' "$F"
EOF
)

# Without privileges: one line per tool, TOOL, STDERR-REGEX and the
# arguments of a run that would trace; "-" for a tool that loads nothing.
# execsnoop-lite and opensnoop-lite need tracefs first: their hint is
# about it when it is mounted for root alone or not mounted.
NO_PRIVILEGE=$(cat <<'EOF'
runqlat-lite	hint: run as root, or grant CAP_BPF and CAP_PERFMON	1 1
biolatency-lite	hint: run as root, or grant CAP_BPF and CAP_PERFMON	1 1
tcpretrans-lite	hint: run as root, or grant CAP_BPF and CAP_PERFMON	
dstate-lite	hint: run as root, or grant CAP_BPF and CAP_PERFMON	1 1
strace-lite	hint: run as root, or grant CAP_BPF and CAP_PERFMON	-c true
offcputime-lite	hint: run as root, or grant CAP_BPF and CAP_PERFMON	1
execsnoop-lite	hint: 	
opensnoop-lite	hint: 	
profile-lite	hint: run as root, or grant CAP_BPF and CAP_PERFMON	1
flamegraph-lite	-	
EOF
)

# rows TABLE: the tools a table has lines for, sorted and unique.
rows() { cut -f1 <<<"$1" | sort -u; }

# unprivileged CMD...: CMD without any capability (as nobody when root),
# bounded in time as expect_fail bounds a command.
unprivileged() {
	if [ "$(id -u)" = 0 ]; then
		timeout -k 5 120 setpriv --reuid 65534 --regid 65534 --clear-groups --inh-caps=-all "$@"
	else
		timeout -k 5 120 "$@"
	fi
}

@test "usage: each table has a line for every tool of make print-tools and none for another" {
	local table
	for table in BAD_INPUT NO_PRIVILEGE; do
		diff <(tools | tr ' ' '\n' | sort) <(rows "${!table}") ||
			{ echo "$table: make print-tools (<) vs the table's tools (>)" >&2; return 1; }
	done
}

@test "usage: every tool rejects an unknown option with exit 2 and its name" {
	local t bad=0
	for t in $(tools); do
		expect_fail 2 "unrecognized option '--bogus'" "$BIN/$t" --bogus "$F" || bad=$((bad + 1))
	done
	[ "$bad" = 0 ]
}

@test "usage: bad input gets a clear message and its exit status, never a crash or a hang (one table, every tool)" {
	local tool rc pattern args n=0 bad=0
	while IFS=$'\t' read -r tool rc pattern args; do
		eval "set -- $args"
		n=$((n + 1))
		expect_fail "$rc" "$pattern" "$BIN/$tool" "$@" || {
			echo "  ^ line $n: $tool $args" >&2
			bad=$((bad + 1))
		}
	done <<<"$BAD_INPUT"
	echo "$n checks, $bad failed"
	[ "$n" -gt 100 ]
	[ "$bad" = 0 ]
}

@test "usage: biolatency-lite -d PARTITION names the whole disk to use instead" {
	local part
	part=$(lsblk -lno NAME,TYPE | awk '$2 == "part" {print $1; exit}')
	[ -n "$part" ] || skip "no partition on this machine"
	expect_fail 2 "is a partition" "$BIN/biolatency-lite" -d "$part"
}

@test "usage: tcpretrans-lite --help says why -l is not offered" {
	run "$BIN/tcpretrans-lite" --help
	[ "$status" = 0 ]
	[[ "$output" == *"no tracepoint for them"* ]]
}

# bats test_tags=smoke
@test "usage: not root: every tool that loads BPF fails with a privilege hint, exit 1" {
	local tool pattern args bad=0
	[ "$(id -u)" != 0 ] || command -v setpriv >/dev/null || skip "no setpriv"
	while IFS=$'\t' read -r tool pattern args; do
		[ "$pattern" = - ] && continue
		eval "set -- $args"
		# a directory nobody may write to is no reason to fail
		cd "$BATS_TEST_TMPDIR"
		expect_fail 1 "$pattern" unprivileged "$BIN/$tool" "$@" || {
			echo "  ^ $tool $args" >&2
			bad=$((bad + 1))
		}
	done <<<"$NO_PRIVILEGE"
	[ "$bad" = 0 ]
}

@test "usage: --version prints the version every tool shares" {
	local t v
	for t in $(tools); do
		v=$("$BIN/$t" --version)
		[ "$v" = "$t $(cat "$ROOT/VERSION")" ]
	done
}
