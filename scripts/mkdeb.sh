#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Build the Debian package of bpflite with dpkg-deb from what make built:
# the static tools in /usr/sbin, their man pages, and the fleet examples
# (systemd unit, Prometheus scrape config and rules) under
# /usr/share/doc/bpflite/examples.
#   scripts/mkdeb.sh VERSION OUTDIR TOOL...
set -eu
version=$1 out=$2
shift 2
root=$out/deb/root
arch=$(dpkg --print-architecture)
rm -rf "$out/deb"
mkdir -p "$root/DEBIAN" "$root/usr/sbin" "$root/usr/share/man/man8" \
	"$root/usr/share/doc/bpflite/examples" "$root/usr/share/lintian/overrides"
for t in "$@"; do
	install -m 0755 "$out/bin/$t" "$root/usr/sbin/$t"
	strip --remove-section=.comment --remove-section=.note "$root/usr/sbin/$t"
	gzip -9n <"man/$t.8" >"$root/usr/share/man/man8/$t.8.gz"
done
install -m 0644 docs/fleet/bpflite@.service docs/fleet/prometheus.yml docs/fleet/bpflite-rules.yml \
	"$root/usr/share/doc/bpflite/examples/"
cat >"$root/usr/share/doc/bpflite/copyright" <<EOC
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: bpflite

Files: *
Copyright: 2026 the bpflite authors
License: GPL-2
 On Debian systems, the full text of the GNU General Public License
 version 2 can be found in the file /usr/share/common-licenses/GPL-2.
EOC
date=$(date -R -d "@${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}")
gzip -9n >"$root/usr/share/doc/bpflite/changelog.gz" <<EOC
bpflite ($version) unstable; urgency=medium

  * Release $version.

 -- bpflite maintainers <maintainers@bpflite.invalid>  $date
EOC
# The tools are static on purpose (one file to copy to any host, the
# design of the project): they embed libbpf, libelf and zlib.
cat >"$root/usr/share/lintian/overrides/bpflite" <<EOC
bpflite: statically-linked-binary [usr/sbin/*-lite]
bpflite: embedded-library zlib [usr/sbin/*-lite]
EOC
(cd "$root" && find usr -type f -exec md5sum {} + | sort -k2) >"$root/DEBIAN/md5sums"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat >"$root/DEBIAN/control" <<EOC
Package: bpflite
Version: $version
Architecture: $arch
Maintainer: bpflite maintainers <maintainers@bpflite.invalid>
Installed-Size: $size
Section: admin
Priority: optional
Homepage: https://bpflite.invalid/
Description: small CO-RE eBPF tools: latency histograms, off-CPU stacks, syscalls
 Static eBPF tools in the manner of bcc's (runqlat, biolatency, tcpretrans,
 offcputime, profile, dstate, strace, execsnoop, opensnoop) and a flame
 graph renderer (flamegraph) that need no kernel headers, Python or
 compiler on the host: a kernel with BTF (5.8 or later) is enough. With
 --serve, runqlat-lite, biolatency-lite, tcpretrans-lite, dstate-lite,
 offcputime-lite (pprof profiles) and strace-lite -c are exporters; a
 systemd unit example runs them without root.
EOC
find "$root" -type d -exec chmod 0755 {} +
deb=$out/bpflite_${version}_$arch.deb
dpkg-deb --root-owner-group -Zxz -b "$root" "$deb" >/dev/null
echo "$deb"
