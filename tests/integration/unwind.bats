#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# User stacks of code built without frame pointers, as distributions build
# it: unwound in BPF from each file's .eh_frame (profile-lite --unwind).
# Workloads: Debian's own xz (xz, liblzma and libc without frame pointers)
# and tests/workloads' profwl built with -fomit-frame-pointer
# (build/tests/workloads-nofp) or with its own functions' CFI in
# .debug_frame only (build/tests/workloads-debugframe). The reference is
# perf's DWARF unwinding (perf record --call-graph dwarf) of the same
# process at the same time.

load helpers
bats_require_minimum_version 1.5.0

NOFP=$ROOT/build/tests/workloads-nofp

setup() {
	require_root
	XZPID= GZPID= WRPID= DDPID= WLPID=
}

teardown() {
	[ -z "$XZPID" ] || kill "$XZPID" 2>/dev/null || true
	[ -z "$XZPID" ] || wait "$XZPID" 2>/dev/null || true
	[ -z "$WRPID" ] || kill "$WRPID" 2>/dev/null || true
	[ -z "$GZPID" ] || kill "$GZPID" 2>/dev/null || true
	[ -z "$DDPID" ] || kill "$DDPID" 2>/dev/null || true
	[ -z "$WLPID" ] || kill "$WLPID" 2>/dev/null || true
	# a tool left running by a test that failed half-way is stopped too
	cleanup_cgroup
}

# Debian's xz compressing random data: all its time under lzma_code.
start_xz() {
	command -v xz >/dev/null || skip "xz (xz-utils) not installed"
	xz -9 -T1 </dev/urandom >/dev/null &
	XZPID=$!
	wait_lzma
}

# wait_lzma: XZPID's threads and mappings in place before a tool reads them.
wait_lzma() {
	for _ in $(seq 50); do
		grep -q liblzma "/proc/$XZPID/maps" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "xz did not map liblzma" >&2
	return 1
}

# stack_sum FILE SELECT FIELD FRAME...: the sum of FIELD (samples,
# total_us) over the stack records in FILE (--json) that the jq condition
# SELECT keeps and whose user stack holds every FRAME.
stack_sum() {
	local f=$1 sel=$2 field=$3
	shift 3
	jq -s --arg field "$field" --argjson want "$(jq -cn '$ARGS.positional' --args "$@")" "
		[.[] | select(.type == \"stack\") | select($sel) |
		 select(. as \$r | \$want | all(. as \$f | (\$r.user_stack // []) | index(\$f))) |
		 .[\$field]] | add // 0" "$f"
}

# stack_share FILE SELECT FIELD FRAME...: that sum's share of FIELD's sum
# over all the records SELECT keeps (0 when there are none).
stack_share() {
	local hit all
	hit=$(stack_sum "$@")
	all=$(stack_sum "$1" "$2" "$3")
	awk -v a="$hit" -v b="$all" 'BEGIN { print b ? a / b : 0 }'
}

# share_json FILE PID FRAME...: the share of PID's samples in FILE (--json)
# whose user stack holds every FRAME.
share_json() {
	local f=$1 p=$2
	shift 2
	stack_share "$f" ".pid == $p" samples "$@"
}

# samples_json FILE PID: PID's samples in FILE.
samples_json() {
	stack_sum "$1" ".pid == $2" samples
}

# samples_with FILE PID FRAME...: PID's samples in FILE (--json) whose
# user stack holds every FRAME.
samples_with() {
	local f=$1 p=$2
	shift 2
	stack_sum "$f" ".pid == $p" samples "$@"
}

# complete_after FRAME ALL FULL COUNTED: of ALL samples through FRAME, FULL
# complete; those cut short are at most COUNTED (walked before their
# process's tables or list were in), and at least 0.8 are complete.
complete_after() {
	echo "$1: $2 samples, $3 complete; $4 walked before their tables or list"
	[ "$2" -ge 100 ]
	[ $(($2 - $3)) -le "$4" ]
	assert_between "complete $1 stacks" "$(awk -v a="$3" -v b="$2" 'BEGIN { print a / b }')" 0.8 1
}

# stop_after_wl: the workload WLPID ends, the tool is stopped; its exit
# status, its JSON and the unwinder's -v lines.
stop_after_wl() {
	wait "$WLPID"
	stop_tool INT
	[ "$TOOL_RC" = 0 ]
	assert_ndjson "$TOOL_OUT"
	grep 'unwind:' "$TOOL_ERR"
}

# profile_run ARGS...: profile-lite --json for 3 s; leaves TOOL_OUT.
profile_run() {
	start_tool profile-lite -j "$@" 3
	wait_tool
	[ "$TOOL_RC" = 0 ]
	assert_ndjson "$TOOL_OUT"
}

# bats test_tags=vm
@test "unwind: Debian's xz (no frame pointers), by default (--unwind auto): >= 95% of samples reach __libc_start_call_main through lzma_code; frame pointers alone: none" {
	local share
	start_xz
	# the default: --unwind auto
	profile_run -F 199 -p "$XZPID"
	[ "$(samples_json "$TOOL_OUT" "$XZPID")" -ge 50 ]
	share=$(share_json "$TOOL_OUT" "$XZPID" lzma_code __libc_start_call_main)
	echo "tables: $share of the samples complete"
	assert_between "complete stacks" "$share" 0.95 1
	# the same process by frame pointers only: the stacks stop in liblzma
	profile_run -F 199 -p "$XZPID" --unwind fp
	[ "$(samples_json "$TOOL_OUT" "$XZPID")" -ge 50 ]
	share=$(share_json "$TOOL_OUT" "$XZPID" lzma_code __libc_start_call_main)
	echo "frame pointers: $share of the samples complete"
	assert_between "complete stacks by frame pointers" "$share" 0 0.05
}

@test "unwind: Debian's python3.11 (static libpython, no frame pointers, rbp a general register in the eval loop): >= 95% of samples reach __libc_start_call_main; frame pointers alone: none" {
	local share
	[ -x /usr/bin/python3.11 ] || skip "Debian's python3.11 not installed"
	/usr/bin/python3.11 -c 'while True: sum(range(1000))' &
	XZPID=$!
	for _ in $(seq 50); do
		grep -q libm "/proc/$XZPID/maps" 2>/dev/null && break
		sleep 0.1
	done
	profile_run -F 199 -U -p "$XZPID" --unwind dwarf --no-python
	[ "$(samples_json "$TOOL_OUT" "$XZPID")" -ge 50 ]
	share=$(share_json "$TOOL_OUT" "$XZPID" _PyEval_EvalFrameDefault Py_BytesMain __libc_start_call_main)
	echo "tables: $share of the samples complete"
	assert_between "complete stacks" "$share" 0.95 1
	profile_run -F 199 -U -p "$XZPID" --unwind fp --no-python
	share=$(share_json "$TOOL_OUT" "$XZPID" __libc_start_call_main)
	echo "frame pointers: $share of the samples complete"
	assert_between "complete stacks by frame pointers" "$share" 0 0.05
}

# offcpu_gzip ARGS...: Debian's gzip reading a FIFO that a writer feeds a
# line every 100 ms, under offcputime-lite -j ARGS -p for 3 s (with
# GZ_PPROF=FILE, --pprof FILE instead of -j); leaves GZPID, TOOL_OUT,
# TOOL_ERR. The tool starts once gzip is blocked in
# read() of its stdin (syscall 0 on fd 0), with libc mapped; the writer
# waits 2 s first, so that wait began before the tool (not counted) and
# the tool has built gzip's tables before the 100 ms waits it measures.
offcpu_gzip() {
	command -v gzip >/dev/null || skip "gzip not installed"
	local fifo=$BATS_TEST_TMPDIR/gz.fifo
	rm -f "$fifo"
	mkfifo "$fifo"
	gzip -c <"$fifo" >/dev/null &
	GZPID=$!
	(sleep 2; for _ in $(seq 60); do echo x; sleep 0.1; done) >"$fifo" &
	WRPID=$!
	for _ in $(seq 200); do
		[ "$(cat "/proc/$GZPID/comm" 2>/dev/null)" = gzip ] &&
			[ "$(cut -d' ' -f1,2 "/proc/$GZPID/syscall" 2>/dev/null)" = "0 0x0" ] && break
		sleep 0.02
	done
	[ "$(cut -d' ' -f1,2 "/proc/$GZPID/syscall")" = "0 0x0" ]
	grep -q 'libc\.so' "/proc/$GZPID/maps"
	if [ -n "${GZ_PPROF:-}" ]; then
		start_tool offcputime-lite --pprof "$GZ_PPROF" -v -p "$GZPID" "$@" 3
	else
		start_tool offcputime-lite -j -v -p "$GZPID" "$@" 3
	fi
	wait_tool
	[ "$TOOL_RC" = 0 ]
	[ -n "${GZ_PPROF:-}" ] || assert_ndjson "$TOOL_OUT"
	kill "$WRPID" 2>/dev/null || true
	wait "$WRPID" 2>/dev/null || true
	wait "$GZPID" 2>/dev/null || true
}

# offcpu_share FRAME...: the share of GZPID's off-CPU time whose user stack holds every FRAME.
offcpu_share() {
	stack_share "$TOOL_OUT" ".pid == $GZPID" total_us "$@"
}

# offcpu_incomplete: GZPID's stacks that do not reach __libc_start_call_main (for a failure's log).
offcpu_incomplete() {
	jq -c --argjson p "$GZPID" 'select(.type == "stack" and .pid == $p and
		((.user_stack // []) | index("__libc_start_call_main") | not)) |
		{total_us, count, user_stack, kernel_stack: (.kernel_stack // [])[0:4]}' "$TOOL_OUT" | head -20
	grep -v '^libbpf' "$TOOL_ERR" | tail -8
}

# bats test_tags=vm
@test "unwind: offcputime-lite on Debian's gzip blocked reading a pipe: >= 95% of its off-CPU time reaches __libc_start_call_main through main (tp_btf), by default; frame pointers alone: none" {
	local share
	offcpu_gzip
	share=$(offcpu_share read __libc_start_call_main)
	echo "tables (the default, --unwind auto): $share of the off-CPU time complete"
	offcpu_incomplete
	assert_between "complete stacks" "$share" 0.95 1
	offcpu_gzip --unwind fp
	share=$(offcpu_share __libc_start_call_main)
	echo "frame pointers: $share complete"
	assert_between "complete stacks by frame pointers" "$share" 0 0.05
}

# bats test_tags=vm
@test "unwind: offcputime-lite, the same with the sched hooks on raw_tp (forced)" {
	local share
	BPFLITE_FORCE_RAW_TP=1 offcpu_gzip --unwind dwarf
	grep -q "raw_tp (forced)" "$TOOL_ERR"
	share=$(offcpu_share read __libc_start_call_main)
	echo "tables: $share of the off-CPU time complete"
	offcpu_incomplete
	assert_between "complete stacks" "$share" 0.95 1
}

@test "unwind: offcputime-lite --pprof with tables: go tool pprof shows gzip's wait under __libc_start_call_main" {
	# go tool keeps its caches under HOME
	export HOME=$BATS_TEST_TMPDIR GOCACHE=$BATS_TEST_TMPDIR/gocache
	GZ_PPROF=$BATS_TEST_TMPDIR/gz.pb.gz offcpu_gzip --unwind dwarf
	# "go" alone is helpers.bash's go FIFO
	run -0 command go tool pprof -traces "$BATS_TEST_TMPDIR/gz.pb.gz"
	echo "$output" | head -40
	[[ $output == *__libc_start_call_main* ]]
	[[ $output == *pipe_read* ]]
}

# xz_bursts: Debian's xz (no frame pointers) compressing random data that
# a writer sends through a FIFO, 256 KiB every 0.3 s: it computes, then
# blocks reading until the next burst; leaves XZPID and WRPID.
xz_bursts() {
	command -v xz >/dev/null || skip "xz (xz-utils) not installed"
	local fifo=$BATS_TEST_TMPDIR/xz.fifo
	mkfifo "$fifo"
	xz -T1 <"$fifo" >/dev/null &
	XZPID=$!
	(while :; do head -c 262144 /dev/urandom; sleep 0.3; done) >"$fifo" &
	WRPID=$!
	wait_lzma
}

# xz_kinds_complete LO HI: in profile-lite --off-cpu's JSON ($TOOL_OUT),
# XZPID's on-CPU and off-CPU time, each 0.25 s at least (50 samples at
# 199 Hz), in stacks that reach __libc_start_call_main for a share
# between LO and HI.
xz_kinds_complete() {
	local kind sel share
	for kind in on-cpu off-cpu; do
		sel=".pid == $XZPID and .kind == \"$kind\""
		echo "$kind: $(stack_sum "$TOOL_OUT" "$sel" total_us) us"
		[ "$(stack_sum "$TOOL_OUT" "$sel" total_us)" -ge 250000 ]
		share=$(stack_share "$TOOL_OUT" "$sel" total_us __libc_start_call_main)
		echo "$kind: $share complete"
		assert_between "complete $kind stacks" "$share" "$1" "$2"
	done
}

# tool_map_names PID: the names of the BPF maps process PID holds, one per
# map (a map held through two fds is listed once).
tool_map_names() {
	local id
	for id in $(proc_bpf_ids "$1"); do
		if [ "${id#m}" != "$id" ]; then
			bpftool map show id "${id#m}" -j | jq -r .name
		fi
	done
}

# progs_using PID MAP: the names of the BPF programs process PID holds
# that use its map called MAP.
progs_using() {
	local id map=
	for id in $(proc_bpf_ids "$1"); do
		if [ "${id#m}" != "$id" ] && [ "$(bpftool map show id "${id#m}" -j | jq -r .name)" = "$2" ]; then
			map=${id#m}
		fi
	done
	[ -n "$map" ] || { echo "no map $2 in process $1" >&2; return 1; }
	for id in $(proc_bpf_ids "$1"); do
		if [ "${id#p}" != "$id" ]; then
			bpftool prog show id "${id#p}" -j |
				jq -r --argjson m "$map" 'select((.map_ids // []) | index($m)) | .name'
		fi
	done
}

@test "unwind: profile-lite --off-cpu on Debian's xz, computing and blocked on a pipe in turns: >= 95% of both its on-CPU samples and its off-CPU time reach __libc_start_call_main, both BPF objects on one set of tables; frame pointers alone: none" {
	local names users m
	xz_bursts
	start_tool profile-lite -j -v -F 199 --off-cpu --unwind dwarf -p "$XZPID"
	# offcputime's object walks profile's tables into its stack storage:
	# one map of each, used by the sampling and the sched_switch programs
	names=$(tool_map_names "$TOOL_PID")
	for m in unw_rows unw_maps unw_procs unw_stacks unw_remap; do
		echo "$m: $(grep -cx "$m" <<<"$names") maps"
		[ "$(grep -cx "$m" <<<"$names")" = 1 ]
	done
	users=$(progs_using "$TOOL_PID" unw_rows)
	echo "programs using unw_rows:" $users
	grep -qx sample <<<"$users"
	grep -q '^sched_switch' <<<"$users"
	sleep 3
	stop_tool INT
	[ "$TOOL_RC" = 0 ]
	assert_ndjson "$TOOL_OUT"
	grep 'unwind:' "$TOOL_ERR"
	grep -Eq 'unwind: [1-9][0-9]* tables, [1-9][0-9]* of [0-9]+ rows in BPF \([0-9]+ KiB' "$TOOL_ERR"
	grep -Eq 'unwind: [0-9]+ stacks: [1-9][0-9]* frames by tables' "$TOOL_ERR"
	xz_kinds_complete 0.95 1
	# the same process by frame pointers only: both kinds stop in its code
	profile_run -F 199 --off-cpu -p "$XZPID" --unwind fp
	xz_kinds_complete 0 0.05
}

# hot_complete PID: profile-lite's JSON ($TOOL_OUT) of profwl PID: prof_hot_fn
# in 0.2 of its samples at least (3/5 of its rounds' CPU), and >= 0.95 of
# those complete down to __libc_start_call_main.
hot_complete() {
	local hot share
	hot=$(share_json "$TOOL_OUT" "$1" prof_hot_fn)
	share=$(share_json "$TOOL_OUT" "$1" prof_hot_fn main __libc_start_call_main)
	echo "prof_hot_fn in $hot of the samples, complete in $share"
	assert_between "samples in prof_hot_fn" "$hot" 0.2 1
	assert_between "complete prof_hot_fn stacks" "$(awk -v a="$share" -v b="$hot" 'BEGIN{print a/b}')" 0.95 1
}

# nofp_run BIN ARGS...: BIN (profwl) for 1.5 s of CPU under profile-lite
# -j -U -F 199 ARGS -p; leaves WLPID, TOOL_OUT, TOOL_ERR.
nofp_run() {
	local bin=$1 go
	shift
	go=$(make_go)
	"$bin" -s 30 -b 1500 -g "$go" >/dev/null &
	WLPID=$!
	start_tool profile-lite -j -F 199 -U "$@" -p "$WLPID"
	go "$go"
	wait "$WLPID"
	stop_tool INT
	[ "$TOOL_RC" = 0 ]
	assert_ndjson "$TOOL_OUT"
}

@test "unwind: a workload built with -fomit-frame-pointer: every stack from prof_hot_fn reaches main and __libc_start_call_main; frame pointers alone: none" {
	local share
	nofp_run "$NOFP/profwl" --unwind dwarf
	hot_complete "$WLPID"
	share=$(share_json "$TOOL_OUT" "$WLPID" "[unwind error]")
	assert_between "stacks marked [unwind error]" "$share" 0 0.05

	nofp_run "$NOFP/profwl" --unwind fp
	share=$(share_json "$TOOL_OUT" "$WLPID" prof_hot_fn main)
	echo "frame pointers: complete in $share"
	assert_between "complete stacks by frame pointers" "$share" 0 0.05
}

@test "unwind: a workload whose own functions have their CFI in .debug_frame only (-g, no unwind tables): every prof_hot_fn stack reaches __libc_start_call_main" {
	local bin=$ROOT/build/tests/workloads-debugframe/profwl at
	# what the test is about: prof_hot_fn's FDE in .debug_frame, not in .eh_frame
	at=$(nm "$bin" | awk '$3 == "prof_hot_fn" { sub(/^0+/, "", $1); print $1 }')
	[ -n "$at" ]
	readelf --debug-dump=frames "$bin" | grep -q "pc=0*$at"
	run ! sh -c "readelf --debug-dump=frames '$bin' | sed '/^Contents of the .debug_frame/,\$d' | grep -q 'pc=0*$at'"
	nofp_run "$bin" -v --unwind dwarf
	grep 'unwind:' "$TOOL_ERR"
	hot_complete "$WLPID"
}

@test "unwind: a process that execs after the tool attached is unwound by its new program's tables" {
	local go hold
	go=$(make_go)
	hold=$(make_go)
	# a shell the tool finds at start, then becomes the workload
	(
		read -r _ <"$hold"
		exec "$NOFP/profwl" -s 30 -b 1500 -g "$go" >/dev/null
	) &
	WLPID=$!
	start_tool profile-lite -j -v -F 199 -U --unwind dwarf -p "$WLPID"
	go "$hold"
	go "$go"
	wait "$WLPID"
	stop_tool INT
	[ "$TOOL_RC" = 0 ]
	grep 'unwind:' "$TOOL_ERR"
	hot_complete "$WLPID"
}

@test "unwind: code a process maps after its tables were built (Debian's python3.11 importing lzma: dlopen of _lzma and liblzma) is unwound by its own tables once the tool sees it; the samples before are counted" {
	local go lz full since
	[ -x /usr/bin/python3.11 ] || skip "Debian's python3.11 not installed"
	go=$(make_go)
	# liblzma is not mapped until the import, after the tool started
	/usr/bin/python3.11 -c '
import os, sys, time
open(sys.argv[1]).read()
# sampled first, so the tool has read its mappings before the import
t = time.monotonic()
while time.monotonic() - t < 0.5:
    sum(range(1000))
import lzma
data, t = os.urandom(1 << 18), time.monotonic()
while time.monotonic() - t < 3:
    lzma.compress(data, preset=9)' "$go" &
	WLPID=$!
	for _ in $(seq 50); do
		grep -q libm "/proc/$WLPID/maps" 2>/dev/null && break
		sleep 0.1
	done
	run ! grep -q liblzma "/proc/$WLPID/maps"
	start_tool profile-lite -j -v -F 199 --unwind dwarf --no-python -p "$WLPID"
	go "$go"
	stop_after_wl
	lz=$(samples_with "$TOOL_OUT" "$WLPID" lzma_code)
	full=$(samples_with "$TOOL_OUT" "$WLPID" lzma_code _PyEval_EvalFrameDefault __libc_start_call_main)
	# the stacks cut short are those walked before the new list was in
	since=$(grep -Eo '[0-9]+ through code mapped since their list' "$TOOL_ERR" | grep -Eo '^[0-9]+')
	# the list was read again for the library: the path under test ran
	grep -q "unwind: pid $WLPID mapped code since its list was built" "$TOOL_ERR"
	complete_after lzma_code "$lz" "$full" "$since"
}

@test "unwind: system-wide, a process started after the tool is unwound by its tables once the tool has seen it; the samples before are counted" {
	local go hot full before since
	go=$(make_go)
	start_tool profile-lite -j -v -F 199 -U --unwind dwarf
	"$NOFP/profwl" -s 30 -b 1500 -g "$go" >/dev/null &
	WLPID=$!
	go "$go"
	stop_after_wl
	# its first samples name it, and walk frame pointers until its tables
	# are in (built after those of every process found before it): each
	# stack cut short is one of those counted
	hot=$(samples_with "$TOOL_OUT" "$WLPID" prof_hot_fn)
	full=$(samples_with "$TOOL_OUT" "$WLPID" prof_hot_fn main __libc_start_call_main)
	# (or walked by a list read just before the shell's exec of it, and
	# counted as through code mapped since that list)
	before=$(grep -Eo '[0-9]+ before their tables' "$TOOL_ERR" | grep -Eo '^[0-9]+')
	since=$(grep -Eo '[0-9]+ through code mapped since their list' "$TOOL_ERR" | grep -Eo '^[0-9]+')
	complete_after prof_hot_fn "$hot" "$full" $((before + since))
}

@test "unwind: xz's stacks frame by frame as perf's DWARF unwinding of the same process" {
	local cmp perfpid
	command -v perf >/dev/null || skip "perf (linux-perf) not installed"
	start_xz
	perf record -q -F 199 --call-graph dwarf -p "$XZPID" -o "$BATS_TEST_TMPDIR/perf.data" -- sleep 4 \
		>/dev/null 2>&1 &
	perfpid=$!
	profile_run -F 199 -p "$XZPID" --unwind dwarf
	wait "$perfpid"
	perf script -i "$BATS_TEST_TMPDIR/perf.data" >"$BATS_TEST_TMPDIR/perf.txt" 2>/dev/null
	cmp=$("$ROOT/tests/integration/perf_stacks.py" "$BATS_TEST_TMPDIR/perf.txt" "$TOOL_OUT" "$XZPID")
	echo "$cmp"
	[ "$(jq .perf_samples <<<"$cmp")" -gt 50 ]
	# our caller chains are perf's, and as deep
	assert_between "our samples whose callers perf saw" "$(jq .callers_seen_by_perf <<<"$cmp")" 0.9 1
	[ "$(jq .our_max_depth <<<"$cmp")" -ge "$(jq '.perf_max_depth - 1' <<<"$cmp")" ]
	[ "$(jq .our_max_depth <<<"$cmp")" -ge 12 ]
}

@test "unwind: -v names the tables' size; a crafted .eh_frame is a warning and frame pointers, not a crash" {
	local dir=$BATS_TEST_TMPDIR share
	start_xz
	start_tool profile-lite -v -F 99 --unwind dwarf -p "$XZPID" 1
	wait_tool
	[ "$TOOL_RC" = 0 ]
	grep -Eq 'unwind: [1-9][0-9]* tables, [1-9][0-9]* of [0-9]+ rows in BPF \([0-9]+ KiB' "$TOOL_ERR"
	kill "$XZPID"
	wait "$XZPID" || true
	# xz with its .eh_frame_hdr's count of FDEs far past the section
	cp "$(command -v xz)" "$dir/xz-bad"
	python3 - "$dir/xz-bad" <<'PY'
import struct, subprocess, sys
path = sys.argv[1]
out = subprocess.run(["readelf", "-SW", path], capture_output=True, text=True).stdout
for line in out.splitlines():
    if " .eh_frame_hdr " in line:
        f = line.split("]", 1)[1].split()
        off = int(f[3], 16)
        with open(path, "r+b") as fh:
            fh.seek(off + 8)
            fh.write(struct.pack("<I", 0x7fffffff))
        break
else:
    sys.exit("no .eh_frame_hdr")
PY
	"$dir/xz-bad" -9 -T1 </dev/urandom >/dev/null &
	XZPID=$!
	for _ in $(seq 50); do
		grep -q liblzma "/proc/$XZPID/maps" 2>/dev/null && break
		sleep 0.1
	done
	profile_run -v -F 199 --unwind dwarf -p "$XZPID"
	grep -E "warning: cannot unwind .*/xz-bad by its .eh_frame .*: frame pointers there" "$TOOL_ERR"
	[ "$(samples_json "$TOOL_OUT" "$XZPID")" -ge 50 ]
	# liblzma's table still serves; xz-bad's frames take frame pointers, which stop there
	share=$(share_json "$TOOL_OUT" "$XZPID" lzma_code)
	assert_between "stacks through lzma_code" "$share" 0.95 1
	share=$(share_json "$TOOL_OUT" "$XZPID" lzma_code __libc_start_call_main)
	assert_between "complete stacks through a file without a usable table" "$share" 0 0.05
}

@test "unwind: -K takes no user stacks, so builds no tables" {
	run -0 "$BIN/profile-lite" -K -v --unwind dwarf 1
	run ! grep -q 'unwind:' <<<"$output"
}

# dd_run TOOL_ARGS...: Debian's dd (coreutils and libc without frame
# pointers) reading 32 MiB in 8,192 reads with O_DIRECT from a file on the
# root file system, exec'd by a shell that dstate-lite -j -m 0 -U -p traces
# from before the exec; leaves TOOL_OUT and DSLEEPS, having checked that
# every D sleep of dd (at least 1000) was reported (dsleeps_reported).
dd_run() {
	local f=$BATS_TEST_TMPDIR/dio.img
	[ -f "$f" ] || { dd if=/dev/urandom of="$f" bs=1M count=32 status=none && sync "$f"; }
	dd_once "$f" "$@"
	assert_ndjson "$TOOL_OUT"
	dsleeps_reported "$DDPID" 1000
}

dd_once() {
	local go f=$1
	shift
	go=$(make_go)
	sh -c 'read -r _ <"$1"; exec dd if="$2" of=/dev/null bs=4k count=8192 iflag=direct status=none' \
		sh "$go" "$f" &
	DDPID=$!
	start_tool dstate-lite -j -m 0 -U -p "$DDPID" "$@"
	ktrace_sched "$DDPID"
	go "$go"
	wait "$DDPID"
	stop_tool INT
	ktrace_stop
	[ "$TOOL_RC" = 0 ]
}

# episodes_share FILE PID FRAME: PID's episodes in FILE (in the order they
# ended), and of those from the first whose user stack holds FRAME on: how
# many, and the share that hold it ("N BEFORE AFTER SHARE").
episodes_share() {
	jq -rs --argjson p "$2" --arg f "$3" '
		[.[] | select(.type == "episode" and .pid == $p) | ((.user_stack // []) | index($f)) != null] as $e |
		(($e | index(true)) // ($e | length)) as $first |
		$e[$first:] as $after |
		"\($e | length) \($first) \($after | length) \(if ($after | length) == 0 then 0 else ($after | map(select(.)) | length) / ($after | length) end)"' "$1"
}

@test "unwind: dstate-lite -U on Debian's dd in D (O_DIRECT reads), exec'd after the tool attached: once its tables are built (by default), every sleep's user stack reaches __libc_start_call_main; frame pointers alone: none" {
	local n before after share pending marked
	dd_run -v
	read -r n before after share < <(episodes_share "$TOOL_OUT" "$DDPID" __libc_start_call_main)
	echo "tables: $n episodes of $DSLEEPS D sleeps traced; $before before the first complete stack, then $after, $share complete"
	jq -c --argjson p "$DDPID" 'select(.type == "episode" and .pid == $p) | .user_stack' "$TOOL_OUT" | sort | uniq -c | sort -rn | head -3
	grep 'unwind:' "$TOOL_ERR"
	# a sleep before dd's tables were built is counted as such, and its
	# stack is marked, never a short one passed off as whole; the tables
	# come while dd runs (in its first sleeps), not after it ended
	pending=$(sed -En 's/.*unwind: .*, ([0-9]+) before their tables;.*/\1/p' "$TOOL_ERR")
	marked=$(jq -s --argjson p "$DDPID" '[.[] | select(.type == "episode" and .pid == $p and
		((.user_stack // []) | index("__libc_start_call_main")) == null) | .user_stack[-1]] |
		"\(length) \(map(select(. == "[unwind error]")) | length)"' -r "$TOOL_OUT")
	echo "incomplete stacks, marked ones: $marked; walked before the tables: $pending"
	[ "${marked% *}" = "${marked#* }" ]
	[ "${marked% *}" -le "$pending" ]
	[ "$after" -ge $((n / 2)) ]
	assert_between "complete stacks once built" "$share" 0.999 1
	grep -Eq 'unwind: [0-9]+ stacks: [1-9][0-9]* frames by tables' "$TOOL_ERR"
	dd_run --unwind fp
	read -r n before after share < <(episodes_share "$TOOL_OUT" "$DDPID" __libc_start_call_main)
	echo "frame pointers: $n episodes of $DSLEEPS D sleeps traced, $after complete"
	[ "$after" = 0 ]
}
