#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Differential test of strace-lite against strace: the same real commands
# under both, the traces compared line by line after a small, listed
# normalisation. Prints per command the share of strace's lines that
# strace-lite reproduces exactly, and the share of its calls (name, return
# value, errno) that it reproduces.
#   tests/strace-diff.sh [-k] [-v] [NAME...]   (root; NAME from the list below)
#   -k keeps the traces (in $DIFF_DIR if set, else a temporary directory)
#   -v prints strace's lines that strace-lite does not reproduce
# Output: one "NAME lines PCT calls PCT (N strace lines)" row per command.
#
# Normalisation (applied to both traces; nothing else):
#  1. the column strace pads " = " to is dropped (runs of spaces before " = ");
#  2. addresses: hex numbers of 6 or more digits are "0xADDR";
#  3. process ids (the "[pid N]" and "N " prefixes, what clone, fork,
#     vfork, wait4, getpid, gettid, getppid and set_tid_address return,
#     rt_sigreturn's (the interrupted wait4's), wait4's first argument,
#     si_pid, clone3's parent_tid=[N], and futex's value when it is the
#     id of a thread seen before: pthread_join waits on it)
#     are numbered: the traced tasks' (the prefixes, what clone and the
#     like return) in the order of their ids, "PID1", ...; others (a
#     parent's, getppid's) by first appearance, "XPID1", ...;
#  4. "<unfinished ...>" and "<... NAME resumed>" halves are joined into
#     one line (which calls a line of another thread cuts differs from run
#     to run, and between the tracers: strace-lite cuts only calls that
#     block);
#  5. lines are compared as a multiset: concurrent processes interleave
#     differently from run to run;
#  6. bytes that differ from run to run: getrandom's buffer and what a
#     read of /dev/urandom returns, the addresses of /proc/PID/maps
#     lines, clock_gettime's time (sqlite keeps its journal in memory:
#     a journal file's header holds a random nonce), and strace's
#     "/* N vars */" count of execve is kept but the environment's address
#     goes by rule 2.
set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
BIN=${BIN:-$ROOT/build/bin}
KEEP=0 VERBOSE=0
while getopts kv o; do
	case $o in
	k) KEEP=1 ;;
	v) VERBOSE=1 ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
# a directory given in DIFF_DIR is kept, a temporary one unless -k
if [ -n "${DIFF_DIR:-}" ]; then
	DIR=$DIFF_DIR
	KEEP=1
else
	DIR=$(mktemp -d)
fi
mkdir -p "$DIR"
PY=/usr/bin/python3

# The commands: NAME|strace options|command (run by bash -c in $DIR/work).
cmds() {
	cat <<-'EOF'
	ls||ls -la /
	cat||cat /etc/services
	python||/usr/bin/python3 -S -c 'print(sum(range(10)))'
	pipeline|-f|/bin/sh -c 'seq 1 100 | grep 7 | wc -l'
	tcp|-f|/usr/bin/python3 -S -c 'import socket; s = socket.create_connection(("127.0.0.1", PORT)); s.sendall(b"ping\n"); s.recv(16); s.close()'
	tar||tar -cf tree.tar tree
	sqlite||sqlite3 db.sqlite 'pragma journal_mode=memory; create table if not exists t(a); insert into t values (1); insert into t values (2); select count(*) from t;'
	structs|-f|STRUCTS .
	EOF
}

setup() {
	local w=$DIR/work
	rm -rf "$w"
	mkdir -p "$w/tree/a/b"
	for i in 1 2 3; do echo "file $i" >"$w/tree/a/f$i"; done
	echo deep >"$w/tree/a/b/deep"
	rm -f "$w/db.sqlite"
}

# A TCP server on loopback that answers each connection once.
PORT=
start_server() {
	$PY -S -c '
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0)); s.listen(8)
print(s.getsockname()[1], flush=True)
while True:
    c, _ = s.accept(); c.recv(16); c.sendall(b"pong\n"); c.close()
' >"$DIR/port" &
	SERVER=$!
	for _ in $(seq 50); do [ -s "$DIR/port" ] && break; sleep 0.05; done
	PORT=$(cat "$DIR/port")
}

normalise() {	# trace file -> normalised lines
	awk '
	function pidname(p) { if (!(p in pids)) pids[p] = "XPID" (++nother); return pids[p] }
	# pass 1: the traced tasks (the line prefixes, what clone and the like
	# return), numbered in the order of their ids, that is of their
	# creation: the first line of a child can come before or after the
	# clone line of its parent, so the order of appearance differs from
	# run to run
	FNR == NR {
		if (match($0, /^(\[pid +[0-9]+\]|[0-9]+) +/)) {
			p = substr($0, RSTART, RLENGTH); gsub(/[^0-9]/, "", p); task[p] = 1
		}
		if (match($0, /^(\[pid +[0-9]+\] +|[0-9]+ +)?(clone|clone3|fork|vfork|getpid|gettid|set_tid_address)\(.*\) += [0-9]+/)) {
			p = $0; sub(/.* = /, "", p); sub(/[^0-9].*/, "", p); if (p != "") task[p] = 1
		}
		next
	}
	FNR == 1 {
		n = 0
		for (p in task) ids[++n] = p + 0
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && ids[j - 1] > ids[j]; j--) { t = ids[j]; ids[j] = ids[j - 1]; ids[j - 1] = t }
		for (i = 1; i <= n; i++) pids[ids[i] ""] = "PID" i
	}
	{
		line = $0
		if (line ~ /^strace: /) next
		pfx = ""
		if (match(line, /^(\[pid +[0-9]+\]|[0-9]+) +/)) {
			p = substr(line, RSTART, RLENGTH); gsub(/[^0-9]/, "", p)
			pfx = "[pid " pidname(p) "] "
			line = substr(line, RLENGTH + 1)
		}
		key = pfx
		# rule 4: join unfinished/resumed halves per process
		if (line ~ / <unfinished \.\.\.>$/) {
			sub(/ <unfinished \.\.\.>$/, "", line)
			half[key] = line
			next
		}
		if (match(line, /^<\.\.\. [a-z0-9_]+ resumed>/)) {
			rest = substr(line, RLENGTH + 1)
			if (key in half) { line = half[key] rest; delete half[key] }
			else line = rest
		}
		# rule 3: pids returned by clone, fork, vfork, wait4
		if (match(line, /^(clone|clone3|fork|vfork|wait4|getpid|gettid|getppid|set_tid_address|rt_sigreturn)\(.*\) += [0-9]+/)) {
			n = line; sub(/.* = /, "", n); sub(/[^0-9].*/, "", n)
			if (n != "") { pn = pidname(n); sub(/ += [0-9]+/, " = " pn, line) }
		}
		if (match(line, /^wait4\([0-9]+,/)) {
			n = substr(line, 7); sub(/,.*/, "", n)
			line = "wait4(" pidname(n) substr(line, 7 + length(n))
		}
		if (match(line, /parent_tid=\[[0-9]+\]/)) {
			n = substr(line, RSTART + 12, RLENGTH - 13)
			line = substr(line, 1, RSTART + 11) pidname(n) substr(line, RSTART + RLENGTH - 1)
		}
		if (match(line, /^futex\(0x[0-9a-f]+, [A-Z_|]+, [0-9]+,/)) {
			n = substr(line, RSTART, RLENGTH - 1); sub(/.*, /, "", n)
			if (n in pids) sub(/, [0-9]+,/, ", " pids[n] ",", line)
		}
		if (match(line, /si_pid=[0-9]+/)) {
			n = substr(line, RSTART + 7, RLENGTH - 7)
			line = substr(line, 1, RSTART + 6) pidname(n) substr(line, RSTART + RLENGTH)
		}
		# rule 1: the column
		gsub(/ +=/, " =", line)
		# rule 2: addresses
		gsub(/0x[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]+/, "0xADDR", line)
		# rule 6: random bytes: getrandom, a read of /dev/urandom (by the fd its open returned)
		if (line ~ /^getrandom\(/) sub(/^getrandom\("([^"\\]|\\.)*"/, "getrandom(\"RANDOM\"", line)
		if (match(line, /^openat\(AT_FDCWD, "\/dev\/u?random", [^)]*\) = [0-9]+$/)) {
			n = line; sub(/.* = /, "", n); rnd[pfx n] = 1
		}
		if (match(line, /^close\([0-9]+\)/)) { n = substr(line, 7); sub(/\).*/, "", n); delete rnd[pfx n] }
		if (match(line, /^read\([0-9]+, "/)) {
			n = substr(line, 6); sub(/,.*/, "", n)
			if ((pfx n) in rnd) sub(/^read\([0-9]+, "([^"\\]|\\.)*"/, "read(" n ", \"RANDOM\"", line)
		}
		# and the mappings /proc/PID/maps lists (where ASLR put them)
		gsub(/[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]+-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]+ /, "ADDR-ADDR ", line)
		if (line ~ /^clock_gettime\(/) sub(/\{tv_sec=[0-9]+, tv_nsec=[0-9]+\}/, "{TIME}", line)
		print pfx line
	}' "$1" "$1"
}

# calls: name, return value and errno only
calls() {
	sed -E 's/^(\[pid [A-Z0-9]+\] )?([a-z0-9_]+)\(.*\) = (-?[0-9a-zA-Z?]+( [A-Z]+)?).*/\2 = \3/; t; d'
}


share_of() {	# A B: % of A's lines that B has (multiset)
	awk 'FILENAME == ARGV[1] { b[$0]++; next } { n++; if (b[$0] > 0) { b[$0]--; hit++ } }
	     END { if (n) printf "%.1f", 100 * hit / n; else print "100.0" }' "$2" "$1"
}

start_server
trap 'kill $SERVER 2>/dev/null; [ "$KEEP" = 1 ] || rm -rf "$DIR"' EXIT
want=" $* "
while IFS='|' read -r name opts cmd; do
	[ -z "$name" ] && continue
	[ "$#" -gt 0 ] && [ "${want/ $name /}" = "$want" ] && continue
	cmd=${cmd//PORT/$PORT}
	cmd=${cmd//STRUCTS/$ROOT/build/tests/workloads/structs}
	for tool in strace lite; do
		setup
		if [ $tool = strace ]; then
			(cd "$DIR/work" && eval "strace $opts -o ../$name.strace $cmd" >/dev/null 2>&1)
		else
			(cd "$DIR/work" && eval "$BIN/strace-lite $opts -o ../$name.lite $cmd" >/dev/null 2>&1)
		fi
	done
	normalise "$DIR/$name.strace" >"$DIR/$name.strace.n"
	normalise "$DIR/$name.lite" >"$DIR/$name.lite.n"
	calls <"$DIR/$name.strace.n" >"$DIR/$name.strace.c"
	calls <"$DIR/$name.lite.n" >"$DIR/$name.lite.c"
	printf "%-10s lines %5s%%  calls %5s%%  (%d strace lines)\n" "$name" \
		"$(share_of "$DIR/$name.strace.n" "$DIR/$name.lite.n")" \
		"$(share_of "$DIR/$name.strace.c" "$DIR/$name.lite.c")" \
		"$(wc -l <"$DIR/$name.strace.n")"
	if [ "$VERBOSE" = 1 ]; then
		awk 'FILENAME == ARGV[1] { b[$0]++; next } { if (b[$0] > 0) b[$0]--; else print "  - " $0 }' \
			"$DIR/$name.lite.n" "$DIR/$name.strace.n"
	fi
done < <(cmds)
