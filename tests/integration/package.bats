#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# make deb: a Debian package lintian finds no error in, which installed
# into a scratch root (dpkg -x) runs there; the fleet examples it ships
# (Prometheus rules and scrape config, the systemd unit) are valid.

load helpers

setup_file() {
	DEB=$(make -s -C "$ROOT" --no-print-directory deb | tail -1)
	export DEB
}

setup() {
	require_root
	[ -f "$ROOT/$DEB" ] || [ -f "$DEB" ] || { echo "make deb made no package: $DEB" >&2; return 1; }
	case $DEB in /*) ;; *) DEB=$ROOT/$DEB ;; esac
}

@test "package: make deb builds bpflite_<VERSION>_<arch>.deb with every tool, man page and the examples" {
	local v t
	v=$(cat "$ROOT/VERSION")
	[ "$(basename "$DEB")" = "bpflite_${v}_$(dpkg --print-architecture).deb" ]
	[ "$(dpkg-deb -f "$DEB" Package)" = bpflite ]
	[ "$(dpkg-deb -f "$DEB" Version)" = "$v" ]
	dpkg-deb -c "$DEB" >"$BATS_TEST_TMPDIR/list"
	dpkg-deb -f "$DEB" Description >"$BATS_TEST_TMPDIR/description"
	for t in $(make -s -C "$ROOT" --no-print-directory print-tools); do
		grep -q "\./usr/sbin/$t$" "$BATS_TEST_TMPDIR/list"
		grep -q "\./usr/share/man/man8/$t\.8\.gz$" "$BATS_TEST_TMPDIR/list"
		# the description names every tool
		grep -qw "${t%-lite}" "$BATS_TEST_TMPDIR/description" || { echo "description lacks ${t%-lite}" >&2; return 1; }
	done
	grep -q '\./usr/share/doc/bpflite/examples/bpflite@\.service$' "$BATS_TEST_TMPDIR/list"
	grep -q '\./usr/share/doc/bpflite/examples/bpflite-rules\.yml$' "$BATS_TEST_TMPDIR/list"
	# files owned by root, whoever built it
	refute grep -v ' root/root ' "$BATS_TEST_TMPDIR/list"
}

@test "package: lintian reports no error" {
	command -v lintian >/dev/null || skip "no lintian (scripts/deps.sh test installs it)"
	lintian --fail-on error "$DEB" >"$BATS_TEST_TMPDIR/lintian" 2>&1 || { cat "$BATS_TEST_TMPDIR/lintian"; return 1; }
	cat "$BATS_TEST_TMPDIR/lintian"
	refute grep -q '^E:' "$BATS_TEST_TMPDIR/lintian"
}

@test "package: installed into a scratch root (dpkg -x), a tool runs from there and counts" {
	local r=$BATS_TEST_TMPDIR/root v
	dpkg -x "$DEB" "$r"
	v=$("$r/usr/sbin/runqlat-lite" --version)
	[ "$v" = "runqlat-lite $(cat "$ROOT/VERSION")" ]
	# one 1-second histogram of this machine's run queue latency
	timeout 20 "$r/usr/sbin/runqlat-lite" -j 1 1 >"$BATS_TEST_TMPDIR/out"
	jq -e 'select(.type == "interval") | .histograms[0].count > 0' "$BATS_TEST_TMPDIR/out"
	# and as an exporter, with the version the package carries
	serve_tool "$r/usr/sbin/runqlat-lite"
	curl -sf "$URL/metrics" | grep -qx "bpflite_build_info{tool=\"runqlat-lite\",version=\"$(cat "$ROOT/VERSION")\"} 1"
	kill -TERM "$SERVE_PID"
	wait "$SERVE_PID"
	# the man pages read
	man -l "$r/usr/share/man/man8/runqlat-lite.8.gz" 2>/dev/null | grep -q 'METRICS'
}

@test "package: the shipped Prometheus rules and scrape config pass promtool; the unit asks for capabilities, not root" {
	command -v promtool >/dev/null || skip "no promtool (scripts/deps.sh test installs prometheus)"
	local r=$BATS_TEST_TMPDIR/root ex
	dpkg -x "$DEB" "$r"
	ex=$r/usr/share/doc/bpflite/examples
	promtool check rules "$ex/bpflite-rules.yml"
	(cd "$ex" && promtool check config prometheus.yml)
	grep -qx 'Restart=on-failure' "$ex/bpflite@.service"
	grep -qx 'AmbientCapabilities=CAP_BPF CAP_PERFMON CAP_SYS_RESOURCE' "$ex/bpflite@.service"
	grep -qx 'CapabilityBoundingSet=CAP_BPF CAP_PERFMON CAP_SYS_RESOURCE' "$ex/bpflite@.service"
	refute grep -q '^User=root' "$ex/bpflite@.service"
	# systemd reads it without a complaint (its ExecStart pointed at the scratch root)
	if command -v systemd-analyze >/dev/null; then
		mkdir -p "$BATS_TEST_TMPDIR/units"
		sed "s|/usr/sbin/%i|$r/usr/sbin/%i|" "$ex/bpflite@.service" \
			>"$BATS_TEST_TMPDIR/units/bpflite@runqlat-lite.service"
		systemd-analyze verify --man=no "$BATS_TEST_TMPDIR/units/bpflite@runqlat-lite.service" \
			>"$BATS_TEST_TMPDIR/verify" 2>&1 || { cat "$BATS_TEST_TMPDIR/verify"; return 1; }
		cat "$BATS_TEST_TMPDIR/verify"
		refute grep -Eiq 'unknown|invalid|failed|error' "$BATS_TEST_TMPDIR/verify"
	fi
}

@test "package: the unit's privileges are enough: an unprivileged user with CAP_BPF and CAP_PERFMON serves metrics" {
	command -v setpriv >/dev/null || skip "no setpriv"
	local r=$BATS_TEST_TMPDIR/root url p
	dpkg -x "$DEB" "$r"
	chmod 0755 "$BATS_TEST_TMPDIR" "$r"
	# CAP_SYS_RESOURCE is in the unit for kernels before 5.11 (RLIMIT_MEMLOCK);
	# it is not needed here, and may be outside this machine's bounding set
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all,+bpf,+perfmon \
		--ambient-caps=-all,+bpf,+perfmon "$r/usr/sbin/biolatency-lite" --serve 127.0.0.1:0 \
		2>"$BATS_TEST_TMPDIR/err" &
	p=$!
	for _ in $(seq 150); do
		url=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$BATS_TEST_TMPDIR/err") && break
		kill -0 "$p" 2>/dev/null || break
		sleep 0.1
	done
	cat "$BATS_TEST_TMPDIR/err"
	[ -n "$url" ]
	[ "$(awk '/^Uid:/ {print $2}' /proc/"$p"/status)" = 65534 ]
	curl -sf "$url/metrics" | grep -q '^bpflite_build_info{tool="biolatency-lite"'
	kill -TERM "$p"
	wait "$p"
}
