# SPDX-License-Identifier: GPL-2.0
# CPU burnt in a class's __init__ (CPython 3.13 runs it in the caller's
# eval call, behind a shim frame). Usage: pyinit.py SECONDS
# GO_FIFO. Prints "ready", waits until the go FIFO is opened (the tool
# attached), then burns for SECONDS.
import sys
import time


class Burn:
    def __init__(self, n):
        x = 0
        for i in range(n):
            x += i * i
        self.x = x


def main():
    secs = float(sys.argv[1])
    print("ready", flush=True)
    with open(sys.argv[2]) as go:
        go.read()
    end = time.monotonic() + secs
    while time.monotonic() < end:
        Burn(20000)


main()
