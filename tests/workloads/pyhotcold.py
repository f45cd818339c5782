# SPDX-License-Identifier: GPL-2.0
# Two functions burning CPU 4:1 (the hot/cold example in Python). Usage:
# pyhotcold.py SECONDS GO_FIFO. Prints "ready", waits until the go FIFO
# is opened (the tool attached), burns for SECONDS, then prints each
# function's CPU time (the thread's CPU clock) as "hot SECONDS" and
# "cold SECONDS".
import sys
import time


def hot(n):
    x = 0
    for i in range(n):
        x += i * i
    return x


def cold(n):
    x = 0
    for i in range(n):
        x += i * i
    return x


def main():
    secs = float(sys.argv[1])
    spent = {"hot": 0.0, "cold": 0.0}
    print("ready", flush=True)
    with open(sys.argv[2]) as go:
        go.read()
    end = time.monotonic() + secs
    while time.monotonic() < end:
        for f, n in ((hot, 40000), (cold, 10000)):
            t = time.thread_time()
            f(n)
            spent[f.__name__] += time.thread_time() - t
    for k, v in spent.items():
        print(k, "%.6f" % v, flush=True)


main()
