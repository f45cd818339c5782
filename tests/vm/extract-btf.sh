#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The .BTF section of a kernel image (bzImage), as a user of a kernel
# without /sys/kernel/btf/vmlinux would hand it to --btf.
#   tests/vm/extract-btf.sh VMLINUZ OUT
set -eu
img=$1 out=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The boot protocol header: setup sectors at 0x1f1, the compressed
# payload's offset (from the protected-mode code) and length at 0x248.
u8() { od -An -tu1 -j "$1" -N 1 "$img" | tr -d ' '; }
u32() { od -An -tu4 -j "$1" -N 4 "$img" | tr -d ' '; }
setup=$(u8 $((0x1f1)))
[ "$setup" = 0 ] && setup=4
off=$(( (setup + 1) * 512 + $(u32 $((0x248))) ))
len=$(u32 $((0x24c)))
tail -c +$((off + 1)) "$img" | head -c "$len" >"$tmp/payload"
# The payload ends with the image's size (4 bytes), which some
# decompressors call trailing garbage: the ELF magic decides.
case $(od -An -tx1 -N 4 "$tmp/payload" | tr -d ' ') in
02214c18) lz4 -dc "$tmp/payload" >"$tmp/vmlinux" 2>/dev/null || true ;;
28b52ffd) zstd -qdc "$tmp/payload" >"$tmp/vmlinux" 2>/dev/null || true ;;
fd377a58) xz -qdc --single-stream "$tmp/payload" >"$tmp/vmlinux" || true ;;
1f8b08*) gzip -qdc "$tmp/payload" >"$tmp/vmlinux" 2>/dev/null || true ;;
*) echo "extract-btf: unknown compression in $img" >&2; exit 1 ;;
esac
if [ "$(od -An -tx1 -N 4 "$tmp/vmlinux" | tr -d ' ')" != 7f454c46 ]; then
	echo "extract-btf: $img did not decompress to an ELF vmlinux" >&2
	exit 1
fi
objcopy --dump-section .BTF="$out" "$tmp/vmlinux"
