#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# A workload that reuses fd numbers, for strace-lite -y beside strace -y
# (strace_fds.bats): /dev/null opened and closed, a file opened on the same
# number, dup2, fcntl(F_DUPFD), a pipe, sockets, openat on a directory fd,
# chdir, an eventfd, a forked child, close_range, and an execve of itself
# that loses the close-on-exec fds and keeps an inherited one.
#   strace_fds.py DIR
import fcntl, os, socket, sys
d = sys.argv[1]
if len(sys.argv) > 3:	# after the exec: a close-on-exec fd is gone, an inherited one stays
	try:
		os.close(int(sys.argv[2]))
	except OSError:
		pass
	os.write(int(sys.argv[3]), b"i")
	sys.exit(0)
fd = os.open("/dev/null", os.O_RDWR)
os.close(fd)
fd = os.open(d + "/a.txt", os.O_WRONLY | os.O_CREAT, 0o644)	# the same number
os.write(fd, b"x")
os.dup2(fd, 7)
os.write(7, b"y")
os.close(fd)
r, w = os.pipe()
os.write(w, b"z")
os.read(r, 1)
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.close()
a, b = socket.socketpair()
a.send(b"p")
b.recv(1)
a.close()
b.close()
dfd = os.open(d, os.O_RDONLY | os.O_DIRECTORY)
f2 = os.open("b.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=dfd)
os.write(f2, b"q")
os.close(f2)
os.chdir(d)
f3 = os.open("a.txt", os.O_RDONLY)
os.read(f3, 1)
f4 = fcntl.fcntl(f3, fcntl.F_DUPFD, 20)
os.read(f4, 1)
e = os.eventfd(0)
os.write(e, (1).to_bytes(8, "little"))
pid = os.fork()
if pid == 0:
	os.write(7, b"c")
	os._exit(0)
os.waitpid(pid, 0)
os.close(f3)
os.closerange(f4, f4 + 10)
os.set_inheritable(7, True)
os.execv(sys.executable, [sys.executable, "-S", sys.argv[0], d, str(e), "7"])
