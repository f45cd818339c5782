# SPDX-License-Identifier: GPL-2.0
# Python code in the shapes a stack reader must follow: a generator under
# its consumer, a C function (sorted) calling back into Python, asyncio
# coroutines under the event loop, a recursion deeper than the tools'
# Python frames, and a second thread waiting on an Event. Usage:
# PYSHAPE=SHAPE pyshapes.py SECONDS GO_FIFO. Prints "ready" and each
# thread's native id ("tid main N", "tid waiter N"), waits until the go
# FIFO is opened (the tool attached), runs SHAPE for SECONDS, then prints
# what it measured: for "threads", each function's time off CPU
# ("nap SECONDS", "waiter SECONDS").
import asyncio
import os
import sys
import threading
import time


def burn(n):
    x = 0
    for i in range(n):
        x += i * i
    return x


# gen: the generator's frame runs under the loop that consumes it; each
# value takes some work, so that resuming it (in 3.11 an eval call
# entered and left each time, its frame linked a few instructions in) is
# a small part of the time
def squares(n):
    for i in range(n):
        x = 0
        for j in range(50):
            x += i * j
        yield x


def consume(n):
    s = 0
    for v in squares(n):
        s += v
    return s


# callback: sorted(), a C function, calls key() for each item
def key(v):
    x = 0
    for i in range(2000):
        x += i * v
    return x


def sort_by_key(n):
    return sorted(range(n), key=key)


# asyncio: work() runs as a task of the event loop
async def work(n):
    x = 0
    for i in range(n):
        x += i * i
    await asyncio.sleep(0)
    return x


async def serve(end):
    while time.monotonic() < end:
        await asyncio.gather(work(20000), work(20000))


# recurse: 100 calls deep, burning at the bottom
def down(depth, n):
    if depth == 0:
        return burn(n)
    return down(depth - 1, n)


# threads: the main thread naps, a second one waits on an Event; each
# function's time off CPU measured within it (from its first line to its
# last), as its wall-clock time less the thread's CPU time: the waits for
# the GIL between two waits are the function's too, and on a slow machine
# its own work is a few % of its wall-clock time
def offcpu():
    return time.monotonic() - time.thread_time()


# threads: the main thread naps, a second one waits on an Event
def waiter(ev, end, spent):
    t = offcpu()
    print("tid waiter", threading.get_native_id(), flush=True)
    while time.monotonic() < end:
        ev.wait(0.030)
    spent["waiter"] += offcpu() - t


def nap(spent):
    t = offcpu()
    time.sleep(0.020)
    spent["nap"] += offcpu() - t


def run(shape, end):
    spent = {}
    if shape == "gen":
        while time.monotonic() < end:
            consume(2000)
    elif shape == "callback":
        while time.monotonic() < end:
            sort_by_key(200)
    elif shape == "asyncio":
        asyncio.run(serve(end))
    elif shape == "recurse":
        while time.monotonic() < end:
            down(100, 100000)
    elif shape == "threads":
        spent = {"nap": 0.0, "waiter": 0.0}
        ev = threading.Event()
        th = threading.Thread(target=waiter, args=(ev, end, spent), name="waiter")
        th.start()
        while time.monotonic() < end:
            nap(spent)
        th.join()
    else:
        sys.exit("pyshapes.py: unknown shape " + shape)
    return spent


def main():
    shape = os.environ.get("PYSHAPE", "gen")
    secs = float(sys.argv[1])
    print("tid main", threading.get_native_id(), flush=True)
    print("ready", flush=True)
    with open(sys.argv[2]) as go:
        go.read()
    spent = run(shape, time.monotonic() + secs)
    for k, v in spent.items():
        print(k, "%.6f" % v, flush=True)


main()
