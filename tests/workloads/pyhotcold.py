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
    # calls of tens of ms: the time each call's measure takes around it
    # (thread_time, the call, the sum; some 10-40 us here), which the
    # samples give to main(), is then a small part of the short one's.
    # With calls of 4 and 1 ms it put cold's measure 3-5% (once 12%) above
    # its samples.
    while time.monotonic() < end:
        for f, n in ((hot, 400000), (cold, 100000)):
            t = time.thread_time()
            f(n)
            spent[f.__name__] += time.thread_time() - t
    for k, v in spent.items():
        print(k, "%.6f" % v, flush=True)


main()
