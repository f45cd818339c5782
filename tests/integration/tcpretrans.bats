#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# tcpretrans-lite against retransmits forced between two network
# namespaces of the test's own, joined by a veth pair: an nftables rule in
# the receiving namespace's input hook drops the sender's packets for a
# window, so the sender's kernel retransmits (dropping in the sender's
# output hook would fail the send locally: nothing retransmitted). The
# tool's count must equal the retransmits the sending namespace's counters
# say left it: RetransSegs less TCPRetransFail.

load helpers

PORT=5017
# The tool sees every namespace: addresses of this run's own (another run
# of these tests may be going on at the same time on a shared machine).
NET=$(($$ % 250 + 1))
A4=198.18.$NET.1
B4=198.18.$NET.2
A6=2001:db8:$NET::1
B6=2001:db8:$NET::2

setup() {
	require_root
	command -v nft >/dev/null || skip "no nft"
	NSA=bpfl-ra-$$
	NSB=bpfl-rb-$$
	SRV=
	BG=
	ip netns add "$NSA"
	ip netns add "$NSB"
	ip link add "va$$" netns "$NSA" type veth peer name "vb$$" netns "$NSB"
	ip -n "$NSA" addr add $A4/24 dev "va$$"
	ip -n "$NSB" addr add $B4/24 dev "vb$$"
	ip -n "$NSA" -6 addr add $A6/64 dev "va$$" nodad
	ip -n "$NSB" -6 addr add $B6/64 dev "vb$$" nodad
	for ns in "$NSA" "$NSB"; do
		ip -n "$ns" link set lo up
	done
	ip -n "$NSA" link set "va$$" up
	ip -n "$NSB" link set "vb$$" up
	# A tail loss probe is sent by __tcp_retransmit_skb() without passing
	# the tcp_retransmit_skb tracepoint, yet RetransSegs counts it: turn
	# probes off so the tool's count and the counter can be equal.
	for ns in "$NSA" "$NSB"; do
		ip netns exec "$ns" sysctl -qw net.ipv4.tcp_early_retrans=0
	done
	# static neighbours: no first packet waits on ARP or ND
	local ma mb
	ma=$(ip -n "$NSA" -j link show "va$$" | jq -r '.[0].address')
	mb=$(ip -n "$NSB" -j link show "vb$$" | jq -r '.[0].address')
	ip -n "$NSA" neigh replace $B4 lladdr "$mb" dev "va$$" nud permanent
	ip -n "$NSA" neigh replace $B6 lladdr "$mb" dev "va$$" nud permanent
	ip -n "$NSB" neigh replace $A4 lladdr "$ma" dev "vb$$" nud permanent
	ip -n "$NSB" neigh replace $A6 lladdr "$ma" dev "vb$$" nud permanent
}

# Runs even when a test fails: namespaces (and the veth pair, rules and
# server in them) are removed.
teardown() {
	local p
	for p in ${BG:-} ${TOOL_PID:-} ${SRV:-}; do
		kill -INT "$p" 2>/dev/null || true
	done
	if [ -n "${NSA:-}" ]; then ip netns del "$NSA" 2>/dev/null || true; fi
	if [ -n "${NSB:-}" ]; then ip netns del "$NSB" 2>/dev/null || true; fi
	bpf_stats_restore
	true
}

# RetransSegs of namespace $1.
retrans() {
	ip netns exec "$1" awk '/^Tcp:/ { if (!h) { for (i = 1; i <= NF; i++) if ($i == "RetransSegs") c = i; h = 1 } else print $c }' /proc/net/snmp
}

# TCPRetransFail of namespace $1: retransmits that failed in the sender's
# own stack. RetransSegs counts a segment before tcp_transmit_skb() is
# tried, so a failed attempt (a full queue on a busy machine: rare, but
# it made a data test one short about once in twenty runs) raises
# RetransSegs without a segment leaving; the tracepoint then reports it
# with an error (kernels with the err argument) or not at all, and the
# tool does not show it.
retrans_fail() {
	ip netns exec "$1" awk '/^TcpExt:/ { if (!h) { for (i = 1; i <= NF; i++) if ($i == "TCPRetransFail") c = i; h = 1 } else print $c }' /proc/net/netstat
}

# Retransmits that left namespace $1: RetransSegs - TCPRetransFail.
retrans_sent() {
	echo $(( $(retrans "$1") - $(retrans_fail "$1") ))
}

# Whether this kernel's tcp_retransmit_skb tracepoint has the err
# argument (and so fires for failed attempts): from its BTF prototype,
# (void *, sk, skb, err) against (void *, sk, skb).
kernel_reports_failed_retransmits() {
	bpftool btf dump file /sys/kernel/btf/vmlinux format raw | awk '
		{ id = substr($1, 2, length($1) - 2); line[id] = $0 }
		$2 == "TYPEDEF" && $3 == "\047btf_trace_tcp_retransmit_skb\047" { td = $0; sub(/.*type_id=/, "", td) }
		END { p = line[td]; sub(/.*type_id=/, "", p); f = line[p]; sub(/.*vlen=/, "", f); exit !(f + 0 == 4) }'
}

# watch_start ARGS...: a second tcpretrans-lite -j ARGS in the background,
# attached when this returns. Sets W_PID, W_OUT.
watch_start() {
	W_OUT=$BATS_TEST_TMPDIR/watch.$RANDOM.out
	"$BIN/tcpretrans-lite" -j "$@" >"$W_OUT" 2>"$W_OUT.err" &
	W_PID=$!
	BG="${BG:-} $W_PID"
	for _ in $(seq 150); do
		grep -q "Hit Ctrl-C to end" "$W_OUT.err" && return 0
		kill -0 "$W_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "watcher did not start:" >&2
	cat "$W_OUT.err" >&2
	return 1
}

watch_stop() {
	local rc=0
	kill -INT "$W_PID"
	wait "$W_PID" || rc=$?
	[ "$rc" = 0 ] || { echo "watcher exited $rc" >&2; return 1; }
}

# drop NS RULE...: drop matching packets in NS's input hook until undrop NS.
drop() {
	local ns=$1
	shift
	ip netns exec "$ns" nft add table inet bpflite
	ip netns exec "$ns" nft add chain inet bpflite input '{ type filter hook input priority 0; }'
	ip netns exec "$ns" nft add rule inet bpflite input "$@" drop
}
undrop() {
	ip netns exec "$1" nft delete table inet bpflite
}

# server ADDR: the echo server in B, for one connection.
server() {
	ip netns exec "$NSB" "$WL/tcpflow" -S -a "$1" -p $PORT -n 1 >"$BATS_TEST_TMPDIR/srv.out" &
	SRV=$!
	for _ in $(seq 50); do
		grep -q ready "$BATS_TEST_TMPDIR/srv.out" && return 0
		sleep 0.1
	done
	echo "server did not start" >&2
	return 1
}

# data_run V TOOL_ARGS...: an established IPv(V) connection from A to B;
# B drops A's segments for 1 s while A sends one message. Leaves TOOL_OUT,
# CLI (client's JSON), DELTA (A's RetransSegs increase), SENT (the
# retransmits that left A), KSENT (those the kernel's own tracer saw:
# what the tool must show), LA, RA. When the kernel traced fewer than its
# counters say left A, the run lacks what the checks compare: it is run
# again, once, and says so.
data_run() {
	retrans_twice data_once "$@"
}

# retrans_twice CMD...: CMD (which leaves SENT and KSENT, and RUN_CNT when
# it reads it), and CMD again, once, when the kernel traced fewer
# retransmits than its counters say left A, or ran the tool's program
# fewer times than it traced retransmits (the tool cannot see a call the
# kernel did not make); says so on fd 3, in every log.
retrans_twice() {
	local try why
	for try in 1 2; do
		RUN_CNT=
		"$@"
		if [ "$KSENT" != "$SENT" ]; then
			why="the kernel traced $KSENT of the $SENT retransmits that left A"
		elif [ -n "$RUN_CNT" ] && [ "$RUN_CNT" -lt "$KSENT" ]; then
			why="the kernel ran the tool's program $RUN_CNT times for the $KSENT retransmits it traced"
		else
			return 0
		fi
		echo "# run $try: $why" | tee /dev/fd/3
	done
}

data_once() {
	local v=$1 go cp before after match
	shift
	if [ "$v" = 4 ]; then LA=$A4 RA=$B4 match="ip saddr $A4"; else LA=$A6 RA=$B6 match="ip6 saddr $A6"; fi
	server "$RA"
	go=$(make_go)
	ip netns exec "$NSA" "$WL/tcpflow" -a "$RA" -p $PORT -g "$go" >"$BATS_TEST_TMPDIR/cli.json" &
	cp=$!
	for _ in $(seq 50); do
		[ -n "$(ip netns exec "$NSA" ss -tnH state established)" ] && break
		sleep 0.1
	done
	bpf_stats_on
	start_tool tcpretrans-lite -v "$@"
	ktrace_start tcp/tcp_retransmit_skb "dport == $PORT"
	before=$(retrans "$NSA")
	local sent0 sent1
	sent0=$(retrans_sent "$NSA")
	drop "$NSB" $match tcp dport $PORT
	go "$go"
	sleep 1
	undrop "$NSB"
	wait "$cp"
	after=$(retrans "$NSA")
	sent1=$(retrans_sent "$NSA")
	ktrace_stop
	sleep 0.3
	# how often the kernel ran the tool's program (every flow's, machine-wide)
	read -r RUN_CNT RUN_MISSED < <(prog_runs "$TOOL_PID" '^tcp_retransmit_(skb|$)')
	stop_tool INT
	[ "$TOOL_RC" = 0 ]
	CLI=$(cat "$BATS_TEST_TMPDIR/cli.json")
	DELTA=$((after - before))
	# Drops are in the receiver's input hook: every retransmit of this
	# flow that the sender's stack did not fail leaves it, and must be
	# shown. (The tool's count of local failures is machine-wide: sockets
	# of earlier tests' deleted namespaces may still fail retransmits.)
	SENT=$((sent1 - sent0))
	KSENT=$(ktrace_retrans ok)
	echo "client: $CLI; RetransSegs +$DELTA, of them sent $SENT, traced $KSENT; local failures machine-wide $(failed_count); the kernel ran the tool's program $RUN_CNT times and skipped it $RUN_MISSED times (machine-wide)"
	# the kernel's trace of the flow, for when the tool's count differs
	grep 'tcp_retransmit_skb:' "$BATS_TEST_TMPDIR/ktrace" || true
	cat "$TOOL_OUT"
	# shown when a check fails: what the tool said of its losses
	grep -E 'events lost|updates dropped|failed locally' "$TOOL_ERR" || true
}

# ktrace_retrans ok|failed: retransmits from LA to RA:PORT in the kernel's
# own trace (ktrace_start), without an error or with one (kernels whose
# tracepoint has no err argument trace only those without).
ktrace_retrans() {
	awk -v la="$LA" -v p="$PORT" -v want="$1" '
		/tcp_retransmit_skb:/ && index($0, " dport=" p " ") &&
		(index($0, " saddr=" la " ") || index($0, " saddrv6=" la " ")) {
			failed = match($0, / err=-?[1-9]/) > 0
			if (failed == (want == "failed")) n++
		}
		END { print n + 0 }' "$BATS_TEST_TMPDIR/ktrace"
}

# Retransmit attempts that failed in the sender's stack (-v says so at exit).
failed_count() { tool_err_count "retransmit attempts failed locally"; }

# Retransmits the tool reported from LA to RA:PORT of kind $1 (R or S).
tool_retrans() {
	jq -s --arg t "$1" --arg la "$LA" --arg ra "$RA" --argjson p $PORT \
		'[.[] | select(.type == "retransmit" and .t == $t and .laddr == $la and .raddr == $ra and .rport == $p)] | length' "$TOOL_OUT"
}

# Runs of the tool's program the kernel skipped (the program already
# running on that CPU), as the tool said at exit: machine-wide, not this
# flow's alone.
tool_missed() { tool_err_count "events missed"; }

# shown_all N: N, the retransmits of this flow the tool showed, are every
# one the kernel traced (KSENT), never more, and fewer only by runs the
# kernel skipped and the tool said so.
shown_all() {
	local missed
	missed=$(tool_missed)
	echo "shown $1 of the $KSENT the kernel traced; runs the kernel skipped (machine-wide) $missed"
	[ "$1" -le "$KSENT" ]
	[ $(($1 + missed)) -ge "$KSENT" ]
}

check_data_run() {
	local lport
	lport=$(echo "$CLI" | jq .lport)
	[ "$SENT" -ge 1 ]
	shown_all "$(tool_retrans R)"
	[ "$KSENT" = "$SENT" ]
	# no warning but the kernel's skipped runs, which shown_all accounts
	[ "$(grep "warning" "$TOOL_ERR" | grep -vc "events missed")" = 0 ]
	# every one of them: this flow, established, the right IP version; the
	# pid of whatever task ran (often 0 in the timer's softirq): a process
	# id, not a tid/tgid pair or a kernel pointer
	jq -se --arg la "$LA" --argjson lp "$lport" --argjson ip "$1" --argjson pm "$(cat /proc/sys/kernel/pid_max)" \
		'[.[] | select(.type == "retransmit" and .laddr == $la)] | all(.lport == $lp and .state == "ESTABLISHED" and .ip == $ip and
			(.pid | type == "number" and . == floor and . >= 0 and . < $pm))' "$TOOL_OUT"
	assert_ndjson "$TOOL_OUT"
}

# bats test_tags=smoke, vm
@test "tcpretrans: IPv4 data retransmits: count equals what left A (RetransSegs - TCPRetransFail), addresses, ports, state (tp_btf)" {
	data_run 4 -j
	grep -q "loader: light" "$TOOL_ERR"
	grep -q "attach tcp_retransmit_skb: tp_btf" "$TOOL_ERR"
	check_data_run 4
}

# bats test_tags=vm
@test "tcpretrans: IPv4 data retransmits, forced raw_tp path" {
	data_run 4 -j --force-raw-tp
	grep -q "loader: light" "$TOOL_ERR"
	grep -q "attach tcp_retransmit_skb: raw_tp (forced)" "$TOOL_ERR"
	check_data_run 4
}

@test "tcpretrans: IPv4 data retransmits, forced libbpf skeleton" {
	data_run 4 -j --force-libbpf
	grep -q "loader: libbpf skeleton (forced)" "$TOOL_ERR"
	grep -q "attach tcp_retransmit_skb: tp_btf" "$TOOL_ERR"
	check_data_run 4
}

# bats test_tags=vm
@test "tcpretrans: IPv6 data retransmits: count equals what left A (RetransSegs - TCPRetransFail), addresses, ports, state" {
	data_run 6 -j
	check_data_run 6
}

# bats test_tags=vm
@test "tcpretrans: SYN retransmit is R> in SYN_SENT; SYN-ACK retransmit is S> in NEW_SYN_RECV" {
	local go cp a0 a1 b0 b1 lport
	LA=$A4 RA=$B4
	server "$B4"
	go=$(make_go)
	ip netns exec "$NSA" "$WL/tcpflow" -C -a "$B4" -p $PORT -g "$go" >"$BATS_TEST_TMPDIR/cli.json" &
	cp=$!
	start_tool tcpretrans-lite -j -s -v
	a0=$(retrans_sent "$NSA")
	b0=$(retrans_sent "$NSB")
	# the SYN-ACKs from B are dropped at A until both have retransmitted:
	# A its SYN and B its SYN-ACK, each after its 1 s initial timeout, in
	# either order (a drop of a fixed 0.5 s let B's SYN-ACK, when its timer
	# fired first, end the handshake before A's SYN was ever retransmitted)
	drop "$NSA" ip saddr $B4 tcp sport $PORT tcp flags '& (syn | ack) == syn | ack'
	go "$go"
	for _ in $(seq 100); do
		if [ "$(retrans_sent "$NSA")" -gt "$a0" ] && [ "$(retrans_sent "$NSB")" -gt "$b0" ]; then
			break
		fi
		sleep 0.1
	done
	undrop "$NSA"
	wait "$cp"
	a1=$(retrans_sent "$NSA")
	b1=$(retrans_sent "$NSB")
	sleep 0.3
	stop_tool INT
	cat "$TOOL_OUT"
	cat "$TOOL_ERR"
	cat "$BATS_TEST_TMPDIR/cli.json"
	lport=$(jq .lport "$BATS_TEST_TMPDIR/cli.json")
	echo "A +$((a1 - a0)) B +$((b1 - b0))"
	[ "$TOOL_RC" = 0 ]
	# A: the SYN retransmitted, in SYN_SENT
	[ $((a1 - a0)) -ge 1 ]
	# A's SYNs leave A (the drop is in A's input): all that A sent
	[ "$(tool_retrans R)" = $((a1 - a0)) ]
	jq -se --arg la "$A4" --argjson lp "$lport" '[.[] | select(.t == "R" and .laddr == $la)] | length > 0 and all(.state == "SYN_SENT" and .lport == $lp)' "$TOOL_OUT"
	# B: the SYN-ACK retransmitted, seen from the server's side
	LA=$B4 RA=$A4
	[ $((b1 - b0)) -ge 1 ]
	jq -se --arg la "$B4" --arg ra "$A4" --argjson lp "$lport" --argjson p $PORT \
		'[.[] | select(.t == "S" and .laddr == $la)] | length > 0 and all(.lport == $p and .raddr == $ra and .rport == $lp and .state == "NEW_SYN_RECV")' "$TOOL_OUT"
	[ "$(jq -s --arg la "$B4" '[.[] | select(.t == "S" and .laddr == $la)] | length' "$TOOL_OUT")" = $((b1 - b0)) ]
}

@test "tcpretrans: -4 and -6 filter by IP version: each shows its own flows, not the other's" {
	# an IPv4 run under -4, watched by a -6 tool (attached first): it sees none of it
	watch_start -6
	data_run 4 -j -4
	check_data_run 4
	[ "$(jq -s '[.[] | select(.type == "retransmit")] | all(.ip == 4)' "$TOOL_OUT")" = true ]
	watch_stop
	[ "$(jq -s --arg a "$A4" '[.[] | select(.type == "retransmit" and (.laddr == $a or .raddr == $a))] | length' "$W_OUT")" = 0 ]
	[ "$(jq -s '[.[] | select(.type == "retransmit")] | all(.ip == 6)' "$W_OUT")" = true ]
	# and the other way round: an IPv6 run under -6, a -4 watcher
	teardown; setup
	watch_start -4
	data_run 6 -j -6
	check_data_run 6
	[ "$(jq -s '[.[] | select(.type == "retransmit")] | all(.ip == 6)' "$TOOL_OUT")" = true ]
	watch_stop
	[ "$(jq -s --arg a "$A6" '[.[] | select(.type == "retransmit" and (.laddr == $a or .raddr == $a))] | length' "$W_OUT")" = 0 ]
	[ "$(jq -s '[.[] | select(.type == "retransmit")] | all(.ip == 4)' "$W_OUT")" = true ]
}

@test "tcpretrans: --serve: bpflite_tcp_retransmits_total{family=\"ipv4\",type=\"retransmit\"} counts what left A" {
	local sp url n all missed
	serve_tool tcpretrans-lite -4
	sp=$SERVE_PID url=$URL
	data_run 4 -j
	[ "$SENT" -ge 1 ]
	n=$(curl -sf "$url/metrics" | awk '/^bpflite_tcp_retransmits_total\{family="ipv4",type="retransmit"\}/ {print $2}')
	# the server ran longer than the -j run, which saw every IPv4 retransmit
	all=$(jq -s '[.[] | select(.type == "retransmit" and .ip == 4 and .t == "R")] | length' "$TOOL_OUT")
	echo "served $n; the -j run saw $all, $SENT of this flow"
	# what the server's programs missed, the kernel's count (0 unless an
	# interrupt's retransmit came inside a process context's on one CPU)
	missed=$(curl -sf "$url/metrics" | awk '/^bpflite_events_lost_total\{reason="missed"\}/ {print $2}')
	[ -n "$missed" ]
	[ $((n + missed)) -ge "$SENT" ]
	[ "$n" -ge "$all" ]
	[ "$n" -le $((all + 5)) ]	# nothing invented (a few of other work at most)
	[ "$(curl -sf "$url/metrics" | awk '/^bpflite_tcp_retransmits_total\{family="ipv6"/ {s += $2} END {print s}')" = 0 ]
	kill -INT "$sp"
	wait "$sp"
	[ ! -s "$SERVE_OUT" ]
}

@test "tcpretrans: -c counts per flow in aligned columns; -j gives the same count" {
	data_run 6 -c
	local lport line
	lport=$(echo "$CLI" | jq .lport)
	grep -Eq '^LADDR:LPORT +RADDR:RPORT +RETRANSMITS$' "$TOOL_OUT"
	line=$(grep -F "$A6:$lport " "$TOOL_OUT")
	echo "$line" | grep -Eq "^$A6:$lport +$B6:$PORT +[0-9]+\$"
	[ "$KSENT" = "$SENT" ]
	shown_all "$(echo "$line" | awk '{print $NF}')"
	# columns line up: RADDR starts at the same offset in header and row
	[ "$(grep -b -o 'RADDR' <(head -2 "$TOOL_OUT" | tail -1) | cut -d: -f1)" = \
	  "$(echo "$line" | grep -b -o "$B6" | head -1 | cut -d: -f1)" ]
	teardown; setup
	data_run 4 -c -j
	jq -se --arg la "$A4" '[.[] | select(.type == "count" and .laddr == $la)] | length == 1 and .[0].ip == 4' "$TOOL_OUT"
	[ "$KSENT" = "$SENT" ]
	shown_all "$(jq -s --arg la "$A4" '[.[] | select(.type == "count" and .laddr == $la)] | .[0].retransmits' "$TOOL_OUT")"
}

@test "tcpretrans: text output: bcc's columns, -T and -s" {
	data_run 4 -T -s
	local lport
	lport=$(echo "$CLI" | jq .lport)
	head -1 "$TOOL_OUT" | grep -Eq '^TIME\(s\) +TIME +PID +IP LADDR:LPORT +T> RADDR:RPORT +STATE +SEQ$'
	[ "$(grep -cE "^[0-9]+\.[0-9]{6} +[0-9]{2}:[0-9]{2}:[0-9]{2} [0-9 ]{7} 4  $A4:$lport +R> $B4:$PORT +ESTABLISHED +[0-9]+$" "$TOOL_OUT")" = "$SENT" ]
	grep -q "Tracing TCP retransmits... Hit Ctrl-C to end." "$TOOL_ERR"
}

@test "tcpretrans: SIGINT and SIGTERM exit 0 and leave no BPF behind" {
	local ids
	for sig in INT TERM; do
		start_tool tcpretrans-lite
		ids=$(proc_bpf_ids "$TOOL_PID")
		sleep 0.5
		stop_tool "$sig"
		[ "$TOOL_RC" = 0 ]
		head -1 "$TOOL_OUT" | grep -q "^TIME"
		assert_bpf_ids_gone "$ids"
		start_tool tcpretrans-lite -c
		ids=$(proc_bpf_ids "$TOOL_PID")
		sleep 0.5
		stop_tool "$sig"
		[ "$TOOL_RC" = 0 ]
		grep -q "RETRANSMITS" "$TOOL_OUT"
		assert_bpf_ids_gone "$ids"
	done
}

# fail_once: A's retransmits of one message, some failing in A's own
# output hook. Leaves SENT and FAILED (RetransSegs less TCPRetransFail, and
# TCPRetransFail), KSENT and KFAILED (the kernel's own trace of them).
fail_once() {
	local go cp before after fail0 fail1
	LA=$A4 RA=$B4
	server "$B4"
	go=$(make_go)
	ip netns exec "$NSA" "$WL/tcpflow" -a "$B4" -p $PORT -g "$go" >"$BATS_TEST_TMPDIR/cli.json" &
	cp=$!
	for _ in $(seq 50); do
		[ -n "$(ip netns exec "$NSA" ss -tnH state established)" ] && break
		sleep 0.1
	done
	start_tool tcpretrans-lite -j -v
	ktrace_start tcp/tcp_retransmit_skb "dport == $PORT"
	before=$(retrans "$NSA")
	fail0=$(retrans_fail "$NSA")
	# B drops A's segments for 1.2 s, so A retransmits (about 0.2, 0.6,
	# 1.4 s); from 0.3 to 1 s A's own output hook drops them too: those
	# retransmits fail in A's stack (nothing leaves)
	drop "$NSB" ip saddr $A4 tcp dport $PORT
	go "$go"
	sleep 0.3
	ip netns exec "$NSA" nft add table inet bpflite
	ip netns exec "$NSA" nft add chain inet bpflite output '{ type filter hook output priority 0; }'
	ip netns exec "$NSA" nft add rule inet bpflite output ip daddr $B4 tcp dport $PORT drop
	sleep 0.7
	undrop "$NSA"
	sleep 0.2
	undrop "$NSB"
	wait "$cp"
	after=$(retrans "$NSA")
	fail1=$(retrans_fail "$NSA")
	ktrace_stop
	sleep 0.3
	stop_tool INT
	[ "$TOOL_RC" = 0 ]
	cat "$TOOL_OUT" "$TOOL_ERR"
	FAILED=$((fail1 - fail0))
	SENT=$((after - before - FAILED))
	KSENT=$(ktrace_retrans ok)
	KFAILED=$(ktrace_retrans failed)
}

@test "tcpretrans: attempts that fail locally (sender's output hook drops) are counted under -v, not shown" {
	local shown failed
	retrans_twice fail_once
	shown=$(tool_retrans R)
	failed=$(failed_count)
	echo "RetransSegs +$((SENT + FAILED)), TCPRetransFail +$FAILED, traced $KSENT sent and $KFAILED failed; shown $shown, failed (machine-wide) $failed"
	# A's stack failed some (counted in RetransSegs before sending, and in
	# TCPRetransFail); the one after the drop ended got through
	[ "$FAILED" -ge 1 ]
	[ "$shown" -ge 1 ]
	# shown: exactly those that left A, as the kernel traced them
	shown_all "$shown"
	[ "$KSENT" = "$SENT" ]
	# counted under -v where the kernel reports failed attempts at all
	# (the machine-wide count may hold other namespaces' failures too)
	if kernel_reports_failed_retransmits; then
		[ "$KFAILED" = "$FAILED" ]
		[ "$failed" -ge "$FAILED" ]
	else
		[ "$failed" = 0 ]
	fi
}
