#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# flamegraph-lite: folded stacks in, a self-contained SVG out. No root, no
# BPF: the SVG is read back (xmllint, tests/integration/flamegraph_check.py)
# and rendered and clicked in headless Chromium.

load helpers

FG=flamegraph-lite

setup_file() {
	# The browser is its own package group: install it here so that
	# `make test` on a fresh machine runs the browser tests too.
	export FG_NO_BROWSER=""
	if ! "$ROOT/scripts/deps.sh" browser >"$BATS_FILE_TMPDIR/deps.log" 2>&1; then
		FG_NO_BROWSER="chromium could not be installed: $(tail -1 "$BATS_FILE_TMPDIR/deps.log")"
	elif ! command -v chromium >/dev/null; then
		FG_NO_BROWSER="chromium is not on PATH"
	fi
	# Debian's python3 (scripts/deps.sh test) for the SVG and PNG checks.
	export PY=/usr/bin/python3
	[ -x "$PY" ] || PY=python3
	export CHECK="$PY $BATS_TEST_DIRNAME/flamegraph_check.py"

	# A known profile: 1,000,000 us in all; work = 750,000 of which
	# 250,000 in the kernel behind a "-" delimiter; idle given in two lines.
	cat >"$BATS_FILE_TMPDIR/known.folded" <<-'EOF'
	app;main;work;compute 500000
	app;main;work;-;entry_SYSCALL_64_after_hwframe;do_syscall_64;__x64_sys_nanosleep;hrtimer_nanosleep;do_nanosleep 250000
	app;main;idle 100000
	app;main;idle 50000
	db;query;-;entry_SYSCALL_64_after_hwframe;ksys_read;pipe_read 75000
	db;query 25000
	EOF
}

known() {
	echo "$BATS_FILE_TMPDIR/known.folded"
}

# frames SVG: the frames as "depth TAB name TAB count TAB pct TAB x TAB width
# TAB fill", after checking the structure (widths add up, depth-first order).
frames() {
	$CHECK tree "$1"
}

# field NAME COLUMN < frames: a column of the frame called NAME
field() {
	awk -F'\t' -v n="$1" -v c="$2" '$2 == n { print $c; exit }'
}

# Is rgb(r,g,b) warm (user), cool (kernel) or grey?
hue() {
	echo "$1" | tr -d 'rgb()' | awk -F, '{ print ($1 == $2 && $2 == $3) ? "grey" : ($1 > $3) ? "warm" : "cool" }'
}

# bats test_tags=smoke
@test "flamegraph: well-formed SVG whose frame widths add up to their parents" {
	"$BIN/$FG" --countname us <"$(known)" >"$BATS_TEST_TMPDIR/g.svg"
	xmllint --noout "$BATS_TEST_TMPDIR/g.svg"
	frames "$BATS_TEST_TMPDIR/g.svg" >"$BATS_TEST_TMPDIR/f.tsv"
	# all, app, main, work, compute, -, 5 kernel frames, idle, db, query, -, 3 kernel frames
	[ "$(wc -l <"$BATS_TEST_TMPDIR/f.tsv")" -eq 18 ]
	# the root spans the width less the margins: 1200 - 2 * 10
	[ "$(field all 6 <"$BATS_TEST_TMPDIR/f.tsv")" = 1180.0 ]
	# work = compute + kernel part, side by side
	w=$(field work 6 <"$BATS_TEST_TMPDIR/f.tsv")
	c=$(field compute 6 <"$BATS_TEST_TMPDIR/f.tsv")
	k=$(field do_nanosleep 6 <"$BATS_TEST_TMPDIR/f.tsv")
	assert_between "compute + kernel - work" "$(awk -v c="$c" -v k="$k" -v w="$w" 'BEGIN { print c + k - w }')" -0.02 0.02
	assert_between "work width" "$w" 884.99 885.01
	# no external references: one inline script, no href, no @import
	[ "$(xmllint --xpath "count(//*[local-name()='script'])" "$BATS_TEST_TMPDIR/g.svg")" = 1 ]
	refute grep -Eq 'href|@import|url\(http|src=' "$BATS_TEST_TMPDIR/g.svg"
}

@test "flamegraph: counts and percentages in the titles" {
	"$BIN/$FG" --countname us --title "Off-CPU & more" <"$(known)" >"$BATS_TEST_TMPDIR/g.svg"
	for t in 'all (1,000,000 us, 100.00%)' 'app (900,000 us, 90.00%)' \
		'work (750,000 us, 75.00%)' 'compute (500,000 us, 50.00%)' \
		'do_nanosleep (250,000 us, 25.00%)' 'idle (150,000 us, 15.00%)' \
		'query (100,000 us, 10.00%)' 'pipe_read (75,000 us, 7.50%)'; do
		grep -qF "<title>$t</title>" "$BATS_TEST_TMPDIR/g.svg" || { echo "no title '$t'" >&2; return 1; }
	done
	grep -qF '<text id="title" x="600.0" y="22">Off-CPU &amp; more</text>' "$BATS_TEST_TMPDIR/g.svg"
	grep -qF '1,000,000 us in 6 stacks' "$BATS_TEST_TMPDIR/g.svg"
	# the two idle lines are one frame
	[ "$(grep -c '<title>idle ' "$BATS_TEST_TMPDIR/g.svg")" -eq 1 ]
}

@test "flamegraph: kernel frames coloured apart from user frames" {
	"$BIN/$FG" <"$(known)" >"$BATS_TEST_TMPDIR/g.svg"
	frames "$BATS_TEST_TMPDIR/g.svg" >"$BATS_TEST_TMPDIR/f.tsv"
	for f in app main work compute idle db query; do
		[ "$(hue "$(field "$f" 7 <"$BATS_TEST_TMPDIR/f.tsv")")" = warm ] || { echo "$f is not warm" >&2; return 1; }
	done
	for f in entry_SYSCALL_64_after_hwframe do_syscall_64 do_nanosleep ksys_read pipe_read; do
		[ "$(hue "$(field "$f" 7 <"$BATS_TEST_TMPDIR/f.tsv")")" = cool ] || { echo "$f is not cool" >&2; return 1; }
	done
	[ "$(hue "$(field - 7 <"$BATS_TEST_TMPDIR/f.tsv")")" = grey ]
	grep -q '>kernel</text>' "$BATS_TEST_TMPDIR/g.svg"
}

@test "flamegraph: bcc -f without delimiter, --guess-kernel, perf's _[k] and [unknown]" {
	# bcc offcputime -f (no -d): kernel frames follow the user frames unmarked
	printf '%s\n' \
		'sshd;[unknown];__libc_read;entry_SYSCALL_64_after_hwframe;do_syscall_64;ksys_read;schedule 700' \
		'kworker/0:1;ret_from_fork_asm;ret_from_fork;kthread;worker_thread;schedule 300' \
		>"$BATS_TEST_TMPDIR/bcc.folded"
	"$BIN/$FG" <"$BATS_TEST_TMPDIR/bcc.folded" >"$BATS_TEST_TMPDIR/plain.svg"
	frames "$BATS_TEST_TMPDIR/plain.svg" >"$BATS_TEST_TMPDIR/plain.tsv"
	[ "$(hue "$(field ksys_read 7 <"$BATS_TEST_TMPDIR/plain.tsv")")" = warm ]
	refute grep -q '>kernel</text>' "$BATS_TEST_TMPDIR/plain.svg"
	"$BIN/$FG" --guess-kernel <"$BATS_TEST_TMPDIR/bcc.folded" >"$BATS_TEST_TMPDIR/guess.svg"
	frames "$BATS_TEST_TMPDIR/guess.svg" >"$BATS_TEST_TMPDIR/guess.tsv"
	for f in entry_SYSCALL_64_after_hwframe ksys_read ret_from_fork_asm kthread worker_thread; do
		[ "$(hue "$(field "$f" 7 <"$BATS_TEST_TMPDIR/guess.tsv")")" = cool ] || { echo "$f is not cool" >&2; return 1; }
	done
	for f in sshd '[unknown]' __libc_read kworker/0:1; do
		[ "$(hue "$(field "$f" 7 <"$BATS_TEST_TMPDIR/guess.tsv")")" = warm ] || { echo "$f is not warm" >&2; return 1; }
	done
	# bcc: no "-" after a missed user stack, the kernel frames follow it
	printf 'cron;[Missed User Stack];entry_SYSCALL_64;do_sys_poll 9\n' | "$BIN/$FG" >"$BATS_TEST_TMPDIR/m.svg"
	[ "$(hue "$(frames "$BATS_TEST_TMPDIR/m.svg" | field do_sys_poll 7)")" = cool ]
	[ "$(hue "$(frames "$BATS_TEST_TMPDIR/m.svg" | field '[Missed User Stack]' 7)")" = grey ]
	# schedule appears under both: kernel in both places
	[ "$(awk -F'\t' '$2 == "schedule"' "$BATS_TEST_TMPDIR/guess.tsv" | wc -l)" -eq 2 ]

	# stackcollapse-perf --kernel: "_[k]" marks kernel frames and is not shown
	printf '%s\n' \
		'java;Interpreter_[j];java.lang.Thread.run()V_[j];write;entry_SYSCALL_64_[k];vfs_write_[k] 40' \
		'perf 5873;[unknown];main;memcpy_[k] 2' >"$BATS_TEST_TMPDIR/perf.folded"
	"$BIN/$FG" <"$BATS_TEST_TMPDIR/perf.folded" >"$BATS_TEST_TMPDIR/perf.svg"
	frames "$BATS_TEST_TMPDIR/perf.svg" >"$BATS_TEST_TMPDIR/perf.tsv"
	refute grep -qF '_[' "$BATS_TEST_TMPDIR/perf.tsv"
	[ "$(hue "$(field vfs_write 7 <"$BATS_TEST_TMPDIR/perf.tsv")")" = cool ]
	[ "$(hue "$(field memcpy 7 <"$BATS_TEST_TMPDIR/perf.tsv")")" = cool ]
	[ "$(hue "$(field 'java.lang.Thread.run()V' 7 <"$BATS_TEST_TMPDIR/perf.tsv")")" = warm ]
	[ "$(field 'perf 5873' 3 <"$BATS_TEST_TMPDIR/perf.tsv")" = 2 ]
}

@test "flamegraph: hostile frame names are escaped" {
	printf '%s\n' \
		'a<b>;<script>alert(1)</script>;x&y &lt 10' \
		$'q"uo\'te;operator<<(std::ostream&, Foo const&);]]> 20' \
		'[unknown];std::vector<int, std::allocator<int> >::push_back(int&&) 30' \
		'--;-;--> <!-- ;&#0 5' >"$BATS_TEST_TMPDIR/h.folded"
	printf 'bad\001ctl;inv\377alid\xc3;snow\xe2\x98\x83man 7\n' >>"$BATS_TEST_TMPDIR/h.folded"
	"$BIN/$FG" --title '<t>&"' --countname '<&>' <"$BATS_TEST_TMPDIR/h.folded" >"$BATS_TEST_TMPDIR/h.svg"
	xmllint --noout "$BATS_TEST_TMPDIR/h.svg"
	frames "$BATS_TEST_TMPDIR/h.svg" >"$BATS_TEST_TMPDIR/h.tsv"
	for n in 'a<b>' '<script>alert(1)</script>' 'x&y &lt' "q\"uo'te" \
		'operator<<(std::ostream&, Foo const&)' ']]>' \
		'std::vector<int, std::allocator<int> >::push_back(int&&)' '--> <!-- ' '&#0' \
		$'bad\xef\xbf\xbdctl' $'inv\xef\xbf\xbdalid\xef\xbf\xbd' $'snow\xe2\x98\x83man'; do
		[ -n "$(field "$n" 3 <"$BATS_TEST_TMPDIR/h.tsv")" ] || { echo "frame '$n' not found" >&2; return 1; }
	done
	# one script element: ours
	[ "$(xmllint --xpath "count(//*[local-name()='script'])" "$BATS_TEST_TMPDIR/h.svg")" = 1 ]
	[ "$(xmllint --xpath "string(//*[@id='title'])" "$BATS_TEST_TMPDIR/h.svg")" = '<t>&"' ]
	grep -qF '<title>x&amp;y &amp;lt (10 &lt;&amp;&gt;, 13.89%)</title>' "$BATS_TEST_TMPDIR/h.svg"
}

@test "flamegraph: --inverted draws an icicle graph" {
	"$BIN/$FG" --inverted <"$(known)" >"$BATS_TEST_TMPDIR/i.svg"
	"$BIN/$FG" <"$(known)" >"$BATS_TEST_TMPDIR/n.svg"
	frames "$BATS_TEST_TMPDIR/i.svg" >"$BATS_TEST_TMPDIR/i.tsv"
	frames "$BATS_TEST_TMPDIR/n.svg" >"$BATS_TEST_TMPDIR/n.tsv"
	# same frames, same widths
	diff <(cut -f1-6 "$BATS_TEST_TMPDIR/i.tsv") <(cut -f1-6 "$BATS_TEST_TMPDIR/n.tsv")
	y() { $PY -c 'import sys, re
svg = open(sys.argv[1]).read()
t = re.escape(sys.argv[2])
print(re.search(r"<title>" + t + r" \(.*?</title><rect x=\"[0-9.]+\" y=\"([0-9.]+)\"", svg).group(1))' "$@"; }
	# icicle: the root at the top, leaves below it; flame: the other way
	[ "$(y "$BATS_TEST_TMPDIR/i.svg" all)" -lt "$(y "$BATS_TEST_TMPDIR/i.svg" do_nanosleep)" ]
	[ "$(y "$BATS_TEST_TMPDIR/n.svg" all)" -gt "$(y "$BATS_TEST_TMPDIR/n.svg" do_nanosleep)" ]
	grep -q '>Icicle Graph</text>' "$BATS_TEST_TMPDIR/i.svg"
	grep -q '>Flame Graph</text>' "$BATS_TEST_TMPDIR/n.svg"
}

@test "flamegraph: --minwidth drops narrow frames and what is on top of them" {
	printf '%s\n' 'a;big 1000000' 'a;tiny;deeper 1' 'a;small 4000' >"$BATS_TEST_TMPDIR/m.folded"
	# default 0.1 px: tiny (0.001 px) goes with deeper; small (4.7 px) stays
	"$BIN/$FG" <"$BATS_TEST_TMPDIR/m.folded" >"$BATS_TEST_TMPDIR/m.svg"
	frames "$BATS_TEST_TMPDIR/m.svg" | cut -f2 | sort | tr '\n' ' ' >"$BATS_TEST_TMPDIR/names"
	[ "$(cat "$BATS_TEST_TMPDIR/names")" = "a all big small " ]
	"$BIN/$FG" --minwidth 0 <"$BATS_TEST_TMPDIR/m.folded" >"$BATS_TEST_TMPDIR/m0.svg"
	[ "$(frames "$BATS_TEST_TMPDIR/m0.svg" | cut -f2 | sort | tr '\n' ' ')" = "a all big deeper small tiny " ]
	# 5 px: small (4.7 px) goes too
	"$BIN/$FG" --minwidth 5 <"$BATS_TEST_TMPDIR/m.folded" >"$BATS_TEST_TMPDIR/m5.svg"
	[ "$(frames "$BATS_TEST_TMPDIR/m5.svg" | cut -f2 | sort | tr '\n' ' ')" = "a all big " ]
	# a percent of the total: 0.3% keeps small (0.4%), 0.5% drops it
	"$BIN/$FG" --minwidth 0.3% <"$BATS_TEST_TMPDIR/m.folded" >"$BATS_TEST_TMPDIR/p.svg"
	[ "$(frames "$BATS_TEST_TMPDIR/p.svg" | cut -f2 | sort | tr '\n' ' ')" = "a all big small " ]
	"$BIN/$FG" --minwidth 0.5% <"$BATS_TEST_TMPDIR/m.folded" >"$BATS_TEST_TMPDIR/p.svg"
	[ "$(frames "$BATS_TEST_TMPDIR/p.svg" | cut -f2 | sort | tr '\n' ' ')" = "a all big " ]
	# the dropped frames still count in their parents
	[ "$(frames "$BATS_TEST_TMPDIR/p.svg" | field a 3)" = 1004001 ]
	# the graph is as high as the deepest frame drawn: one row less
	h0=$(xmllint --xpath 'string(/*/@height)' "$BATS_TEST_TMPDIR/m0.svg")
	h=$(xmllint --xpath 'string(/*/@height)' "$BATS_TEST_TMPDIR/m.svg")
	[ "$((h0 - h))" -eq 16 ]
}

@test "flamegraph: malformed lines are skipped and counted, empty input fails" {
	printf '%s\n' 'a;b 10' 'no count here' 'a;b x12' 'a;;b 3' ';a 3' 'a;b -5' \
		'a;b 99999999999999999999999' 'a;b .5' 'a;b 1.5.' '' '   ' 'a;c	5' >"$BATS_TEST_TMPDIR/bad.folded"
	run "$BIN/$FG" "$BATS_TEST_TMPDIR/bad.folded"
	[ "$status" -eq 0 ]
	# bats merges stderr into output: the warning, then the SVG
	echo "$output" | grep -q "^$FG: warning: 6 malformed lines skipped (first at $BATS_TEST_TMPDIR/bad.folded:2;"
	"$BIN/$FG" "$BATS_TEST_TMPDIR/bad.folded" 2>/dev/null >"$BATS_TEST_TMPDIR/b.svg"
	frames "$BATS_TEST_TMPDIR/b.svg" >"$BATS_TEST_TMPDIR/b.tsv"
	[ "$(field all 3 <"$BATS_TEST_TMPDIR/b.tsv")" = 21 ]
	[ "$(field c 3 <"$BATS_TEST_TMPDIR/b.tsv")" = 5 ]
	# empty frames are kept (a task may set an empty comm): ";a" and "a;;b"
	[ "$(awk -F'\t' '$2 == "" { print $1 ":" $3 }' "$BATS_TEST_TMPDIR/b.tsv" | sort | tr '\n' ' ')" = "1:3 2:3 " ]

	# nothing at all, blank lines only, only malformed lines, only zeros
	expect_fail 1 "no stacks in the input" "$BIN/$FG" /dev/null
	printf '\n\n' >"$BATS_TEST_TMPDIR/blank"
	expect_fail 1 "no stacks in the input" "$BIN/$FG" "$BATS_TEST_TMPDIR/blank"
	printf 'x\ny\n' >"$BATS_TEST_TMPDIR/allbad"
	expect_fail 1 "2 malformed lines skipped" "$BIN/$FG" "$BATS_TEST_TMPDIR/allbad"
	grep -q "no stacks in the input" "$BATS_TEST_TMPDIR/expect.err"
	[ ! -s "$BATS_TEST_TMPDIR/expect.out" ]
	printf 'a;b 0\n' >"$BATS_TEST_TMPDIR/zero"
	expect_fail 1 "every count in the input is 0" "$BIN/$FG" "$BATS_TEST_TMPDIR/zero"
}

@test "flamegraph: random hostile bytes never crash it nor break the XML" {
	$PY - >"$BATS_TEST_TMPDIR/rand.folded" <<-'EOF'
	import random, sys
	r = random.Random(7)
	alpha = [b";", b" ", b"\t", b"-", b"--", b"_[k]", b"_[j]", b"<", b">", b"&", b'"', b"'",
	         b"]]>", b"\x00", b"\x01", b"\xff", b"\xc3", b"\xe2\x98\x83", b"\xed\xa0\x80",
	         b"\xef\xbf\xbf", b"a", b"foo", b"[missed user stack]", b"(", b")", b"0", b"9", b"\r"]
	for i in range(5000):
	    line = b"".join(r.choice(alpha) for _ in range(r.randint(0, 30)))
	    if r.random() < 0.7:
	        line += b" " + str(r.randint(0, 10 ** r.randint(0, 21))).encode()
	    sys.stdout.buffer.write(line + b"\n")
	EOF
	"$BIN/$FG" --minwidth 0 "$BATS_TEST_TMPDIR/rand.folded" >"$BATS_TEST_TMPDIR/rand.svg" 2>"$BATS_TEST_TMPDIR/rand.err"
	grep -Eq "warning: [0-9]+ malformed lines skipped" "$BATS_TEST_TMPDIR/rand.err"
	xmllint --noout "$BATS_TEST_TMPDIR/rand.svg"
	[ "$(frames "$BATS_TEST_TMPDIR/rand.svg" | wc -l)" -gt 100 ]
}

@test "flamegraph: several files and stdin merge; --width sets the width" {
	printf 'a;b 10\n' >"$BATS_TEST_TMPDIR/1.folded"
	printf 'a;b 5\na;c 5\n' >"$BATS_TEST_TMPDIR/2.folded"
	printf 'a;c 20\n' | "$BIN/$FG" "$BATS_TEST_TMPDIR/1.folded" - "$BATS_TEST_TMPDIR/2.folded" >"$BATS_TEST_TMPDIR/m.svg"
	frames "$BATS_TEST_TMPDIR/m.svg" >"$BATS_TEST_TMPDIR/m.tsv"
	[ "$(field b 3 <"$BATS_TEST_TMPDIR/m.tsv")" = 15 ]
	[ "$(field c 3 <"$BATS_TEST_TMPDIR/m.tsv")" = 25 ]
	[ "$(field b 6 <"$BATS_TEST_TMPDIR/m.tsv")" = 442.5 ]

	# --width sets the width: the root spans it less the margins
	"$BIN/$FG" --width 800 "$BATS_TEST_TMPDIR/1.folded" >"$BATS_TEST_TMPDIR/w.svg"
	[ "$(frames "$BATS_TEST_TMPDIR/w.svg" | field all 6)" = 780.0 ]
	[ "$(xmllint --xpath 'string(/*/@width)' "$BATS_TEST_TMPDIR/w.svg")" = 800 ]
}

@test "flamegraph: fractional counts, as flamegraph.pl takes them" {
	printf '%s\n' 'a;b 2.5' 'a;c 1.25' 'a;b 0.5' 'a;d 3.' >"$BATS_TEST_TMPDIR/frac.folded"
	"$BIN/$FG" "$BATS_TEST_TMPDIR/frac.folded" >"$BATS_TEST_TMPDIR/frac.svg" 2>"$BATS_TEST_TMPDIR/frac.err"
	[ ! -s "$BATS_TEST_TMPDIR/frac.err" ]
	frames "$BATS_TEST_TMPDIR/frac.svg" >"$BATS_TEST_TMPDIR/frac.tsv"
	cat "$BATS_TEST_TMPDIR/frac.tsv"
	[ "$(field all 3 <"$BATS_TEST_TMPDIR/frac.tsv")" = 7.25 ]
	[ "$(field b 3 <"$BATS_TEST_TMPDIR/frac.tsv")" = 3 ]
	[ "$(field c 3 <"$BATS_TEST_TMPDIR/frac.tsv")" = 1.25 ]
	[ "$(field d 3 <"$BATS_TEST_TMPDIR/frac.tsv")" = 3 ]
	# widths in proportion: c is 1.25 / 7.25 of 1180 pixels
	[ "$(field c 6 <"$BATS_TEST_TMPDIR/frac.tsv")" = 203.45 ]
}

@test "flamegraph: comment lines; '# countname' names the unit unless --countname does" {
	printf '%s\n' '# countname ms' '# any other comment' 'a;b 10' '#c;d 5' >"$BATS_TEST_TMPDIR/c.folded"
	"$BIN/$FG" "$BATS_TEST_TMPDIR/c.folded" >"$BATS_TEST_TMPDIR/c.svg" 2>"$BATS_TEST_TMPDIR/c.err"
	# a comment is not malformed; a stack whose comm starts with '#' is a stack
	[ ! -s "$BATS_TEST_TMPDIR/c.err" ]
	grep -q '<title>b (10 ms, ' "$BATS_TEST_TMPDIR/c.svg"
	grep -q '<title>#c (5 ms, ' "$BATS_TEST_TMPDIR/c.svg"
	"$BIN/$FG" --countname us "$BATS_TEST_TMPDIR/c.folded" >"$BATS_TEST_TMPDIR/c.svg"
	grep -q '<title>b (10 us, ' "$BATS_TEST_TMPDIR/c.svg"
	# --from/--to need windows
	expect_fail 1 "has no windows" "$BIN/$FG" --from 10:00 "$BATS_TEST_TMPDIR/c.folded"
	expect_fail 2 "invalid time: 'noon'" "$BIN/$FG" --from noon "$BATS_TEST_TMPDIR/c.folded"
}

@test "flamegraph: windows: --from/--to overlap, --folded writes the picked lines" {
	printf '%s\n' '# countname us' \
		'# window 1 2026-01-02T10:00:00.000Z 2026-01-02T10:00:10.000Z' 'p;one 10' \
		'# window 2 2026-01-02T10:00:10.000Z 2026-01-02T10:00:20.000Z' 'p;two 20' \
		'# window 3 2026-01-02T10:00:20.000Z 2026-01-02T10:00:30.000Z' 'p;three 30' >"$BATS_TEST_TMPDIR/w.folded"
	# no pick: all windows summed
	"$BIN/$FG" "$BATS_TEST_TMPDIR/w.folded" >"$BATS_TEST_TMPDIR/w.svg"
	[ "$(frames "$BATS_TEST_TMPDIR/w.svg" | field all 3)" = 60 ]
	# a window is picked when it overlaps [from, to): its own stamps pick it alone
	"$BIN/$FG" --from 2026-01-02T10:00:10.000Z --to 2026-01-02T10:00:20.000Z "$BATS_TEST_TMPDIR/w.folded" >"$BATS_TEST_TMPDIR/w.svg"
	[ "$(frames "$BATS_TEST_TMPDIR/w.svg" | field all 3)" = 20 ]
	"$BIN/$FG" --from 10:00:15 --to 10:00:25 "$BATS_TEST_TMPDIR/w.folded" >"$BATS_TEST_TMPDIR/w.svg"
	[ "$(frames "$BATS_TEST_TMPDIR/w.svg" | field all 3)" = 50 ]
	grep -q 'windows 2026-01-02T10:00:10.000Z to 2026-01-02T10:00:30.000Z' "$BATS_TEST_TMPDIR/w.svg"
	"$BIN/$FG" --from '2026-01-02 10:00:20' "$BATS_TEST_TMPDIR/w.folded" >"$BATS_TEST_TMPDIR/w.svg"
	[ "$(frames "$BATS_TEST_TMPDIR/w.svg" | field all 3)" = 30 ]
	"$BIN/$FG" --to 10:00:10 --folded "$BATS_TEST_TMPDIR/w.folded" >"$BATS_TEST_TMPDIR/w1.folded"
	[ "$(cat "$BATS_TEST_TMPDIR/w1.folded")" = "$(printf '%s\n' '# countname us' \
		'# window 1 2026-01-02T10:00:00.000Z 2026-01-02T10:00:10.000Z' 'p;one 10')" ]
	# to a terminal, raw control bytes in the lines are escaped; to a pipe they pass as they are
	printf 'p;x\033[2J 3\n' >"$BATS_TEST_TMPDIR/esc.folded"
	script -qc "'$BIN/$FG' --folded '$BATS_TEST_TMPDIR/esc.folded'" /dev/null | grep -qF 'p;x\x1b[2J 3'
	"$BIN/$FG" --folded "$BATS_TEST_TMPDIR/esc.folded" | cmp - "$BATS_TEST_TMPDIR/esc.folded"
	"$BIN/$FG" --from 2026-01-02T10:00 --to '2026-01-02 10:00:10Z' "$BATS_TEST_TMPDIR/w.folded" >"$BATS_TEST_TMPDIR/w.svg"
	[ "$(frames "$BATS_TEST_TMPDIR/w.svg" | field all 3)" = 10 ]
	expect_fail 2 "is not before --to" "$BIN/$FG" --from 10:00:20 --to 10:00:10 "$BATS_TEST_TMPDIR/w.folded"
	expect_fail 1 "has no window between 11:00 and 12:00" "$BIN/$FG" --from 11:00 --to 12:00 "$BATS_TEST_TMPDIR/w.folded"
}

@test "flamegraph: --diff on canned profiles: growth red, shrink blue, same neutral, new and gone marked" {
	printf '%s\n' 'p;grow 100' 'p;shrink 300' 'p;same 200' 'p;gone 50' >"$BATS_TEST_TMPDIR/before.folded"
	printf '%s\n' 'p;grow 300' 'p;shrink 100' 'p;same 200' 'p;new 50' >"$BATS_TEST_TMPDIR/after.folded"
	"$BIN/$FG" --diff "$BATS_TEST_TMPDIR/before.folded" "$BATS_TEST_TMPDIR/after.folded" >"$BATS_TEST_TMPDIR/d.svg"
	frames "$BATS_TEST_TMPDIR/d.svg" >"$BATS_TEST_TMPDIR/d.tsv"
	cat "$BATS_TEST_TMPDIR/d.tsv"
	# the largest change is the deepest colour
	[ "$(field grow 7 <"$BATS_TEST_TMPDIR/d.tsv")" = "rgb(255,40,40)" ]
	[ "$(field shrink 7 <"$BATS_TEST_TMPDIR/d.tsv")" = "rgb(40,40,255)" ]
	[ "$(field same 7 <"$BATS_TEST_TMPDIR/d.tsv")" = "rgb(235,235,235)" ]
	[ "$(field new 7 <"$BATS_TEST_TMPDIR/d.tsv")" = "rgb(170,70,220)" ]
	# drawn with after's counts; hover gives both and the delta
	[ "$(field grow 3 <"$BATS_TEST_TMPDIR/d.tsv")" = 300 ]
	grep -q '<title>grow (300 samples, before 100, delta +200 +200.0%, ' "$BATS_TEST_TMPDIR/d.svg"
	grep -q '<title>new (50 samples, before 0, delta +50 only in after, ' "$BATS_TEST_TMPDIR/d.svg"
	grep -q '<text class="gone" [^>]*>p;gone (50 samples)</text>' "$BATS_TEST_TMPDIR/d.svg"
	refute grep -q '<title>gone' "$BATS_TEST_TMPDIR/d.svg"
	# --normalize: before (650) scaled to after's 650 changes nothing here; scaled x2 it does
	printf '%s\n' 'p;grow 200' 'p;shrink 600' 'p;same 400' 'p;gone 100' >"$BATS_TEST_TMPDIR/before2.folded"
	"$BIN/$FG" --diff --normalize "$BATS_TEST_TMPDIR/before2.folded" "$BATS_TEST_TMPDIR/after.folded" >"$BATS_TEST_TMPDIR/n.svg"
	grep -q '<title>same (200 samples, before 200, delta 0 +0.0%, ' "$BATS_TEST_TMPDIR/n.svg"
	grep -q 'before: 1,300 scaled to 650' "$BATS_TEST_TMPDIR/n.svg"
	"$BIN/$FG" --diff "$BATS_TEST_TMPDIR/before2.folded" "$BATS_TEST_TMPDIR/after.folded" >"$BATS_TEST_TMPDIR/n.svg"
	grep -q '<title>same (200 samples, before 400, delta -200 -50.0%, ' "$BATS_TEST_TMPDIR/n.svg"
	xmllint --noout "$BATS_TEST_TMPDIR/d.svg"
	expect_fail 1 "has no stacks with a count above 0" "$BIN/$FG" --diff /dev/null "$BATS_TEST_TMPDIR/after.folded"
}

@test "flamegraph: dstate-lite's delimiters: kernel frames after '-', the waker's after '--', its comm after its '-'" {
	printf '%s\n' 'dwait;main;-;entry_SYSCALL_64;pipe_write;__schedule;--;try_to_wake_up;pipe_read;-;waker 100' \
		>"$BATS_TEST_TMPDIR/ds.folded"
	"$BIN/$FG" "$BATS_TEST_TMPDIR/ds.folded" >"$BATS_TEST_TMPDIR/ds.svg"
	frames "$BATS_TEST_TMPDIR/ds.svg" >"$BATS_TEST_TMPDIR/ds.tsv"
	[ "$(hue "$(field main 7 <"$BATS_TEST_TMPDIR/ds.tsv")")" = warm ]
	[ "$(hue "$(field pipe_write 7 <"$BATS_TEST_TMPDIR/ds.tsv")")" = cool ]
	[ "$(hue "$(field try_to_wake_up 7 <"$BATS_TEST_TMPDIR/ds.tsv")")" = cool ]
	[ "$(hue "$(field pipe_read 7 <"$BATS_TEST_TMPDIR/ds.tsv")")" = cool ]
	[ "$(hue "$(field waker 7 <"$BATS_TEST_TMPDIR/ds.tsv")")" = warm ]
}

@test "flamegraph: the script and the style are files of their own, embedded as they are" {
	local js=$ROOT/tools/flamegraph/flamegraph.js css=$ROOT/tools/flamegraph/flamegraph.css
	command -v node >/dev/null || skip "node is not installed"
	node --check "$js"
	# the style: rules of "selector { property: value; ... }", braces balanced
	$PY - "$css" <<-'EOF'
	import re, sys
	text = re.sub(r"/\*.*?\*/", "", open(sys.argv[1]).read(), flags=re.S)
	rules = re.findall(r"([^{}]+)\{([^{}]*)\}", text)
	assert rules and text.count("{") == text.count("}") == len(rules), "unbalanced braces"
	for sel, body in rules:
	    for decl in filter(None, (d.strip() for d in body.split(";"))):
	        assert re.fullmatch(r"[a-z-]+\s*:\s*[^:;]+", decl), "bad declaration: %r" % decl
	EOF
	# both land in the SVG byte for byte
	"$BIN/$FG" "$(known)" >"$BATS_TEST_TMPDIR/k.svg"
	$PY - "$BATS_TEST_TMPDIR/k.svg" "$js" "$css" <<-'EOF'
	import sys
	svg = open(sys.argv[1]).read()
	for f in sys.argv[2:]:
	    assert open(f).read() in svg, f + " is not in the SVG"
	EOF
}

@test "flamegraph: 20,000 lines and a 3,000-frame stack in a few seconds" {
	awk 'BEGIN { for (i = 0; i < 20000; i++) { k = i % 400; s = "proc" (k % 7);
		for (d = 0; d < 40; d++) s = s ";fn_" d "_" ((k * (d + 1)) % (d + 3)); print s, i % 97 + 1 }
		s = "deep"; for (d = 0; d < 3000; d++) s = s ";recurse_" d; print s, 1000000 }' \
		>"$BATS_TEST_TMPDIR/big.folded"
	# CPU time, not wall-clock: other work on a shared machine does not
	# count against it (it takes about 0.2 s here)
	local TIMEFORMAT=%U+%S cpu
	cpu=$( { time "$BIN/$FG" <"$BATS_TEST_TMPDIR/big.folded" >"$BATS_TEST_TMPDIR/big.svg" 2>"$BATS_TEST_TMPDIR/big.err"; } 2>&1 )
	cpu=$(echo "$cpu" | awk -F+ '{print $1 + $2}')
	echo "CPU ${cpu}s"
	assert_between "CPU seconds for 20,001 lines" "$cpu" 0 5
	# frames are not nested: a deep stack does not hit XML nesting limits
	xmllint --noout "$BATS_TEST_TMPDIR/big.svg"
	frames "$BATS_TEST_TMPDIR/big.svg" >"$BATS_TEST_TMPDIR/big.tsv"
	[ "$(awk -F'\t' '$1 > m { m = $1 } END { print m }' "$BATS_TEST_TMPDIR/big.tsv")" -eq 3001 ]
	[ "$(field recurse_2999 3 <"$BATS_TEST_TMPDIR/big.tsv")" = 1000000 ]
	[ "$(xmllint --xpath 'string(/*/@height)' "$BATS_TEST_TMPDIR/big.svg")" -eq $((60 + 3002 * 16 + 34)) ]
}

@test "flamegraph: renders in headless Chromium (screenshot not blank)" {
	[ -z "$FG_NO_BROWSER" ] || skip "$FG_NO_BROWSER"
	"$BIN/$FG" --countname us <"$(known)" >"$BATS_TEST_TMPDIR/g.svg"
	h=$(xmllint --xpath 'string(/*/@height)' "$BATS_TEST_TMPDIR/g.svg")
	timeout 30 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$BATS_TEST_TMPDIR/profile" --window-size=1200,"$h" \
		--screenshot="$BATS_TEST_TMPDIR/g.png" "file://$BATS_TEST_TMPDIR/g.svg" \
		>"$BATS_TEST_TMPDIR/chromium.log" 2>&1 || { cat "$BATS_TEST_TMPDIR/chromium.log" >&2; return 1; }
	# a blank page has one colour; frames, gradient and text have hundreds
	n=$($CHECK colours "$BATS_TEST_TMPDIR/g.png")
	assert_between "distinct colours" "$n" 50 1000000
	# the root frame's own colour covers its row: 1180 x 15 less its label
	root=$(frames "$BATS_TEST_TMPDIR/g.svg" | field all 7)
	px=$($CHECK colours "$BATS_TEST_TMPDIR/g.png" "$root" | tail -1)
	assert_between "pixels of the root frame's colour" "$px" 12000 17700
}

@test "flamegraph: clicking a frame in Chromium zooms into it" {
	[ -z "$FG_NO_BROWSER" ] || skip "$FG_NO_BROWSER"
	"$BIN/$FG" --countname us <"$(known)" >"$BATS_TEST_TMPDIR/g.svg"
	timeout 40 $CHECK browse "$BATS_TEST_TMPDIR/g.svg" work "$BATS_TEST_TMPDIR/zoom.png" >"$BATS_TEST_TMPDIR/r.json"
	cat "$BATS_TEST_TMPDIR/r.json"
	r=$BATS_TEST_TMPDIR/r.json
	# before: 75% of 1180 px; after the click: the full width
	assert_between "width before" "$(jq .before.width "$r")" 884.9 885.1
	[ "$(jq .after.width "$r")" = 1180 ]
	[ "$(jq .after.x "$r")" = 10 ]
	# its children grew with it: compute 2/3, the kernel part 1/3
	[ "$(jq -r '.after.children | map(.name + "=" + (.width | tostring)) | join(" ")' "$r")" = "-=393.33 compute=786.67" ]
	# the ancestors (all, app, main) stay full width and faded; the rest hidden
	[ "$(jq .after.root_width "$r")" = 1180 ]
	[ "$(jq .after.faded "$r")" = 3 ]
	[ "$(jq .after.hidden "$r")" -ge 3 ]
	[ "$(jq .after.unzoom_shown "$r")" = true ]
	# hover details on the bottom line
	[ "$(jq -r .after.details "$r")" = "Function: work (750,000 us, 75.00%)" ]
	# search highlights the frame and reports its share; unzoom restores
	[ "$(jq .search_lit "$r")" = 1 ]
	[ "$(jq -r .matched "$r")" = "Matched: 75.00%" ]
	assert_between "width after unzoom" "$(jq .unzoomed_width "$r")" 884.9 885.1

	# a frame too narrow for a label (11.7 px) gets one when zoomed
	printf 'a;wide 1000\na;narrow;leaf 10\n' | "$BIN/$FG" >"$BATS_TEST_TMPDIR/n.svg"
	refute grep -q '>narrow<' "$BATS_TEST_TMPDIR/n.svg"
	timeout 40 $CHECK browse "$BATS_TEST_TMPDIR/n.svg" narrow "$BATS_TEST_TMPDIR/n.png" >"$r"
	cat "$r"
	assert_between "narrow width before" "$(jq .before.width "$r")" 11 12.5
	[ "$(jq .after.width "$r")" = 1180 ]
	[ "$(jq -r .after.label "$r")" = narrow ]
	[ "$(jq -r '.after.children | map(.name + "=" + (.width | tostring)) | join(" ")' "$r")" = "leaf=1180" ]
}

@test "flamegraph: a --diff graph in Chromium: hover shows both counts and the delta, zoom works" {
	local r=$BATS_TEST_TMPDIR/r.json
	[ -z "$FG_NO_BROWSER" ] || skip "$FG_NO_BROWSER"
	printf '%s\n' 'p;grow;leaf 100' 'p;shrink 300' 'p;gone 50' >"$BATS_TEST_TMPDIR/b.folded"
	printf '%s\n' 'p;grow;leaf 300' 'p;shrink 100' 'p;new 50' >"$BATS_TEST_TMPDIR/a.folded"
	"$BIN/$FG" --diff --countname us "$BATS_TEST_TMPDIR/b.folded" "$BATS_TEST_TMPDIR/a.folded" >"$BATS_TEST_TMPDIR/d.svg"
	timeout 40 $CHECK browse "$BATS_TEST_TMPDIR/d.svg" grow "$BATS_TEST_TMPDIR/d.png" >"$r"
	cat "$r"
	[ "$(jq -r .after.details "$r")" = "Function: grow (300 us, before 100, delta +200 +200.0%, 66.67%)" ]
	[ "$(jq .after.width "$r")" = 1180 ]
	[ "$(jq -r '.after.children | map(.name) | join(" ")' "$r")" = leaf ]
	# the red, the blue, the purple and the grey of the legend are all on screen
	$CHECK colours "$BATS_TEST_TMPDIR/d.png" 'rgb(255,40,40)' 'rgb(40,40,255)' 'rgb(170,70,220)' >"$BATS_TEST_TMPDIR/c.txt"
	cat "$BATS_TEST_TMPDIR/c.txt"
	[ "$(tail -n +2 "$BATS_TEST_TMPDIR/c.txt" | awk '$1 < 60 {n++} END {print n + 0}')" = 0 ]
}

@test "flamegraph: offcputime-lite -df piped in, end to end" {
	require_root
	make -s -C "$ROOT" --no-print-directory print-tools | grep -qw offcputime-lite ||
		skip "offcputime-lite is not one of the built tools"
	# a sleeper that is off CPU for most of the second
	(for _ in 1 2 3 4 5 6 7 8; do sleep 0.1; done) &
	"$BIN/offcputime-lite" -df 1 >"$BATS_TEST_TMPDIR/off.folded" 2>"$BATS_TEST_TMPDIR/off.err"
	wait
	[ -s "$BATS_TEST_TMPDIR/off.folded" ] || { cat "$BATS_TEST_TMPDIR/off.err" >&2; return 1; }
	# kernel threads have no user stack, so no "-": --guess-kernel finds theirs
	"$BIN/$FG" --countname us --guess-kernel <"$BATS_TEST_TMPDIR/off.folded" >"$BATS_TEST_TMPDIR/off.svg" \
		2>"$BATS_TEST_TMPDIR/fg.err"
	# every line of offcputime-lite's folded output is accepted
	refute grep -q malformed "$BATS_TEST_TMPDIR/fg.err"
	xmllint --noout "$BATS_TEST_TMPDIR/off.svg"
	frames "$BATS_TEST_TMPDIR/off.svg" >"$BATS_TEST_TMPDIR/off.tsv"
	# the root holds every microsecond of the input
	[ "$(field all 3 <"$BATS_TEST_TMPDIR/off.tsv")" = "$(awk '{ s += $NF } END { printf "%.0f\n", s }' "$BATS_TEST_TMPDIR/off.folded")" ]
	# sleep's stack reaches the scheduler, in kernel colours
	awk -F'\t' '$2 == "schedule" || $2 == "__schedule" { print $7 }' "$BATS_TEST_TMPDIR/off.tsv" >"$BATS_TEST_TMPDIR/k"
	[ -s "$BATS_TEST_TMPDIR/k" ]
	while read -r k; do
		[ "$(hue "$k")" = cool ] || { echo "a schedule frame is $k" >&2; return 1; }
	done <"$BATS_TEST_TMPDIR/k"
}

# Is rgb(r,g,b) green (Python's)?
green() {
	echo "$1" | tr -d 'rgb()' | awk -F, '{ exit !($2 > $1 + 40 && $2 > $3 + 40) }'
}

@test "flamegraph: Python frames (--python's and py-spy's NAME (FILE.py:LINE)) coloured apart, and only those" {
	printf '%s\n' \
		'python3.11;_start;main (/srv/app.py:40);read_config (/srv/app.py:12);time_sleep;clock_nanosleep;-;do_nanosleep 700' \
		'python3.11;_find_and_load (<frozen importlib._bootstrap>:1176);operator() (x.cc:12);f (a.py:x);g (app.py:);h app.py:3 300' \
		>"$BATS_TEST_TMPDIR/py.folded"
	"$BIN/$FG" <"$BATS_TEST_TMPDIR/py.folded" >"$BATS_TEST_TMPDIR/py.svg"
	xmllint --noout "$BATS_TEST_TMPDIR/py.svg"
	frames "$BATS_TEST_TMPDIR/py.svg" >"$BATS_TEST_TMPDIR/py.tsv"
	local f
	for f in 'main (/srv/app.py:40)' 'read_config (/srv/app.py:12)' '_find_and_load (<frozen importlib._bootstrap>:1176)'; do
		green "$(field "$f" 7 <"$BATS_TEST_TMPDIR/py.tsv")" || { echo "$f is not green" >&2; return 1; }
	done
	for f in _start time_sleep clock_nanosleep 'operator() (x.cc:12)' 'f (a.py:x)' 'g (app.py:)' 'h app.py:3'; do
		[ "$(hue "$(field "$f" 7 <"$BATS_TEST_TMPDIR/py.tsv")")" = warm ] || { echo "$f is not warm" >&2; return 1; }
	done
	[ "$(hue "$(field do_nanosleep 7 <"$BATS_TEST_TMPDIR/py.tsv")")" = cool ]
	grep -q '>Python</text>' "$BATS_TEST_TMPDIR/py.svg"
	# no Python frame, no Python in the legend
	"$BIN/$FG" <"$(known)" >"$BATS_TEST_TMPDIR/g.svg"
	refute grep -q '>Python</text>' "$BATS_TEST_TMPDIR/g.svg"
}
