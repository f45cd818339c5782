#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot one kernel of tests/vm/kernels under qemu (TCG) with the host's root
# shared read-only (virtiofs, a tmpfs overlay on top) and run the guest's
# part of the integration suite in it: the tests tagged vm (tests/tags.sh).
# Under TCG a guest runs about 15 times slower than the host, so the guest
# runs what depends on the kernel (each tool's exact-count workload test
# once per attach path, --btf without sysfs BTF, which also forces the
# libbpf skeleton, the old-kernel layouts) and leaves what is the same on
# every kernel (option parsing, text layout, docs, flamegraph-lite, the
# loader choice) to the host run.
#   tests/vm/run.sh NAME OUT [BATS_FILTER [FILES]]
# BATS_FILTER (a bats -f regex) narrows the tagged tests further; FILES
# ("a.bats b.bats"), the files (default: every file with tests tagged vm).
# OUT receives the guest's result stream (see guest.sh). Exit status: 0 when
# the guest ran to its end, 1 when it could not boot or did not finish, 3
# when its kernel panicked (a soft lockup or an RCU stall panics it: the
# console's first oops is printed, and the run ends in a minute, not at the
# time limit).
set -u
cd "$(dirname "$0")/../.." || exit 1
name=${1:?usage: tests/vm/run.sh NAME OUT [BATS_FILTER]}
out=${2:?usage: tests/vm/run.sh NAME OUT [BATS_FILTER]}
filter=${3:-}
files=${4:-}
cache=${BPFLITE_VM_CACHE:-/var/cache/bpflite/kernels}
mem=${BPFLITE_VM_MEM:-4096}
limit=${BPFLITE_VM_TIMEOUT:-2400}
say() { echo "vm $name: $*" >&2; }

line=$(awk -v n="$name" '$1 == n { print; exit }' tests/vm/kernels)
[ -n "$line" ] || { say "not in tests/vm/kernels"; exit 1; }
read -r _ pkg glob <<<"$line"

# The kernel package, extracted and depmod'ed once: by one guest at a time
# (tests/run.sh boots two at once; apt-get is not run twice side by side).
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
kdir=$cache/$pkg
if [ ! -f "$kdir/.ready" ]; then
	dl=$(mktemp -d)
	# a fresh machine may have no package lists yet
	(cd "$dl" && apt-get download "$pkg" >/dev/null 2>&1) ||
		apt-get update -qq >/dev/null 2>&1
	if ! (cd "$dl" && { [ -n "$(ls)" ] || apt-get download "$pkg" >/dev/null 2>&1; }); then
		# the glob as a regex: its dots and pluses are literal
		re=$(sed 's/[.+]/\\&/g; s/\*/.*/g' <<<"$glob")
		newest=$(apt-cache search --names-only "^$re\$" 2>/dev/null |
			awk '{print $1}' | sort -V | tail -1)
		if [ -z "$newest" ] || ! (cd "$dl" && apt-get download "$newest" >/dev/null 2>&1); then
			say "cannot download $pkg (run apt-get update?)"
			rm -rf "$dl"
			exit 1
		fi
		say "$pkg is no longer served; using $newest (update tests/vm/kernels)"
		pkg=$newest
		kdir=$cache/$pkg
	fi
	rm -rf "$kdir"
	mkdir -p "$kdir"
	dpkg -x "$dl"/*.deb "$kdir"
	rm -rf "$dl"
	kver=$(ls "$kdir/lib/modules")
	depmod -b "$kdir" "$kver" || exit 1
	touch "$kdir/.ready"
fi
kver=$(ls "$kdir/lib/modules")
vmlinuz=$kdir/boot/vmlinuz-$kver
[ -s "$kdir/vmlinux.btf" ] || tests/vm/extract-btf.sh "$vmlinuz" "$kdir/vmlinux.btf" || exit 1
exec 9>&-

# The initramfs: static busybox, /init, and the modules that mounting the
# host's root needs, in dependency order (from modules.dep).
work=$(mktemp -d /tmp/bpflite-vm.XXXXXX)
trap 'kill $vfsd 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
vfsd=
mkdir -p "$work/root/bin" "$work/root/mods" "$work/root/proc" "$work/root/sys" "$work/root/dev"
cp /bin/busybox "$work/root/bin/busybox"
cp tests/vm/init "$work/root/init"
deps=$kdir/lib/modules/$kver/modules.dep
order=$(awk -v want="virtio_pci virtiofs overlay" '
	{ m = $1; sub(":$", "", m); dep[m] = ""; for (i = 2; i <= NF; i++) dep[m] = dep[m] " " $i
	  n = m; sub(".*/", "", n); sub("\\.ko.*", "", n); path[n] = m }
	function visit(p,   d, k, i) {
		if (p in seen) return
		seen[p] = 1
		k = split(dep[p], d, " ")
		for (i = k; i >= 1; i--) visit(d[i])
		order = order " " p
	}
	END { k = split(want, w, " "); for (i = 1; i <= k; i++) if (w[i] in path) visit(path[w[i]]); print order }' "$deps")
# busybox's insmod takes a plain .ko: the 6.12 packages compress theirs.
for m in $order; do
	n=$(basename "$m")
	n=${n%%.ko*}
	case $m in
	*.ko.xz) xz -dc "$kdir/lib/modules/$kver/$m" ;;
	*.ko.zst) zstd -qdc "$kdir/lib/modules/$kver/$m" ;;
	*.ko.gz) gzip -dc "$kdir/lib/modules/$kver/$m" ;;
	*) cat "$kdir/lib/modules/$kver/$m" ;;
	esac >"$work/root/mods/$n.ko" || { say "cannot unpack $m"; exit 1; }
	echo "$n" >>"$work/root/modlist"
done
(cd "$work/root" && find . | cpio -o -H newc 2>/dev/null | gzip -1) >"$work/initrd.gz"

/usr/lib/qemu/virtiofsd --socket-path="$work/vfs.sock" -o source=/ -o cache=auto \
	-o sandbox=chroot >"$work/virtiofsd.log" 2>&1 &
vfsd=$!
for _ in $(seq 50); do [ -S "$work/vfs.sock" ] && break; sleep 0.1; done

# loglevel=5: a lockup's backtrace (printed at the default level, 4) reaches
# the console; the boot's chatter (5 and up) does not. A soft lockup or an
# RCU stall panics the guest, and panic=-1 with -no-reboot ends qemu.
cmdline="console=ttyS0 panic=-1 loglevel=5 softlockup_panic=1 sysctl.kernel.panic_on_rcu_stall=1"
cmdline="$cmdline bpflite.run=$PWD/tests/vm/guest.sh bpflite.src=$PWD"
cmdline="$cmdline bpflite.kmods=$kdir/lib/modules"
cmdline="$cmdline bpflite.file_timeout=${BPFLITE_TEST_FILE_TIMEOUT:-900}"
cmdline="$cmdline bpflite.btf=$kdir/vmlinux.btf bpflite.filterfile=$work/filter"
cmdline="$cmdline bpflite.filesfile=$work/files"
printf '%s\n' "$filter" >"$work/filter"
printf '%s\n' "$files" >"$work/files"
# One host thread for both vCPUs (thread=single). With multi-threaded TCG
# Debian 12's 6.1 cloud kernel locked up in 3 whole guest runs of 3: the
# first attach to a syscall tracepoint patches kernel text on every CPU
# (static_key_enable -> text_poke_bp_batch -> smp_call_function_many_cond),
# and a vCPU spun for ever at the just-patched jump (RIP at the patched
# "eb 63" of syscall_trace_enter; the other vCPU, in the IPI, waiting for
# it): stale translated code of the cross-modified instruction in qemu's
# multi-threaded TCG, which no BPF program can cause. Single-threaded TCG
# passed the same whole suite 3 runs of 3 in the same time (463-489 s
# against 464 s). BPFLITE_VM_TCG=multi brings the multi-threaded back.
tcg=tcg,thread=single
[ "${BPFLITE_VM_TCG:-}" = multi ] && tcg=tcg,thread=multi
say "booting $kver ($tcg), results in $out"
timeout -k 10 "$limit" qemu-system-x86_64 -accel "$tcg" -cpu "${BPFLITE_VM_CPU:-qemu64}" -m "$mem" -smp 2 \
	-kernel "$vmlinuz" -initrd "$work/initrd.gz" -append "$cmdline" \
	-nographic -no-reboot -monitor "unix:$work/mon.sock,server,nowait" \
	-object "memory-backend-memfd,id=mem,size=${mem}M,share=on" -numa node,memdev=mem \
	-chardev "socket,id=vfs,path=$work/vfs.sock" -device vhost-user-fs-pci,chardev=vfs,tag=hostroot \
	-serial "file:$work/console.log" -serial "file:$work/results" </dev/null >"$work/qemu.log" 2>&1 &
qemu=$!
# A guest that writes no result for longer than any one test takes has
# stalled (bats writes each test's line as it ends; the longest guest file,
# dstate.bats, takes about 180 s in all). Seen on 6.1 under single-threaded
# TCG, in 2 of 4 whole runs on 2026-12-05: both vCPUs idle, and sysrq w
# shows the test's processes (timeout(1) too, so the file timeout never
# comes) in D state in filemap_fault(), waiting for a page of the host's
# root that virtiofs never delivered. It is stopped after 7 minutes, not at
# the time limit, once the console has the blocked tasks and the CPUs'
# stacks (sysrq w and l through the emulated keyboard: a key press still
# reaches a guest whose tasks wait on the host); its files go to a fresh
# boot. (guest.sh keeps virtiofs' queue moving meanwhile, see there.)
stall=${BPFLITE_VM_STALL:-420}
last=-1 since=$SECONDS stalled=
while kill -0 "$qemu" 2>/dev/null; do
	sleep 5
	size=$(stat -c %s "$work/results" 2>/dev/null || echo 0)
	if [ "$size" != "$last" ]; then
		last=$size since=$SECONDS
	elif [ $((SECONDS - since)) -ge "$stall" ]; then
		stalled=1
		say "the guest wrote no result for $stall s: asking it for its blocked tasks, then stopping it"
		python3 - "$work/mon.sock" <<-'PY' >/dev/null 2>&1
		import socket, sys, time
		s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
		for k in ("alt-sysrq-9", "alt-sysrq-w", "alt-sysrq-l"):
		    s.sendall(b"sendkey " + k.encode() + b"\n"); time.sleep(2)
		PY
		sleep 10
		kill "$qemu" 2>/dev/null
		break
	fi
done
wait "$qemu"
rc=$?
# the guest's tty turns each newline into CR LF
tr -d '\r' <"$work/results" >"$out"
if ! grep -q '^# vm done' "$out"; then
	say "the guest did not finish (qemu exit $rc${stalled:+, stalled}); its console ends:"
	tr -d '\r' <"$work/console.log" >"$work/console.txt"
	tail -"$([ -n "$stalled" ] && echo 150 || echo 20)" "$work/console.txt" | sed 's/^/  /' >&2
	# the first oops says what stopped it; the tail shows only the last
	if grep -qE '^\[ *[0-9.]+\] (BUG|Oops|WARNING|watchdog|rcu: INFO|general protection|kernel BUG)' "$work/console.txt"; then
		say "its first oops:"
		awk '/^\[ *[0-9.]+\] (BUG|Oops|WARNING|watchdog|rcu: INFO|general protection|kernel BUG)/ { on = 1 } on && n++ < 80' \
			"$work/console.txt" | sed 's/^/  /' >&2
	fi
	grep -q 'Kernel panic' "$work/console.txt" && exit 3
	exit 1
fi
exit 0
