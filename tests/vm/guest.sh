#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside the qemu guest (tests/vm/run.sh boots it): prepares the
# machine the way the development host is set up (tracefs, cgroup v1
# controllers plus v2 at /sys/fs/cgroup/unified, loopback, the guest
# kernel's modules) and runs the guest's part of the integration suite of
# the shared tree: the tests tagged vm (tests/tags.sh).
# Every result goes to the second serial port, which the host reads:
#   # == integration FILE.bats   then the file's TAP, then   # rc N
#   # took FILE.bats N s          the file's wall time in the guest
#   # vm done                     at the end
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 TERM=dumb
exec </dev/null >/dev/ttyS1 2>&1

arg() { sed -n "s/.*bpflite\.$1=\([^ ]*\).*/\1/p" /proc/cmdline; }
src=$(arg src)
kmods=$(arg kmods)
filter=$(cat "$(arg filterfile)")
files=$(cat "$(arg filesfile)" 2>/dev/null)
timeout_s=$(arg file_timeout)
# the .BTF of this kernel's image, for the --btf tests (tests/vm/extract-btf.sh)
export BPFLITE_TEST_BTF=$(arg btf)

# A tree under /tmp or /run (a fresh clone's usual place) would be hidden
# by the tmpfs mounted there: it stays reachable at its own path through a
# bind mount of it made first.
mkdir -p /mnt/bpflite-src
mount --bind "$src" /mnt/bpflite-src
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
case $src in
/tmp/* | /run/*)
	mkdir -p "$src"
	mount --bind /mnt/bpflite-src "$src"
	;;
esac
mkdir -p /dev/shm /dev/pts
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
mount -t tmpfs tmpfs /dev/shm
mount -t devpts devpts /dev/pts
mount -t tracefs tracefs /sys/kernel/tracing
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t bpf bpf /sys/fs/bpf
mount -t tmpfs -o mode=755 tmpfs /sys/fs/cgroup
for c in cpu cpuacct cpuset memory devices freezer blkio pids; do
	mkdir -p "/sys/fs/cgroup/$c"
	mount -t cgroup -o "$c" cgroup "/sys/fs/cgroup/$c" 2>/dev/null || rmdir "/sys/fs/cgroup/$c"
done
mkdir -p /sys/fs/cgroup/unified
mount -t cgroup2 cgroup2 /sys/fs/cgroup/unified
# modprobe finds the guest kernel's modules (depmod'ed on the host).
mkdir -p /usr/lib/modules
mount --bind "$kmods" /usr/lib/modules
# what the development host has built in (loop devices, veth, nftables)
modprobe -a loop veth nf_tables 2>/dev/null
echo 1 >/proc/sys/kernel/sysrq
ip link set lo up
hostname bpflite-vm

# A look-up on the host's root every 10 s. Twice a whole 6.1 guest run under
# single-threaded TCG stopped with its tasks waiting for a virtiofs read
# that never completed (run.sh). Whether a request's kick or its
# completion's interrupt was lost, the next request on the queue carries
# the old one through: this keeps one coming while the tests wait on it.
# (Its binaries stay in the page cache; a look-up goes to the host once
# virtiofs' 1 s entry timeout is over.)
( while sleep 10; do stat -c %i "$src/tests/vm" >/dev/null 2>&1; done ) &
echo "# vm kernel $(uname -r)"
cd "$src" || { echo "# cannot enter $src"; echo o >/proc/sysrq-trigger; }
. tests/tags.sh
for t in tests/integration/*.bats; do
	args=$(tier_args vm "$t") || continue
	[ -z "$files" ] || [[ " $files " == *" $(basename "$t") "* ]] || continue
	start=$SECONDS
	echo "# == integration $(basename "$t")"
	timeout -k 10 "${timeout_s:-900}" bats --tap ${filter:+-f "$filter"} $args "$t"
	echo "# rc $?"
	echo "# took $(basename "$t") $((SECONDS - start)) s"
done
echo "# vm done"
sync
echo o >/proc/sysrq-trigger
sleep 30	# the power-off runs asynchronously; init must not exit first
