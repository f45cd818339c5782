#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# strace-lite -y: fd paths known from the traced calls, right when an fd
# number is reused, beside strace -y on the same commands.

load helpers
bats_require_minimum_version 1.5.0

setup() {
	require_root
	W=$BATS_TEST_TMPDIR/w
	mkdir -p "$W"
}

# The lines of a trace with a path in them, as a sorted multiset: the pid
# prefix, strace's column and addresses aside, inode numbers named by
# first appearance ("pipe:[INO1]": both ends of a pipe share one).
path_lines() {
	sed -E 's/^([0-9]+|\[pid +[0-9]+\]) +//; s/ +=/ =/; s/0x[0-9a-f]{6,}/ADDR/g' "$1" | awk '{
		while (match($0, /:\[[0-9]+\]/)) {
			k = substr($0, RSTART + 2, RLENGTH - 3)
			if (!(k in ino)) ino[k] = "INO" (++n)
			$0 = substr($0, 1, RSTART) "[" ino[k] "]" substr($0, RSTART + RLENGTH)
		}
		print
	}' | grep '<' | sort
}

# same_paths STRACE_ARGS... -- COMMAND...: both tools' path lines identical.
# The command's stdio is the same files under both (they are named too).
same_paths() {
	local a=$BATS_TEST_TMPDIR/strace.txt b=$BATS_TEST_TMPDIR/lite.txt opts=() rc=0
	local err=$BATS_TEST_TMPDIR/err

	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	rm -f "$W"/*.txt
	"$BIN/strace-lite" "${opts[@]}" -o "$b" "$@" </dev/null >/dev/null 2>"$err" || rc=$?
	cat "$err"
	[ "$rc" = 0 ]
	LITE=$b
	command -v strace >/dev/null || skip "no strace"
	rm -f "$W"/*.txt
	strace "${opts[@]}" -o "$a" "$@" </dev/null >/dev/null 2>"$err"
	diff <(path_lines "$a") <(path_lines "$b")
	[ "$(path_lines "$a" | wc -l)" -gt 20 ]
}

FD_CALLS=openat,close,dup2,fcntl,pipe2,socket,socketpair,read,write,close_range,chdir,execve,sendto,recvfrom

# bats test_tags=vm
@test "strace -y: a reused fd number is named by the call that made it, as strace names it" {
	# no hash seed to draw: early in a guest's boot getrandom() is not
	# ready and Python reads /dev/urandom in one run and not the other
	export PYTHONHASHSEED=0
	same_paths -f -y -e trace=$FD_CALLS -- /usr/bin/python3 -S "$BATS_TEST_DIRNAME/strace_fds.py" "$W"
	cat "$LITE"
	local l
	l=$(sed -E 's/^[0-9]+ +//; s/ +=/ =/' "$LITE")
	# /dev/null on a number, then a file on the same number
	grep -Eq '^openat\(AT_FDCWD<[^>]*>, "/dev/null", O_RDWR\|O_CLOEXEC\) = ([0-9]+)</dev/null>$' <<<"$l"
	grep -Eq '^close\([0-9]+</dev/null>\) = 0$' <<<"$l"
	grep -Fq "dup2(" <<<"$l"
	grep -Eq "^dup2\([0-9]+<$W/a.txt>, 7\) = 7<$W/a.txt>$" <<<"$l"
	grep -Eq '^pipe2\(\[([0-9]+)<pipe:\[([0-9]+)\]>, [0-9]+<pipe:\[\2\]>\], O_CLOEXEC\) = 0$' <<<"$l"
	grep -Eq '^socketpair\(AF_UNIX, SOCK_STREAM\|SOCK_CLOEXEC, 0, \[[0-9]+<socket:\[[0-9]+\]>, [0-9]+<socket:\[[0-9]+\]>\]\) = 0$' <<<"$l"
	grep -Eq "^openat\([0-9]+<$W>, \"b.txt\", O_WRONLY\|O_CREAT\|O_CLOEXEC, 0644\) = [0-9]+<$W/b.txt>$" <<<"$l"
	grep -Eq "^fcntl\([0-9]+<$W/a.txt>, F_DUPFD, 20\) = 20<$W/a.txt>$" <<<"$l"
	grep -Eq '^write\([0-9]+<anon_inode:\[eventfd\]>, ' <<<"$l"
	# the child's copy of the table, and after the execve: the close-on-exec
	# eventfd is gone, the inherited fd 7 stays
	[ "$(grep -Ec "^write\(7<$W/a.txt>, \"c\", 1\) = 1$" <<<"$l")" = 1 ]
	grep -Eq '^close\([0-9]+\) = -1 EBADF ' <<<"$l"
	[ "$(grep -Ec "^write\(7<$W/a.txt>, \"i\", 1\) = 1$" <<<"$l")" = 1 ]
}

@test "strace -y: fds are followed through calls -e trace= does not show" {
	export PYTHONHASHSEED=0	# as above
	same_paths -f -y -e trace=read,write,close -- /usr/bin/python3 -S "$BATS_TEST_DIRNAME/strace_fds.py" "$W"
	grep -Eq '^[0-9]+ +write\([0-9]+<pipe:\[[0-9]+\]>, "z", 1\) += 1$' "$LITE"
	grep -Eq '^[0-9]+ +close\([0-9]+<anon_inode:\[eventpoll\]>\) += 0$' "$LITE"
	run ! grep -Eq '^[0-9]+ +(openat|pipe2|dup2)\(' "$LITE"
}

git_repo() {
	command -v git >/dev/null || skip "no git"
	cd "$W"
	git init -q
	for i in 1 2 3 4; do
		echo "$i" >"f$i"
		git add "f$i"
		git -c user.email=t@t -c user.name=t commit -qm "c$i"
	done
}

@test "strace -y: git log -3 --stat, whole and with -e trace=openat,close, as strace names its fds" {
	git_repo
	same_paths -f -y -e trace=openat,close -- git --no-pager log -3 --stat
	# git's /dev/null, closed before its next open takes the number
	grep -Eq '^[0-9]+ +openat\(AT_FDCWD<[^>]*>, "/dev/null", O_RDWR\) += [0-9]+</dev/null>$' "$LITE"
	same_paths -f -y -- git --no-pager log -3 --stat
}
