#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks for flamegraph-lite's SVG, used by flamegraph.bats.

  flamegraph_check.py tree SVG      print the frames (depth, name, count,
                                    percent, x, width, fill), tab-separated,
                                    after checking that the widths add up
  flamegraph_check.py colours PNG [rgb(r,g,b)...]
                                    print the number of distinct colours,
                                    then how many pixels have each colour
  flamegraph_check.py browse SVG NAME PNG
                                    open SVG in headless Chromium over the
                                    DevTools pipe, click the frame NAME with
                                    a real mouse event, search, save a
                                    screenshot, print the results as JSON
Only the standard library: xml.etree, zlib, json, os.
"""
import json
import os
import re
import select
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
import zlib

SVG = "{http://www.w3.org/2000/svg}"
TITLE = re.compile(r"^(.*) \(([0-9,]+(?:\.[0-9]+)?) (.+), ([0-9.]+)%\)$", re.S)


def fail(msg):
    print("flamegraph_check: " + msg, file=sys.stderr)
    sys.exit(1)


def num(s):
    s = s.replace(",", "")
    return float(s) if "." in s else int(s)


def frames(path):
    root = ET.parse(path).getroot()
    script = "".join(s.text or "" for s in root.iter(SVG + "script"))
    m = re.search(r"fh: (\d+)", script)
    if not m:
        fail("no frame height in the script")
    fh = int(m.group(1))
    group = [g for g in root.iter(SVG + "g") if g.get("id") == "frames"]
    if len(group) != 1:
        fail("expected one <g id=\"frames\">")
    out = []
    y0 = None
    for g in group[0]:
        if g.tag != SVG + "g" or g.get("class") not in ("f", "f new"):
            fail("unexpected element in frames: " + g.tag)
        kids = list(g)
        tags = [k.tag for k in kids]
        if tags[:2] != [SVG + "title", SVG + "rect"] or tags[2:] not in ([], [SVG + "text"]):
            fail("a frame is not <title><rect>[<text>]")
        m = TITLE.match(kids[0].text or "")
        if not m:
            fail("bad title: %r" % kids[0].text)
        r = kids[1]
        y = float(r.get("y"))
        if y0 is None:
            y0 = y
        depth = round(abs(y - y0) / fh)
        out.append({
            "depth": depth, "name": m.group(1), "count": num(m.group(2)),
            "unit": m.group(3), "pct": float(m.group(4)), "x": float(r.get("x")),
            "y": y, "width": float(r.get("width")), "fill": r.get("fill"),
            "label": kids[2].text or "" if len(kids) > 2 else "", "children": [],
        })
    if not out:
        fail("no frames")
    # Depth-first order: a frame's parent is the last frame one row nearer the root.
    stack = []
    for f in out:
        d = f["depth"]
        if d > len(stack) or (d == 0 and stack):
            fail("frame %r at depth %d breaks the depth-first order" % (f["name"], d))
        del stack[d:]
        if stack:
            stack[-1]["children"].append(f)
        stack.append(f)
    total = out[0]["count"]
    scale = out[0]["width"] / total
    for f in out:
        kids = f["children"]
        eps = 0.011 * (len(kids) + 1)
        if abs(f["width"] - f["count"] * scale) > eps:
            fail("%r: width %.2f for count %d (scale %f)" % (f["name"], f["width"], f["count"], scale))
        if abs(f["pct"] - 100.0 * f["count"] / total) > 0.006:
            fail("%r: %.2f%% for %d of %d" % (f["name"], f["pct"], f["count"], total))
        if sum(k["count"] for k in kids) > f["count"]:
            fail("%r: children count more than their parent" % f["name"])
        if sum(k["width"] for k in kids) > f["width"] + eps:
            fail("%r: children wider than their parent" % f["name"])
        x = f["x"]
        for k in kids:		# children sit side by side inside their parent
            if k["x"] < x - eps or k["x"] + k["width"] > f["x"] + f["width"] + eps:
                fail("%r: child %r outside it" % (f["name"], k["name"]))
            x = k["x"] + k["width"]
    return out


def cmd_tree(path):
    for f in frames(path):
        print("\t".join(str(f[k]) for k in ("depth", "name", "count", "pct", "x", "width", "fill")))


def png_pixels(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("not a PNG")
    pos, idat, hdr = 8, b"", None
    while pos < len(data):
        n = int.from_bytes(data[pos:pos + 4], "big")
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            hdr = body
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h = int.from_bytes(hdr[0:4], "big"), int.from_bytes(hdr[4:8], "big")
    depth, ctype, interlace = hdr[8], hdr[9], hdr[12]
    if depth != 8 or ctype not in (2, 6) or interlace:
        fail("unsupported PNG (depth %d, colour type %d)" % (depth, ctype))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    rows = []
    for y in range(h):
        ft = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if ft == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xff
        elif ft == 2:
            for i in range(stride):
                line[i] = (line[i] + prev[i]) & 0xff
        elif ft == 3:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((a + prev[i]) >> 1)) & 0xff
        elif ft == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pr) & 0xff
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def cmd_colours(path, wanted):
    w, h, bpp, rows = png_pixels(path)
    seen = {}
    for line in rows:
        for i in range(0, len(line), bpp):
            px = line[i:i + 3]
            seen[px] = seen.get(px, 0) + 1
    print(len(seen))
    for rgb in wanted:		# "rgb(r,g,b)": how many pixels have it
        m = re.match(r"^rgb\((\d+),(\d+),(\d+)\)$", rgb)
        if not m:
            fail("bad colour " + rgb)
        print(seen.get(bytes(int(v) for v in m.groups()), 0))


class Pipe:
    """Chromium's DevTools protocol over --remote-debugging-pipe (fds 3, 4)."""

    def __init__(self, argv, deadline):
        cmd_r, self.cmd_w = os.pipe()
        self.resp_r, resp_w = os.pipe()

        def child():
            os.dup2(cmd_r, 100)
            os.dup2(resp_w, 101)
            os.dup2(100, 3)
            os.dup2(101, 4)

        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, pass_fds=(3, 4), preexec_fn=child)
        os.close(cmd_r)
        os.close(resp_w)
        self.deadline = deadline
        self.buf = b""
        self.next_id = 0

    def call(self, method, session=None, **params):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        os.write(self.cmd_w, json.dumps(msg).encode() + b"\0")
        while True:
            while b"\0" not in self.buf:
                left = self.deadline - time.monotonic()
                if left <= 0 or not select.select([self.resp_r], [], [], left)[0]:
                    fail("timed out waiting for Chromium (%s)" % method)
                chunk = os.read(self.resp_r, 65536)
                if not chunk:
                    fail("Chromium closed the pipe (%s)" % method)
                self.buf += chunk
            raw, self.buf = self.buf.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    fail("%s: %s" % (method, reply["error"]))
                return reply.get("result", {})

    def close(self):
        try:
            self.call("Browser.close")
        except SystemExit:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def cmd_browse(svg, name, png):
    deadline = time.monotonic() + 25
    profile = tempfile.mkdtemp(prefix="fg-chromium.")
    argv = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--user-data-dir=" + profile, "--remote-debugging-pipe",
            "about:blank"]
    b = Pipe(argv, deadline)
    try:
        target = b.call("Target.createTarget", url="about:blank")["targetId"]
        s = b.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        b.call("Emulation.setDeviceMetricsOverride", s, width=1200, height=400,
               deviceScaleFactor=1, mobile=False)
        b.call("Page.navigate", s, url="file://" + os.path.abspath(svg))

        def js(expr):
            r = b.call("Runtime.evaluate", s, expression=expr, returnByValue=True)
            if "exceptionDetails" in r:
                fail("script error: %s" % r["exceptionDetails"])
            return r["result"].get("value")

        while not js("document.readyState === 'complete' && typeof nodes !== 'undefined' "
                     "&& nodes.length > 0"):
            if time.monotonic() > deadline:
                fail("the SVG did not load")
            time.sleep(0.05)
        find = ("nodes.filter(function (f) { return f.name === %s; })[0]" % json.dumps(name))
        before = js("(function () { var f = %s; var b = f.r.getBoundingClientRect();"
                    " return { width: +f.r.getAttribute('width'), cx: b.x + b.width / 2,"
                    " cy: b.y + b.height / 2, n: nodes.length }; })()" % find)
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            b.call("Input.dispatchMouseEvent", s, type=kind, x=before["cx"], y=before["cy"],
                   button="left", clickCount=1)
        after = js("(function () { var f = %s, root = nodes[0], kids = [], hidden = 0,"
                   " faded = 0; nodes.forEach(function (g) {"
                   " if (g.parent === f) kids.push({ name: g.name,"
                   " width: +g.r.getAttribute('width') });"
                   " if (g.g.style.display === 'none') hidden++;"
                   " if (g.g.classList.contains('parent')) faded++; });"
                   " return { width: +f.r.getAttribute('width'), x: +f.r.getAttribute('x'),"
                   " root_width: +root.r.getAttribute('width'), children: kids,"
                   " hidden: hidden, faded: faded, details: details.nodeValue,"
                   " unzoom_shown: !unzoombtn.classList.contains('hide'),"
                   " label: f.t ? f.t.textContent : '' }; })()" % find)
        shot = b.call("Page.captureScreenshot", s, format="png")["data"]
        import base64
        with open(png, "wb") as out:
            out.write(base64.b64decode(shot))
        found = js("search(%s)" % json.dumps("^" + re.escape(name) + "$"))
        lit = js("nodes.filter(function (f) { return f.r.getAttribute('fill') ==="
                 " 'rgb(230,0,230)'; }).length")
        matched = js("matched.nodeValue")
        js("unzoom(); resetSearch()")
        back = js("+(%s).r.getAttribute('width')" % find)
        print(json.dumps({"before": before, "after": after, "search_pct": found,
                          "search_lit": lit, "matched": matched, "unzoomed_width": back}))
    finally:
        b.close()
        subprocess.run(["rm", "-rf", profile])


def main():
    if len(sys.argv) < 3:
        fail("usage: tree SVG | colours PNG | browse SVG NAME PNG")
    cmd = sys.argv[1]
    if cmd == "tree":
        cmd_tree(sys.argv[2])
    elif cmd == "colours":
        cmd_colours(sys.argv[2], sys.argv[3:])
    elif cmd == "browse" and len(sys.argv) == 5:
        cmd_browse(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        fail("unknown command")


if __name__ == "__main__":
    main()
