# SPDX-License-Identifier: GPL-2.0
# --serve: what a scrape of /metrics costs the tool (its CPU time per
# scrape, from /proc, and the client's wall time), with the syscall label
# at its cap (strace-lite -c -u root --serve on a shared machine: every
# root process's calls), the tool's RSS while serving (after 100 and after
# 1000 scrapes: flat), and the slowdown of a pipe ping-pong under
# runqlat-lite with and without --serve (scraped every 0.2 s meanwhile).
. scripts/bench/lib.sh
N=${BENCH_ROUND_TRIPS:-1000000}
SCRAPES=${BENCH_SCRAPES:-200}

url_of() { grep -o 'http://[0-9.:]*' "$1" | head -1; }
cpu_ticks() { awk '{print $14 + $15}' /proc/"$1"/stat; }
rss_kb() { awk '/^VmRSS:/{print $2}' /proc/"$1"/status; }

err=$(mktemp)
"$BIN/strace-lite" -c -u root --serve 127.0.0.1:0 >/dev/null 2>"$err" &
p=$!
for _ in $(seq 300); do grep -q "Hit Ctrl-C" "$err" && break; sleep 0.05; done
url=$(url_of "$err")
sleep 3	# let every root process make its calls: the label fills up
curl -sf "$url/metrics" >/dev/null
series=$(curl -sf "$url/metrics" | grep -c '^bpflite_syscalls_total{')
bytes=$(curl -sf "$url/metrics" | wc -c)
t0=$(cpu_ticks $p)
for i in $(seq "$SCRAPES"); do
	curl -s -o /dev/null -w '%{time_total}\n' "$url/metrics"
done | awk '{print $1 * 1e6}' >"$err.wall"
t1=$(cpu_ticks $p)
hz=$(getconf CLK_TCK)
cpu_us=$(awk -v a="$t0" -v b="$t1" -v hz="$hz" -v n="$SCRAPES" 'BEGIN{printf "%.0f", (b - a) * 1e6 / hz / n}')
wall_us=$(median <"$err.wall")
rss100=$(rss_kb $p)
kill -TERM $p; wait $p 2>/dev/null

# RSS flat over many scrapes: runqlat-lite, 100 then 1000 scrapes
"$BIN/runqlat-lite" --serve 127.0.0.1:0 >/dev/null 2>"$err" &
p=$!
for _ in $(seq 300); do grep -q "Hit Ctrl-C" "$err" && break; sleep 0.05; done
url=$(url_of "$err")
for i in $(seq 100); do curl -s -o /dev/null "$url/metrics"; done
r100=$(rss_kb $p)
for i in $(seq 900); do curl -s -o /dev/null "$url/metrics"; done
r1000=$(rss_kb $p)
kill -TERM $p; wait $p 2>/dev/null
rm -f "$err.wall"

pp() { "$WL/pingpong" -n "$N" -c 1 | jq .ns_per_round_trip; }
# a Prometheus stand-in: a scrape every 0.2 s while the workload runs
pp_scraped() {
	local s r
	( while :; do curl -s -o /dev/null "$SURL/metrics"; sleep 0.2; done ) &
	s=$!
	r=$(pp)
	kill $s; wait $s 2>/dev/null
	echo "$r"
}
# alternating rounds, medians: the machine is shared and noisy
ROUNDS=${BENCH_ROUNDS:-3}
: >"$err.base"; : >"$err.plain"; : >"$err.served"
for r in $(seq "$ROUNDS"); do
	pp >>"$err.base"
	under pp "$BIN/runqlat-lite" >>"$err.plain"
	serve_err=$(mktemp)
	"$BIN/runqlat-lite" --serve 127.0.0.1:0 >/dev/null 2>"$serve_err" &
	sp=$!
	for _ in $(seq 300); do grep -q "Hit Ctrl-C" "$serve_err" && break; sleep 0.05; done
	SURL=$(url_of "$serve_err")
	sleep 0.5
	pp_scraped >>"$err.served"
	kill -TERM $sp; wait $sp 2>/dev/null
	rm -f "$serve_err"
done
b=$(median <"$err.base")
plain=$(median <"$err.plain")
served=$(median <"$err.served")
rm -f "$err.base" "$err.plain" "$err.served"

printf "%-44s %12s\n" "scrape, syscall label at its cap" "$series series, $bytes bytes"
printf "%-44s %12s\n" "  tool CPU per scrape (mean of $SCRAPES)" "${cpu_us} us"
printf "%-44s %12s\n" "  client wall per scrape (median)" "${wall_us} us"
printf "%-44s %12s\n" "  strace-lite -c -u root --serve RSS" "${rss100} KiB"
printf "%-44s %12s\n" "runqlat-lite --serve RSS, 100 scrapes" "${r100} KiB"
printf "%-44s %12s\n" "runqlat-lite --serve RSS, 1000 scrapes" "${r1000} KiB"
printf "%-44s %12s %8s\n" "ping-pong ($N round trips, median of $ROUNDS)" "ns/trip" "ratio"
printf "%-44s %12.0f %8s\n" "  no tool" "$b" "1.00"
printf "%-44s %12.0f %8s\n" "  runqlat-lite" "$plain" "$(ratio "$plain" "$b")"
printf "%-44s %12.0f %8s\n" "  runqlat-lite --serve, scraped every 0.2 s" "$served" "$(ratio "$served" "$b")"
rm -f "$err"
