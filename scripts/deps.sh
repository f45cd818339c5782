#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages that building and testing bpflite need.
# Idempotent and quick when everything is present: dpkg is asked first,
# apt-get runs only for what is missing.
#   scripts/deps.sh          build + test packages (the kernel matrix's too)
#   scripts/deps.sh vm       what the kernel matrix (tests/vm) needs
#   scripts/deps.sh build    build packages only
#   scripts/deps.sh check    build + what make check runs (unit tests, bats)
#   scripts/deps.sh bench    build + test + benchmark packages
set -e

BUILD="clang llvm libbpf-dev bpftool libelf-dev libdw-dev zlib1g-dev libzstd-dev liblzma-dev libbz2-dev libiberty-dev make gcc pkg-config linux-libc-dev xxd"
CHECK="bats jq libcmocka-dev util-linux g++"
TEST="$CHECK iproute2 nftables libxml2-utils bpftrace strace linux-perf xz-utils python3 golang-go protobuf-compiler prometheus lintian curl man-db nodejs"
# The kernel matrix (tests/vm): qemu under TCG, a busybox initramfs, the
# guest kernel's modules (depmod) and its BTF taken from the image.
VM="qemu-system-x86 busybox-static kmod cpio lz4 zstd xz-utils binutils"
BENCH="hyperfine linux-perf time"

case "${1:-test}" in
build) want="$BUILD" ;;
check) want="$BUILD $CHECK" ;;
test) want="$BUILD $TEST $VM" ;;
vm) want="$VM" ;;
bench) want="$BUILD $TEST $BENCH" ;;
browser) want="chromium" ;;
*) echo "usage: $0 [build|check|test|vm|bench|browser]" >&2; exit 2 ;;
esac

missing=""
for p in $want; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps.sh: missing packages:$missing" >&2
	echo "deps.sh: hint: run as root, or: sudo apt-get install$missing" >&2
	exit 1
fi
echo "deps.sh: installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# Refresh the package lists once if they are missing or older than a day.
if [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null | head -1)" ]; then
	apt-get update -qq >&2
fi
apt-get install -y -qq --no-install-recommends $missing >&2
