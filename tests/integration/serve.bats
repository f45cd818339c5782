#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# --serve: the tools as Prometheus exporters. Prometheus itself (Debian's
# package) scrapes them every second on 127.0.0.1, and PromQL over its
# HTTP API must give the figures of workloads with known behaviour;
# promtool checks the exposition; bad clients must not stop the serving.

# bpflite: serial: CPU hogs, and strace-lite --serve counting every process

load helpers
load offcpu_helpers

setup() {
	require_root
	command -v prometheus >/dev/null || skip "no prometheus (scripts/deps.sh test installs it)"
	PROM_PID=
	SERVE_PIDS=
	LOOP=
	IMG=
}

teardown() {
	local p
	[ -n "${PROM_PID:-}" ] && kill "$PROM_PID" 2>/dev/null && wait "$PROM_PID" 2>/dev/null
	for p in ${SERVE_PIDS:-}; do kill -INT "$p" 2>/dev/null; done
	for p in ${SERVE_PIDS:-}; do wait "$p" 2>/dev/null; done
	[ -n "${LOOP:-}" ] && losetup -d "$LOOP"
	rm -f "${IMG:-}"
	cleanup_test
}

# A TCP port nobody listens on now.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# serve_tool (helpers.bash), remembered for teardown
serve() {
	serve_tool "$@" || return 1
	SERVE_PIDS="$SERVE_PIDS $SERVE_PID"
}

# start_prometheus URL...: Prometheus on a free port of 127.0.0.1, a
# storage directory of the test's, a 1 s scrape of each URL's /metrics;
# returns once it is ready and has scraped every target at least once.
start_prometheus() {
	local d=$BATS_TEST_TMPDIR/prom t targets=""
	mkdir -p "$d/data"
	for t in "$@"; do targets="$targets\"${t#http://}\","; done
	cat >"$d/prometheus.yml" <<-EOC
	global:
	  scrape_interval: 1s
	  evaluation_interval: 1s
	scrape_configs:
	  - job_name: bpflite
	    static_configs:
	      - targets: [${targets%,}]
	EOC
	PROM=127.0.0.1:$(free_port)
	prometheus --config.file="$d/prometheus.yml" --storage.tsdb.path="$d/data" \
		--web.listen-address="$PROM" >"$d/log" 2>&1 &
	PROM_PID=$!
	for _ in $(seq 300); do
		[ "$(promq "count(up == 1)")" = "$#" ] && return 0
		kill -0 "$PROM_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "prometheus did not scrape the targets:" >&2
	tail -20 "$d/log" >&2
	promq up >&2
	return 1
}

# promq EXPR: the value of an instant query (one series, or nothing).
promq() {
	curl -sf --max-time 5 "http://$PROM/api/v1/query" --data-urlencode "query=$1" |
		jq -r '.data.result[0].value[1] // empty'
}

# promq_until EXPR VALUE: wait (at most 30 s: a loaded machine may delay a
# scrape) until EXPR gives VALUE; print what it gave.
promq_until() {
	local v
	for _ in $(seq 150); do
		v=$(promq "$1")
		[ "$v" = "$2" ] && break
		sleep 0.2
	done
	echo "$v"
}

@test "serve: runqlat-lite: histogram_quantile and _count growth in Prometheus match the tool's own histogram" {
	local go wp q lo hi growth count last
	go=$(make_go)
	"$WL/cpuhog" -n 3 -s 3 -c 1 -g "$go" >"$BATS_TEST_TMPDIR/hog.json" &
	wp=$!
	serve runqlat-lite -p "$wp"
	# the same filter, printed as the tool's own (JSON) histogram
	start_tool runqlat-lite -j -p "$wp"
	start_prometheus "$URL"
	go "$go"
	wait "$wp"
	stop_tool INT
	[ "$TOOL_RC" = 0 ]
	count=$(jq -s '[.[] | select(.type=="interval") | .histograms[].count] | add // 0' "$TOOL_OUT")
	# the bucket that holds the median in the tool's own histogram, in seconds
	read -r lo hi < <(jq -rs '[.[] | select(.type=="interval") | .histograms[]][0] as $h |
		($h.count / 2) as $half |
		[foreach $h.buckets[] as $b (0; . + $b.count; [., $b])] |
		map(select(.[0] >= $half))[0][1] | "\(.low / 1e6) \((.high + 1) / 1e6)"' "$TOOL_OUT")
	echo "tool: $count waits, median bucket [$lo, $hi) s"
	[ "$count" -gt 10 ]
	# Prometheus has every wait once the last scrape after the hogs is in:
	# the counter grew from 0 at the tool's start to the tool's own count
	last=$(promq_until 'bpflite_runq_latency_seconds_count' "$count")
	growth=$(promq 'max_over_time(bpflite_runq_latency_seconds_count[1m]) - min_over_time(bpflite_runq_latency_seconds_count[1m])')
	q=$(promq 'histogram_quantile(0.5, max_over_time(bpflite_runq_latency_seconds_bucket[1m]))')
	echo "prometheus: _count $last (grew by $growth over the samples it holds), p50 $q s"
	[ "$last" = "$count" ]
	[ "$growth" -le "$count" ]
	assert_between "p50 (s)" "$q" "$lo" "$hi"
	# +Inf equals _count, series by series
	[ "$(promq 'bpflite_runq_latency_seconds_bucket{le="+Inf"} - ignoring(le) bpflite_runq_latency_seconds_count')" = 0 ]
	# the text stays empty: metrics are the output
	[ ! -s "$SERVE_OUT" ]
}

@test "serve: runqlat-lite --cgroups: a cgroup label, the hogs' cgroup apart from the sleeper's" {
	local cg a b ga gb pa pb m=$BATS_TEST_TMPDIR/m ca cb
	cg=$(cgroup2_root)
	[ -n "$cg" ] || skip "no cgroup v2 mount"
	a=$cg/bpflite-rq-a-$$
	b=$cg/bpflite-rq-b-$$
	make_cgroup "$a"
	make_cgroup "$b"
	ga=$(make_go)
	gb=$(make_go)
	"$WL/cpuhog" -n 3 -s 2 -c 1 -g "$ga" >/dev/null &
	pa=$!
	echo "$pa" >"$a/cgroup.procs"
	"$WL/cpuhog" -n 1 -u 1000 -s 2 -c 0 -g "$gb" >/dev/null &
	pb=$!
	echo "$pb" >"$b/cgroup.procs"
	serve runqlat-lite --cgroups
	go "$ga" & go "$gb"
	wait "$pa" "$pb"
	curl -sf "$URL/metrics" >"$m"
	promtool check metrics <"$m"
	ca=$(awk -v c="/${a##*/}" -F'[{}]' '$1 == "bpflite_runq_latency_seconds_count" && $2 == "cgroup=\"" c "\"" {split($3, x, " "); print x[1]}' "$m")
	cb=$(awk -v c="/${b##*/}" -F'[{}]' '$1 == "bpflite_runq_latency_seconds_count" && $2 == "cgroup=\"" c "\"" {split($3, x, " "); print x[1]}' "$m")
	echo "waits: hogs' cgroup $ca, sleeper's $cb"
	[ "$ca" -gt 300 ]
	[ "$cb" -gt 300 ]
	# the hogs wait for each other (ms); the lone sleeper hardly at all
	mean() { awk -v c="/$1" -F'[{}]' '$2 == "cgroup=\"" c "\"" && $1 ~ /_(sum|count)$/ {split($3, x, " "); v[$1] = x[1]} END {print v["bpflite_runq_latency_seconds_sum"] / v["bpflite_runq_latency_seconds_count"]}' "$m"; }
	local ma mb
	ma=$(mean "${a##*/}")
	mb=$(mean "${b##*/}")
	echo "mean waits: hogs $ma s, sleeper $mb s"
	assert_between "hogs' mean wait (s)" "$ma" 0.0005 1
	assert_between "hogs' mean / sleeper's" "$(awk -v a="$ma" -v b="$mb" 'BEGIN{print (b > 0 ? a / b : 1e9)}')" 2 1e12
	expect_fail 2 "mutually exclusive" "$BIN/runqlat-lite" --cgroups -P
}

@test "serve: biolatency-lite -d LOOP: _count in Prometheus is the exact number of requests, by operation" {
	local go wp w=23 r=17
	IMG=/dev/shm/bpflite-serve-$$-$BATS_TEST_NUMBER.img
	truncate -s 32M "$IMG"
	LOOP=$(losetup -f --show "$IMG")
	serve biolatency-lite -d "$LOOP"
	start_prometheus "$URL"
	go=$(make_go)
	"$WL/blkrw" -f "$LOOP" -w $w -r $r -s 4096 -g "$go" >/dev/null &
	wp=$!
	go "$go"
	wait "$wp"
	local dev=${LOOP#/dev/}
	[ "$(promq_until "sum(bpflite_bio_latency_seconds_count{device=\"$dev\"})" $((w + r)))" = $((w + r)) ]
	[ "$(promq "bpflite_bio_latency_seconds_count{device=\"$dev\",operation=\"write\"}")" = $w ]
	[ "$(promq "bpflite_bio_latency_seconds_count{device=\"$dev\",operation=\"read\"}")" = $r ]
	# only that disk: no other device label
	[ "$(promq 'count(bpflite_bio_latency_seconds_count)')" = 2 ]
	# a request on a tmpfs-backed loop device: well under 100 ms on average
	assert_between "mean latency (s)" \
		"$(promq "sum(bpflite_bio_latency_seconds_sum{device=\"$dev\"}) / sum(bpflite_bio_latency_seconds_count{device=\"$dev\"})")" 0.0000001 0.1
}

@test "serve: strace-lite -c -p PID: bpflite_syscalls_total{syscall=\"getppid\"} is the workload's count" {
	local go wp n=23457
	go=$(make_go)
	"$WL/sysload" -n $n -r 5 -w 3 -F 7 -S 4000 -g "$go" >/dev/null &
	wp=$!
	# -w: the seconds are wall time, which every call has. System time
	# (the default, as strace's) is counted to the tick (4 ms here), and
	# 23,457 getppid calls spend about 5 ms in the kernel: 0 or a tick.
	serve strace-lite -c -w -p "$wp"
	start_prometheus "$URL"
	go "$go"
	[ "$(promq_until 'bpflite_syscalls_total{syscall="getppid"}' $n)" = $n ]
	[ "$(promq 'bpflite_syscall_errors_total{syscall="openat"}')" = 7 ]
	[ "$(promq 'bpflite_syscall_errors_total{syscall="getppid"}')" = 0 ]
	assert_between "getppid seconds" "$(promq 'bpflite_syscall_seconds_total{syscall="getppid"}')" 0.000001 5
	wait "$wp"
}

@test "serve: strace-lite -c --serve alone counts every process, like syscount" {
	local go wp n=23457 v
	serve strace-lite -c
	go=$(make_go)
	"$WL/sysload" -n $n -r 5 -w 3 -F 7 -S 1000 -g "$go" >/dev/null &
	wp=$!
	go "$go"
	wait "$wp"
	sleep 0.3
	v=$(curl -sf "$URL/metrics" | awk '/^bpflite_syscalls_total\{syscall="getppid"\}/ {print $2}')
	echo "getppid calls seen machine-wide: $v"
	# the workload's at least (other work on a shared machine may call it too)
	[ "$v" -ge $n ]
	# other processes' calls are there too: more than this workload makes
	[ "$(curl -sf "$URL/metrics" | grep -c '^bpflite_syscalls_total{')" -gt 6 ]
}

@test "serve: promtool check metrics passes on every serving tool's /metrics" {
	local t args
	for t in runqlat-lite biolatency-lite "strace-lite -c -p $$" "strace-lite -c" dstate-lite tcpretrans-lite offcputime-lite; do
		serve $t
		sleep 0.5
		curl -sf "$URL/metrics" >"$BATS_TEST_TMPDIR/m.txt"
		echo "== $t"
		promtool check metrics <"$BATS_TEST_TMPDIR/m.txt"
		# the content type of the text format, whatever the Accept header asks
		curl -sf -D - -o /dev/null -H 'Accept: application/openmetrics-text; version=1.0.0' "$URL/metrics" |
			grep -qi '^Content-Type: text/plain; version=0.0.4; charset=utf-8'
		grep -q "^bpflite_build_info{tool=\"${t%% *}\",version=\"$("$BIN/${t%% *}" --version | awk '{print $2}')\"} 1$" "$BATS_TEST_TMPDIR/m.txt"
		kill -INT "$SERVE_PID"
		wait "$SERVE_PID"
	done
}

@test "serve: histograms: every bucket on every scrape, fixed le strings, +Inf == _count, _sum exact" {
	serve runqlat-lite
	sleep 0.3
	curl -sf "$URL/metrics" >"$BATS_TEST_TMPDIR/a"
	sleep 0.3
	curl -sf "$URL/metrics" >"$BATS_TEST_TMPDIR/b"
	local f
	for f in a b; do
		# 32 finite buckets, 2us to 2^32 us, and +Inf
		[ "$(grep -c '^bpflite_runq_latency_seconds_bucket{' "$BATS_TEST_TMPDIR/$f")" = 33 ]
		grep -q '^bpflite_runq_latency_seconds_bucket{le="0.000002"} ' "$BATS_TEST_TMPDIR/$f"
		grep -q '^bpflite_runq_latency_seconds_bucket{le="1.048576"} ' "$BATS_TEST_TMPDIR/$f"
		grep -q '^bpflite_runq_latency_seconds_bucket{le="4294.967296"} ' "$BATS_TEST_TMPDIR/$f"
		awk '/_bucket\{le="\+Inf"\}/ {inf = $2} /_count / {c = $2} END {exit !(inf == c && c > 0)}' "$BATS_TEST_TMPDIR/$f"
		# cumulative: never decreasing along le
		awk '/_bucket/ {if ($2 < prev) exit 1; prev = $2}' "$BATS_TEST_TMPDIR/$f"
		grep -Eq '^bpflite_runq_latency_seconds_sum [0-9]+\.[0-9]{9}$' "$BATS_TEST_TMPDIR/$f"
	done
	# the same le strings both times; the counts only grow
	diff <(grep -o 'le="[^"]*"' "$BATS_TEST_TMPDIR/a") <(grep -o 'le="[^"]*"' "$BATS_TEST_TMPDIR/b")
	[ "$(awk '/_count /{print $2}' "$BATS_TEST_TMPDIR/b")" -ge "$(awk '/_count /{print $2}' "$BATS_TEST_TMPDIR/a")" ]
}

@test "serve: cardinality: --max-series caps the syscall label, the rest folds into other, totals stay right" {
	local go wp total capped
	go=$(make_go)
	"$WL/sysload" -n 1000 -r 5 -w 3 -F 7 -S 3000 -g "$go" >/dev/null &
	wp=$!
	serve strace-lite -c -p "$wp" --max-series 2
	go "$go"
	sleep 1
	curl -sf "$URL/metrics" >"$BATS_TEST_TMPDIR/m"
	cat "$BATS_TEST_TMPDIR/m"
	# two syscall values kept, and "other"
	[ "$(grep -c '^bpflite_syscalls_total{' "$BATS_TEST_TMPDIR/m")" = 3 ]
	grep -q '^bpflite_syscalls_total{syscall="other"} [1-9]' "$BATS_TEST_TMPDIR/m"
	# the total is every call: getppid, reads, writes, opens, closes...
	total=$(awk '/^bpflite_syscalls_total\{/ {s += $2} END {print s}' "$BATS_TEST_TMPDIR/m")
	[ "$total" -ge $((1000 + 5 + 3 + 7)) ]
	grep -Eq '^bpflite_series_dropped_total [1-9]' "$BATS_TEST_TMPDIR/m"
	# without the flag: 64, so every syscall of this workload has its own series
	expect_fail 2 "invalid --max-series" "$BIN/strace-lite" -c --serve 0 --max-series 0 true
	wait "$wp"
}

@test "serve: 40 clients that connect while the tool is stopped wait in the kernel's queue: each connects at once and is answered" {
	serve runqlat-lite
	local host=${URL#http://} port rc=0
	port=${host##*:}
	kill -STOP "$SERVE_PID"
	# the tool goes on whatever the check says
	python3 - "$port" "$SERVE_PID" "$BATS_TEST_DIRNAME" <<-'EOF' || { kill -CONT "$SERVE_PID"; false; }
	import os, signal, sys, time
	port, pid = int(sys.argv[1]), int(sys.argv[2])
	sys.path.insert(0, sys.argv[3])
	from httpc import answer, conn
	# the tool accepts nothing while stopped: each handshake is the
	# kernel's, and a dropped one would be tried again only after 1 s
	socks = []
	for i in range(40):
	    t = time.time()
	    s = conn(port, 0.5)
	    assert time.time() - t < 0.5, "connection %d waited" % i
	    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
	    socks.append(s)
	os.kill(pid, signal.SIGCONT)
	# SERVE_MAX_CONNS at a time: the 24 that waited longest make way
	# for the last 16, which must each get a whole answer
	ok = 0
	for s in socks[-16:]:
	    s.settimeout(5)
	    data = answer(s)
	    ok += data.startswith(b"HTTP/1.1 200") and b"bpflite_runq_latency_seconds_count" in data
	print("answered: %d of the last 16" % ok)
	assert ok == 16
	EOF
	kill -CONT "$SERVE_PID"
	curl -sf --max-time 2 "$URL/metrics" | grep -q '^bpflite_runq_latency_seconds_count '
	kill -INT "$SERVE_PID"
	wait "$SERVE_PID" || rc=$?
	[ "$rc" = 0 ]
}

@test "serve: garbage, no newline, 1 MB of headers, 100 idle connections: the next scrape is served" {
	serve runqlat-lite
	local host=${URL#http://} port
	port=${host##*:}
	python3 - "$port" "$BATS_TEST_DIRNAME" <<-'EOF'
	import sys, time
	port = int(sys.argv[1])
	sys.path.insert(0, sys.argv[2])
	import httpc
	from httpc import answer
	def conn():
	    return httpc.conn(port)
	# garbage: 400 and closed
	s = conn(); s.sendall(b"\x00\x01\x02garbage\r\n\r\n"); r = answer(s)
	assert r.startswith(b"HTTP/1.1 400"), r
	# 1 MB of headers: 400, closed
	s = conn()
	try:
	    s.sendall(b"GET /metrics HTTP/1.1\r\n" + b"X-Pad: " + b"a" * (1 << 20) + b"\r\n\r\n")
	except (BrokenPipeError, ConnectionResetError):
	    pass
	r = answer(s)
	assert r.startswith(b"HTTP/1.1 400"), r[:80]
	# POST: 405; HEAD: headers only; unknown path: 404
	s = conn(); s.sendall(b"POST /metrics HTTP/1.1\r\n\r\n"); assert answer(s).startswith(b"HTTP/1.1 405")
	s = conn(); s.sendall(b"HEAD /metrics HTTP/1.0\r\n\r\n"); r = answer(s)
	assert r.startswith(b"HTTP/1.1 200") and r.endswith(b"\r\n\r\n"), r
	s = conn(); s.sendall(b"GET /nope HTTP/1.1\r\n\r\n"); assert answer(s).startswith(b"HTTP/1.1 404")
	# a request line with no newline, ever, and 100 idle connections
	# that never send a byte: the tool must not wait on them
	t = time.time()
	stuck = conn(); stuck.sendall(b"GET /metrics HTTP/1.1")
	idle = [conn() for _ in range(100)]
	s = conn(); s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"); r = answer(s)
	took = time.time() - t
	assert r.startswith(b"HTTP/1.1 200") and b"bpflite_runq_latency_seconds_count" in r, r[:200]
	# and a good scrape after all that, before any of the pending
	# clients' deadline (SERVE_DEADLINE_MS, 5 s): a server that waited
	# on one of them would answer only after it
	assert took < 5.0, "answered %.3f s after the pending clients came" % took
	# GET / lists the endpoints
	s = conn(); s.sendall(b"GET / HTTP/1.1\r\n\r\n"); r = answer(s)
	assert b"/metrics" in r and b"/debug/ping" in r, r
	print("good scrape after the bad clients: %.3f s" % took)
	EOF
	# still tracing and serving, and it stops cleanly
	curl -sf --max-time 2 "$URL/metrics" | grep -q '^bpflite_runq_latency_seconds_count [1-9]'
	kill -INT "$SERVE_PID"
	local rc=0
	wait "$SERVE_PID" || rc=$?
	[ "$rc" = 0 ]
}

@test "serve: a deferred answer (/debug/ping?seconds=2) comes after 2 s while scrapes and the BPF side go on" {
	local t0 a b took
	serve runqlat-lite
	t0=$(date +%s%N)
	curl -sf --max-time 10 "$URL/debug/ping?seconds=2" >"$BATS_TEST_TMPDIR/pong" &
	local cp=$!
	# a second deferred request whose client goes away: dropped, nothing breaks
	curl -s --max-time 0.5 "$URL/debug/ping?seconds=1" >/dev/null || true
	sleep 0.3
	a=$(curl -sf --max-time 1 "$URL/metrics" | awk '/_count /{print $2}')
	sleep 0.5
	b=$(curl -sf --max-time 1 "$URL/metrics" | awk '/_count /{print $2}')
	echo "counts while the ping waits: $a $b"
	[ "$b" -gt "$a" ]	# events kept being consumed
	wait "$cp"
	took=$((($(date +%s%N) - t0) / 1000000))
	cat "$BATS_TEST_TMPDIR/pong"
	grep -Eq '^pong after 2[0-9]{3} ms$' "$BATS_TEST_TMPDIR/pong"
	assert_between "ping answered after (ms)" "$took" 1990 3500
	[ "$(curl -s -o /dev/null -w '%{http_code}' "$URL/debug/ping?seconds=x")" = 400 ]
}

@test "serve: 16 deferred pprof requests: 4 wait, the rest get 503 with Retry-After, scrapes are served" {
	# SERVE_MAX_CONNS 16, SERVE_MAX_DEFERRED 4 (common/serve/serve.h)
	serve offcputime-lite
	local host=${URL#http://} port
	port=${host##*:}
	python3 - "$port" <<-'EOF'
	import re, select, socket, sys, time
	port = int(sys.argv[1])
	MAX_CONNS, MAX_DEFERRED = 16, 4
	def conn():
	    return socket.create_connection(("127.0.0.1", port), timeout=10)
	def ask(path):
	    s = conn()
	    s.sendall(b"GET " + path + b" HTTP/1.1\r\nHost: x\r\n\r\n")
	    return s
	def answer(s):
	    data = b""
	    while True:
	        d = s.recv(65536)
	        if not d:
	            return data
	        data += d
	# as many deferred requests as there are connections, each answered in 60 s
	held = [ask(b"/debug/pprof/offcpu?seconds=60") for _ in range(MAX_CONNS)]
	# those past the bound are answered at once: wait for their answers (10 s at most)
	answers, pending, t = {}, list(held), time.time()
	while len(answers) < MAX_CONNS - MAX_DEFERRED and time.time() - t < 10:
	    ready, _, _ = select.select(pending, [], [], 10 - (time.time() - t))
	    for s in ready:
	        answers[s] = answer(s)
	        pending.remove(s)
	print("%d of %d answered at once, after %.3f s" % (len(answers), MAX_CONNS, time.time() - t))
	assert len(answers) == MAX_CONNS - MAX_DEFERRED, [a[:40] for a in answers.values()]
	for a in answers.values():
	    head, _, body = a.partition(b"\r\n\r\n")
	    assert head.startswith(b"HTTP/1.1 503 Service Unavailable\r\n"), a
	    m = re.search(rb"\r\nRetry-After: (\d+)\r\n", head)
	    assert m and 1 <= int(m.group(1)) <= 60, head
	    assert body == b"4 requests wait for a deferred answer, the most at once: retry after %s s\n" % m.group(1), body
	# a scrape meanwhile: served at once, not after the deferred answers
	t = time.time()
	r = answer(ask(b"/metrics"))
	took = time.time() - t
	print("scrape with %d deferred requests waiting: %.3f s" % (len(pending), took))
	assert r.startswith(b"HTTP/1.1 200") and b"bpflite_build_info" in r, r[:200]
	assert took < 5.0, took
	# the 4 still wait, answered nothing yet
	assert len(pending) == MAX_DEFERRED
	assert select.select(pending, [], [], 0)[0] == []
	# their clients go away: the slots are free for deferred requests again
	for s in pending:
	    s.close()
	r = answer(ask(b"/debug/ping?seconds=0"))
	assert r.startswith(b"HTTP/1.1 200") and re.search(rb"\r\n\r\npong after \d+ ms\n$", r), r
	EOF
	curl -sf --max-time 2 "$URL/metrics" | grep -q '^bpflite_build_info{tool="offcputime-lite"'
	kill -INT "$SERVE_PID"
	local rc=0
	wait "$SERVE_PID" || rc=$?
	[ "$rc" = 0 ]
}

@test "serve: SIGINT and SIGTERM: exit 0, nothing on stdout, no BPF left" {
	local ids sig rc
	for sig in INT TERM; do
		serve biolatency-lite
		ids=$(proc_bpf_ids "$SERVE_PID")
		curl -sf "$URL/debug/ping?seconds=30" >/dev/null &	# a deferred request pending at exit
		sleep 0.3
		kill -"$sig" "$SERVE_PID"
		rc=0
		wait "$SERVE_PID" || rc=$?
		[ "$rc" = 0 ]
		[ ! -s "$SERVE_OUT" ]
		assert_bpf_ids_gone "$ids"
		# the socket is closed with it: nothing listens on the port any more
		refute curl -s --max-time 1 "$URL/metrics"
	done
}

@test "serve: a port in use fails with a message" {
	local port
	port=$(free_port)
	# the holder says when it listens: the tool must not start before that
	python3 -c 'import socket, sys, time; s = socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(); open(sys.argv[2], "w").close(); time.sleep(60)' \
		"$port" "$BATS_TEST_TMPDIR/holding" &
	local holder=$!
	for _ in $(seq 300); do [ -e "$BATS_TEST_TMPDIR/holding" ] && break; sleep 0.1; done
	[ -e "$BATS_TEST_TMPDIR/holding" ]
	expect_fail 1 "failed to listen on 127.0.0.1:$port: Address already in use" "$BIN/runqlat-lite" --serve "127.0.0.1:$port"
	kill "$holder"
	# an IPv6 literal in brackets
	if [ -e /proc/net/if_inet6 ]; then
		"$BIN/runqlat-lite" --serve "[::1]:0" 2>"$BATS_TEST_TMPDIR/v6.err" &
		local p6=$!
		for _ in $(seq 100); do grep -q "Hit Ctrl-C" "$BATS_TEST_TMPDIR/v6.err" && break; sleep 0.1; done
		local u6
		u6=$(grep -o 'http://\[::1\]:[0-9]*' "$BATS_TEST_TMPDIR/v6.err")
		curl -sfg --max-time 10 "$u6/metrics" | grep -q '^bpflite_build_info'
		kill -INT "$p6"
		wait "$p6"
	fi
}

# serve_offcpu_profile FILE: the offcpu workload under offcputime-lite
# --serve, its 4 s profile pulled into FILE while it runs.
serve_offcpu_profile() {
	local go wp cp t0 took a b
	go=$(make_go)
	"$WL/offcpu" -n 8 -s 75 -p 25 -g "$go" >"$BATS_TEST_TMPDIR/wl.json" &
	wp=$!
	serve offcputime-lite -p "$wp"
	ktrace_sched "$wp"
	t0=$(date +%s%N)
	curl -sf --max-time 20 -o "$1" "$URL/debug/pprof/offcpu?seconds=4" &
	cp=$!
	sleep 0.3
	go "$go"
	# while the profile is being gathered, /metrics answers at once
	a=$(date +%s%N)
	curl -sf --max-time 1 "$URL/metrics" | grep -q '^bpflite_build_info{tool="offcputime-lite"'
	b=$(date +%s%N)
	wait "$wp"
	wait "$cp"
	ktrace_stop
	took=$((($(date +%s%N) - t0) / 1000000))
	echo "profile after $took ms; a scrape meanwhile took $(((b - a) / 1000000)) ms"
	assert_between "profile answered after (ms)" "$took" 3990 6000
	[ $(((b - a) / 1000000)) -lt 1000 ]
}

@test "serve: offcputime-lite: /debug/pprof/offcpu?seconds=N answers after N s with the profile of those N s, read by go tool pprof" {
	command -v go >/dev/null || skip "go (golang-go) not installed: scripts/deps.sh test"
	export HOME=$BATS_TEST_TMPDIR GOCACHE=$BATS_TEST_TMPDIR/gocache
	local prof=$BATS_TEST_TMPDIR/offcpu.pb.gz top t_sleep t_pipe sleep_us pipe_us
	# the tool runs on: TOOL_RC unset, its own report not checked here
	TOOL_RC=
	traced_run 16 serve_offcpu_profile "$prof"
	top=$BATS_TEST_TMPDIR/top.txt
	command go tool pprof -top -nodefraction=0 -nodecount=1000 -unit=us "$prof" >"$top" 2>/dev/null
	head -20 "$top"
	grep -q '^Type: off_cpu$' "$top"
	sleep_us=$(jq .sleep_us "$BATS_TEST_TMPDIR/wl.json")
	pipe_us=$(jq .pipe_us "$BATS_TEST_TMPDIR/wl.json")
	t_sleep=$(awk '$6 == "offcpu_sleep_fn" { v = $4; sub(/[a-z]+$/, "", v); print v; exit }' "$top")
	t_pipe=$(awk '$6 == "offcpu_pipe_fn" { v = $4; sub(/[a-z]+$/, "", v); print v; exit }' "$top")
	echo "workload: sleep ${sleep_us}us pipe ${pipe_us}us; pprof: sleep ${t_sleep}us pipe ${t_pipe}us"
	assert_between "ratio pprof/workload" \
		"$(awk -v a="$t_sleep" -v b="$t_pipe" -v c="$sleep_us" -v d="$pipe_us" 'BEGIN { print (a / b) / (c / d) }')" 0.9 1.1
	# a second profile, pulled by go tool pprof itself as a continuous profiler
	# would, covers a quiet second: the workload's functions are not in it
	command go tool pprof -raw "$URL/debug/pprof/offcpu?seconds=1" >"$BATS_TEST_TMPDIR/raw" 2>&1
	grep -q 'PeriodType\|Samples:' "$BATS_TEST_TMPDIR/raw"
	refute grep -q offcpu_sleep_fn "$BATS_TEST_TMPDIR/raw"
	[ "$(curl -s -o /dev/null -w '%{http_code}' "$URL/debug/pprof/offcpu?seconds=0")" = 400 ]
}
