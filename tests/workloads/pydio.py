# SPDX-License-Identifier: GPL-2.0
# A Python function sleeping in D: read_block(), called by main(), reads
# 4 KiB with O_DIRECT (the disk's wait is uninterruptible). Usage:
# pydio.py FILE COUNT GO_FIFO. Prints "ready", waits until the go FIFO is
# opened (the tool attached), then makes COUNT such reads from FILE.
import mmap
import os
import sys


def read_block(fd, buf, off):
    return os.preadv(fd, [buf], off)


def main():
    path, count = sys.argv[1], int(sys.argv[2])
    fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    size = os.fstat(fd).st_size
    buf = mmap.mmap(-1, 4096)
    print("ready", flush=True)
    with open(sys.argv[3]) as go:
        go.read()
    for i in range(count):
        read_block(fd, buf, (i * 4096) % size)


main()
