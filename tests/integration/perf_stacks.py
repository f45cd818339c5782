#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# Compare profile-lite's user stacks (its --json records) with perf's DWARF
# unwinding of the same process (perf script output), frame by frame.
#   perf_stacks.py PERF_SCRIPT_TXT PROFILE_JSON PID
# Frames are named as profile-lite names them: a symbol, or
# "file+0xOFFSET". perf names a caller by its return address - 1 and ours
# by the return address itself; perf calls glibc's __libc_start_main by its
# local name __libc_start_main_impl. Prints, as JSON: the share of our
# samples whose caller chain (every frame but the leaf) perf also saw, and
# both tools' deepest stack.
import json
import os
import sys

ALIAS = {"__libc_start_main_impl": "__libc_start_main"}


def perf_samples(path):
    """perf script's samples, each its user frames leaf first, as
    (address, symbol, dso, inlined); kernel frames left out."""
    stacks, cur = [], None
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip():
                if cur:
                    stacks.append(cur)
                cur = None
                continue
            if not line[0].isspace():
                cur = []
                continue
            parts = line.split(None, 1)
            if cur is None or len(parts) < 2:
                continue
            addr, rest = int(parts[0], 16), parts[1]
            dso = rest[rest.rfind("(") + 1:rest.rfind(")")]
            inlined = rest.endswith("(inlined)")
            if inlined:
                rest = rest[:-len("(inlined)")].strip()
            if "kernel.kallsyms" in dso or addr >= 0xffff800000000000:
                continue
            cur.append((addr, rest.split(" (")[0].strip(), dso, inlined))
    if cur:
        stacks.append(cur)
    return stacks


def perf_stacks(path):
    out = []
    for s in perf_samples(path):
        names = []
        for i, (addr, sym, dso, inlined) in enumerate(s):
            if sym != "[unknown]":
                # an inlined frame has the function's own symbol
                name = sym.split("+")[0]
                names.append(ALIAS.get(name, name))
            else:
                names.append("%s+0x%x" % (os.path.basename(dso), addr + (1 if i else 0)))
        out.append(names)
    return out


def ours(path, pid):
    res = []
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            if r.get("type") == "stack" and r.get("pid") == pid:
                res.append((r.get("user_stack", []), r["samples"]))
    return res


def main():
    perf = perf_stacks(sys.argv[1])
    mine = ours(sys.argv[2], int(sys.argv[3]))
    chains = {tuple(s[1:]) for s in perf}
    total = sum(n for _, n in mine)
    seen = sum(n for s, n in mine if tuple(s[1:]) in chains)
    print(json.dumps({
        "perf_samples": len(perf),
        "our_samples": total,
        "callers_seen_by_perf": seen / total if total else 0,
        "perf_max_depth": max((len(s) for s in perf), default=0),
        "our_max_depth": max((len(s) for s, _ in mine), default=0),
        "perf_deepest": max(perf, key=len, default=[]),
        "our_deepest": max((s for s, _ in mine), key=len, default=[]),
    }))


if __name__ == "__main__":
    main()
