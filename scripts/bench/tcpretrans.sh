# SPDX-License-Identifier: GPL-2.0
# tcpretrans-lite: start-up, peak RSS and kernel map memory, with and
# without -c. Retransmits are rare events: between them the tool costs
# nothing (its tracepoints do not fire), so there is no loop to slow down.
. scripts/bench/lib.sh

mem_of() {
	"$@" >/dev/null 2>&1 &
	local p=$!
	sleep 1
	maps_memlock_bytes $p
	kill -INT $p
	wait $p 2>/dev/null
}

resources tcpretrans-lite "$BIN/tcpretrans-lite"
rssc=$(peak_rss_kb 3 "$BIN/tcpretrans-lite" -c)
mem=$(mem_of "$BIN/tcpretrans-lite")
memc=$(mem_of "$BIN/tcpretrans-lite" -c)

printf "%-40s %12s\n" "peak RSS (-c)" "$((rssc)) KiB"
printf "%-40s %12s\n" "kernel map memory" "$((mem / 1024)) KiB"
printf "%-40s %12s\n" "kernel map memory (-c)" "$((memc / 1024)) KiB"
