# SPDX-License-Identifier: GPL-2.0
# Two functions waiting off CPU 4:1 (the hot/cold example, off CPU). Usage:
# pywait.py SECONDS GO_FIFO. Prints "ready", waits until the go FIFO is
# opened (the tool attached), then for SECONDS calls read_config(), which
# sleeps 40 ms, and handle(), which waits 10 ms for a pipe that stays
# empty; then prints each one's wall-clock time as "read_config SECONDS"
# and "handle SECONDS".
import os
import select
import sys
import time


def read_config():
    time.sleep(0.040)


def handle(fd):
    select.select([fd], [], [], 0.010)


def main():
    secs = float(sys.argv[1])
    spent = {"read_config": 0.0, "handle": 0.0}
    rfd, wfd = os.pipe()
    print("ready", flush=True)
    with open(sys.argv[2]) as go:
        go.read()
    end = time.monotonic() + secs
    while time.monotonic() < end:
        t = time.monotonic()
        read_config()
        spent["read_config"] += time.monotonic() - t
        t = time.monotonic()
        handle(rfd)
        spent["handle"] += time.monotonic() - t
    for k, v in spent.items():
        print(k, "%.6f" % v, flush=True)


main()
