#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# biolatency-lite against O_DIRECT I/O of known count and size, one at a
# time, on a loop device of its own (backed by a file in /dev/shm, so the
# root disk sees none of it). Counts are exact: nothing else uses the
# loop device.

load helpers

W=23	# writes
R=17	# reads

setup() {
	require_root
	IMG=/dev/shm/bpflite-bio-$$-$BATS_TEST_NUMBER.img
	truncate -s 32M "$IMG"
	LOOP=$(losetup -f --show "$IMG")
	DISK=${LOOP#/dev/}
	ZRAM=
}

# Runs even when a test fails: no loop or zram device, no cgroup is left behind.
teardown() {
	[ -n "${LOOP:-}" ] && losetup -d "$LOOP"
	rm -f "${IMG:-}"
	if [ -n "${ZRAM:-}" ]; then
		echo 1 >"/sys/block/zram$ZRAM/reset" 2>/dev/null || true
		echo "$ZRAM" >/sys/class/zram-control/hot_remove 2>/dev/null || true
	fi
	cleanup_test
}

# io_run TOOL_ARGS...: biolatency-lite -j ARGS while blkrw does W writes
# and R reads of 4 KiB on the loop device. Leaves TOOL_OUT, WLJ.
io_run() {
	local go wp
	go=$(make_go)
	"$WL/blkrw" -f "$LOOP" -w $W -r $R -s 4096 -g "$go" >"$BATS_TEST_TMPDIR/wl.json" &
	wp=$!
	start_tool biolatency-lite -j "$@"
	go "$go"
	wait "$wp"
	sleep 0.2
	stop_tool INT
	[ "$TOOL_RC" = 0 ]
	WLJ=$(cat "$BATS_TEST_TMPDIR/wl.json")
	assert_ndjson "$TOOL_OUT"
}

# Requests counted for disk $1 (-D output), over all intervals.
disk_count() {
	jq -s --arg d "$1" '[.[] | select(.type=="interval") | .histograms[] | select(.disk == $d) | .count] | add // 0' "$TOOL_OUT"
}
# All requests counted, over all intervals and histograms.
all_count() {
	jq -s '[.[] | select(.type=="interval") | .histograms[].count] | add // 0' "$TOOL_OUT"
}

# bats test_tags=smoke, vm
@test "biolatency: -D counts exactly the requests of the loop disk (tp_btf)" {
	io_run -D -v
	grep -q "loader: light" "$TOOL_ERR"
	grep -q "attach block_rq_issue: tp_btf" "$TOOL_ERR"
	echo "$WLJ"
	[ "$(disk_count "$DISK")" = $((W + R)) ]
	# each histogram names its disk and dev
	jq -se --arg d "$DISK" '[.[] | .histograms[]? | select(.disk == $d and (.dev | test("^7:[0-9]+$")))] | length == 1' "$TOOL_OUT"
	# the latency of a loop request on tmpfs: well under 100 ms each
	jq -se --arg d "$DISK" '[.[] | .histograms[]? | select(.disk == $d)][0] | .avg > 0 and .avg < 100000' "$TOOL_OUT"
	refute grep -q "warning" "$TOOL_ERR"
}

# bats test_tags=vm
@test "biolatency: -D exact counts, forced raw_tp path" {
	io_run -D -v --force-raw-tp
	grep -q "loader: light" "$TOOL_ERR"
	grep -q "attach block_rq_issue: raw_tp (forced)" "$TOOL_ERR"
	grep -q "attach block_rq_complete: raw_tp (forced)" "$TOOL_ERR"
	[ "$(disk_count "$DISK")" = $((W + R)) ]
}

@test "biolatency: -D exact counts, forced libbpf skeleton" {
	io_run -D -v --force-libbpf
	grep -q "loader: libbpf skeleton (forced)" "$TOOL_ERR"
	grep -q "attach block_rq_issue: tp_btf" "$TOOL_ERR"
	[ "$(disk_count "$DISK")" = $((W + R)) ]
}

@test "biolatency: --btf FILE (the BTF given explicitly) gives the same exact counts" {
	io_run -D -v --btf /sys/kernel/btf/vmlinux
	grep -q "loader: libbpf skeleton (--btf FILE" "$TOOL_ERR"
	[ "$(disk_count "$DISK")" = $((W + R)) ]
}

# The whole disks under the file system holding path $1, one a line: through
# partitions, device-mapper (LVM, crypt), md, and btrfs subvolumes alike.
disks_under() {
	local src
	src=$(findmnt -nvo SOURCE --target "$1")	# -v: no [/subvolume]
	[ -b "$src" ] || return 0
	lsblk -snlo NAME,TYPE "$src" | awk '$2 == "disk" {print $1}' | sort -u
}

@test "biolatency: -d DISK counts only that disk, not the root disk's traffic" {
	local go wp gr rp d n roots
	roots=$(disks_under "$ROOT/build")
	[ -n "$roots" ] || skip "the build directory is not on a block device (O_DIRECT I/O there reaches no disk)"
	# root-disk traffic of our own, at the same time: O_DIRECT on a file on /
	gr=$(make_go)
	"$WL/blkrw" -f "$ROOT/build/bio-test.$$" -C 1048576 -w 11 -r 11 -s 4096 -g "$gr" >/dev/null &
	rp=$!
	go=$(make_go)
	"$WL/blkrw" -f "$LOOP" -w $W -r $R -s 4096 -g "$go" >/dev/null &
	wp=$!
	# one run filtered by -d, one not, side by side
	start_tool biolatency-lite -j -D
	local all_out=$TOOL_OUT all_pid=$TOOL_PID
	TOOL_OUT=$BATS_TEST_TMPDIR/d.out TOOL_ERR=$BATS_TEST_TMPDIR/d.err
	"$BIN/biolatency-lite" -j -D -d "$LOOP" >"$TOOL_OUT" 2>"$TOOL_ERR" &
	TOOL_PID=$!
	for _ in $(seq 150); do grep -q "Hit Ctrl-C" "$TOOL_ERR" && break; sleep 0.1; done
	go "$gr" & go "$go"
	wait "$wp" "$rp"
	rm -f "$ROOT/build/bio-test.$$"
	sleep 0.2
	stop_tool INT
	kill -INT "$all_pid"; wait "$all_pid"
	cat "$TOOL_OUT"
	# filtered: the loop disk only, every request of it
	[ "$(disk_count "$DISK")" = $((W + R)) ]
	[ "$(all_count)" = $((W + R)) ]
	# unfiltered: the root disk's reads were there to be counted
	TOOL_OUT=$all_out
	[ "$(disk_count "$DISK")" = $((W + R)) ]
	n=0
	for d in $roots; do n=$((n + $(disk_count "$d"))); done
	echo "disks under $ROOT/build: $(echo $roots): $n requests"
	[ "$n" -ge 11 ]	# its O_DIRECT reads at least
}

@test "biolatency: -F splits by operation and flags, in bcc's names" {
	# -d also takes a path to the device node, through symlinks
	ln -s "$LOOP" "$BATS_TEST_TMPDIR/thedisk"
	io_run -F -d "$BATS_TEST_TMPDIR/thedisk"
	cat "$TOOL_OUT"
	local w r
	w=$(jq -s '[.[] | .histograms[]? | select(.flags | test("(^|-)Write$")) | .count] | add // 0' "$TOOL_OUT")
	r=$(jq -s '[.[] | .histograms[]? | select(.flags | test("(^|-)Read$")) | .count] | add // 0' "$TOOL_OUT")
	[ "$w" = $W ]
	[ "$r" = $R ]
	# direct I/O writes are synchronous: bcc calls them Sync-Write (Idle- too on recent kernels)
	jq -se '[.[] | .histograms[]? | select(.flags | test("Sync-Write$"))] | length == 1' "$TOOL_OUT"
}

@test "biolatency: -Q with a scheduler (insert events) counts each request once" {
	echo mq-deadline >"/sys/block/$DISK/queue/scheduler" || skip "no mq-deadline"
	io_run -Q -D -d "$DISK"
	[ "$(disk_count "$DISK")" = $((W + R)) ]
	io_run -Q -D -d "$DISK" --force-raw-tp
	[ "$(disk_count "$DISK")" = $((W + R)) ]
}

@test "biolatency: -c CGROUP counts only I/O issued by tasks in it" {
	local dir gi go wi wo
	test_cgroup bio
	dir=$TEST_CG
	gi=$(make_go)
	"$WL/blkrw" -f "$LOOP" -w 7 -r 5 -s 4096 -g "$gi" >/dev/null &
	wi=$!
	echo "$wi" >"$dir/cgroup.procs"
	go=$(make_go)
	"$WL/blkrw" -f "$LOOP" -w $W -r $R -s 4096 -g "$go" >/dev/null &
	wo=$!
	start_tool biolatency-lite -j -D -c "$dir"
	go "$gi" & go "$go"
	wait "$wi" "$wo"
	sleep 0.2
	stop_tool INT
	rmdir "$dir"
	[ "$(disk_count "$DISK")" = 12 ]
}

@test "biolatency: zram (bio-based, no request events) is not reported" {
	# zram is built in here (no modules to load); elsewhere it may be a module
	[ -w /sys/class/zram-control/hot_add ] || modprobe zram num_devices=0 2>/dev/null || true
	[ -w /sys/class/zram-control/hot_add ] || skip "kernel without zram (CONFIG_ZRAM)"
	ZRAM=$(cat /sys/class/zram-control/hot_add)
	echo 16M >"/sys/block/zram$ZRAM/disksize"
	local go wp gz zp
	gz=$(make_go)
	"$WL/blkrw" -f "/dev/zram$ZRAM" -w $W -r $R -s 4096 -g "$gz" >"$BATS_TEST_TMPDIR/z.json" &
	zp=$!
	go=$(make_go)
	"$WL/blkrw" -f "$LOOP" -w $W -r $R -s 4096 -g "$go" >/dev/null &
	wp=$!
	start_tool biolatency-lite -j -D
	go "$gz" & go "$go"
	wait "$zp" "$wp"
	sleep 0.2
	stop_tool INT
	cat "$BATS_TEST_TMPDIR/z.json"
	jq -e '.writes == 23 and .reads == 17' "$BATS_TEST_TMPDIR/z.json"	# the zram I/O happened
	[ "$(disk_count "zram$ZRAM")" = 0 ]
	[ "$(disk_count "$DISK")" = $((W + R)) ]	# while the loop disk's was seen
}

@test "biolatency: text output: bcc's layout, disk sections, -m, -T" {
	local go wp
	go=$(make_go)
	"$WL/blkrw" -f "$LOOP" -w $W -r $R -s 4096 -g "$go" >/dev/null &
	wp=$!
	start_tool biolatency-lite -D -m -T -d "$DISK"
	go "$go"
	wait "$wp"
	sleep 0.2
	stop_tool INT
	cat "$TOOL_OUT"
	grep -Eq "^disk = $DISK$" "$TOOL_OUT"
	grep -Eq '^     msecs               : count     distribution$' "$TOOL_OUT"
	grep -Eq '^         0 -> 1          : [0-9]+ +\|\*+ *\|$' "$TOOL_OUT"
	grep -Eq '^[0-9]{2}:[0-9]{2}:[0-9]{2} *$' "$TOOL_OUT"
	grep -q "Tracing block device I/O... Hit Ctrl-C to end." "$TOOL_ERR"
	# the counts of the rows add up to every request
	[ "$(awk -F'[:|]' '/->/{s += $2} END{print s}' "$TOOL_OUT")" = $((W + R)) ]
}

@test "biolatency: interval and count end the run by themselves" {
	run timeout 10 "$BIN/biolatency-lite" -j 1 2
	[ "$status" = 0 ]
	[ "$(echo "$output" | grep -c '"type":"interval"')" = 2 ]
}

@test "biolatency: SIGINT and SIGTERM print the final histogram, exit 0, leave no BPF behind" {
	local go wp ids
	for sig in INT TERM; do
		go=$(make_go)
		"$WL/blkrw" -f "$LOOP" -w 3 -r 3 -s 4096 -g "$go" >/dev/null &
		wp=$!
		start_tool biolatency-lite -d "$DISK"
		ids=$(proc_bpf_ids "$TOOL_PID")
		go "$go"
		wait "$wp"
		stop_tool "$sig"
		[ "$TOOL_RC" = 0 ]
		grep -q "usecs               : count     distribution" "$TOOL_OUT"
		assert_bpf_ids_gone "$ids"
	done
}

# hex_le N: the 8 bytes of N, little-endian, for bpftool.
hex_le() { printf '%016x' "$1" | sed 's/../& /g' | awk '{for (i = NF; i > 0; i--) printf "%s ", $i}'; }

@test "biolatency: a start that never completes is aged out after the age limit, and said so under -v" {
	local id now key_old="11 11 11 11 11 11 11 11" key_new="22 22 22 22 22 22 22 22"
	# the limit is 600 s; the hidden BPFLITE_BIO_MAX_AGE_S sets 5 for the
	# test, which then depends neither on a 10-minute wait nor on uptime
	BPFLITE_BIO_MAX_AGE_S=5 start_tool biolatency-lite -v -d "$DISK" 1
	# the tool's own map called start, found through its fds
	id=
	for m in $(awk '/^map_id:/ {print $2}' /proc/"$TOOL_PID"/fdinfo/* 2>/dev/null); do
		[ "$(bpftool map show id "$m" -j | jq -r .name)" = start ] && id=$m
	done
	[ -n "$id" ]
	# a request 'issued' at boot (1 ns), never completed; and one issued
	# just now (CLOCK_MONOTONIC, bpf_ktime_get_ns()'s clock)
	now=$(python3 -c 'import time; print(time.clock_gettime_ns(time.CLOCK_MONOTONIC))')
	bpftool map update id "$id" key hex $key_old value hex $(hex_le 1)
	bpftool map update id "$id" key hex $key_new value hex $(hex_le "$now")
	# one sweep later (every interval, 1 s): the old one is gone, the new
	# one, younger than the limit, is still there
	sleep 1.5
	refute bpftool map lookup id "$id" key hex $key_old
	bpftool map lookup id "$id" key hex $key_new
	# once past the limit it goes too
	for _ in $(seq 120); do
		bpftool map lookup id "$id" key hex $key_new >/dev/null 2>&1 || break
		sleep 0.1
	done
	refute bpftool map lookup id "$id" key hex $key_new
	assert_between "age of the new one when aged out (s)" \
		"$(python3 -c "import time; print((time.clock_gettime_ns(time.CLOCK_MONOTONIC) - $now) / 1e9)")" 5 10
	stop_tool INT
	[ "$TOOL_RC" = 0 ]
	grep -q "2 requests never completed within 5 s (aged out)" "$TOOL_ERR"
}

# bats test_tags=soak
@test "biolatency: 50,000 thread and 5,000 process exits, then known I/O: exact counts, no request left in flight" {
	local go wp start
	for q in "" -Q; do
		go=$(make_go)
		"$WL/blkrw" -f "$LOOP" -w $W -r $R -s 4096 -g "$go" >"$BATS_TEST_TMPDIR/wl.json" &
		wp=$!
		start_tool biolatency-lite -j -D $q
		"$WL/churn" >/dev/null
		go "$go"
		wait "$wp"
		sleep 0.2
		# in flight now: the root disk's requests of other work, at most
		start=$(map_entries "$TOOL_PID" start)
		echo "biolatency $q: start holds $start requests after the churn and the I/O"
		[ "$start" -le 64 ]
		stop_tool INT
		[ "$TOOL_RC" = 0 ]
		assert_ndjson "$TOOL_OUT"
		[ "$(disk_count "$DISK")" = $((W + R)) ]
		! grep -q "warning" "$TOOL_ERR" || false
	done
}
