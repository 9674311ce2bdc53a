#!/usr/bin/env python3
"""Renders `spmdc report --format html` in headless Chromium and checks the page.

usage: report_html_test.py SPMDC_BINARY SOURCE_DIR

The module is tests/lit/report/html.hlo (a 2-D MLP step whose op_names hold `<lambda>`). The
test checks the DOM Chromium builds (--dump-dom, after the page's script ran): the sections, the
tables and their rows, one device grid per sharding with a cell per device, the memory plot with
its peak, escaped names (a `<lambda>` element would mean a name went out unescaped); and a
screenshot (--screenshot) that is not blank: many distinct colours, the diagrams' shard colours
among them. Only the Python standard library (the PNG is decoded here with zlib).

Exit 77 (ctest: skipped) when Chromium is not installed, or 1 under CI=true, where the test
must run (scripts/install-deps.sh installs Debian's chromium).
"""
import html.parser
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

SKIP = 77


def fail(msg):
    print(f"report_html_test: FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def chromium(binary, profile, *args):
    cmd = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
           "--hide-scrollbars", f"--user-data-dir={profile}", *args]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    if r.returncode != 0:
        fail(f"{' '.join(cmd)} exited {r.returncode}:\n{r.stderr[-2000:]}")
    return r.stdout


class Dom(html.parser.HTMLParser):
    """Elements (tag, attrs, parent chain) and the text under each table row."""

    def __init__(self):
        super().__init__()
        self.elements = []  # (tag, attrs dict, tuple of ancestor tags/ids)
        self.stack = []
        self.rows = {}  # table id -> list of row texts (cells joined by '|')
        self._row = None
        self._cell = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.elements.append((tag, a, tuple(self.stack)))
        if tag == "tr":
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []
        self.stack.append(f"{tag}#{a['id']}" if "id" in a else tag)

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            table = next((s.split("#", 1)[1] for s in reversed(self.stack) if s.startswith("table#")), "")
            in_body = any(s == "tbody" for s in self.stack)
            if in_body:
                self.rows.setdefault(table, []).append("|".join(self._row))
            self._row = None
        while self.stack:
            top = self.stack.pop()
            if top.split("#", 1)[0] == tag:
                break

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)

    def find(self, tag, **attrs):
        return [e for e in self.elements if e[0] == tag and all(e[1].get(k) == v for k, v in attrs.items())]


def png_pixels(path):
    """(width, height, rows of RGB tuples) of an 8-bit RGB/RGBA non-interlaced PNG."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail(f"{path} is not a PNG")
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace:
                fail(f"unexpected PNG format depth={depth} colour={colour} interlace={interlace}")
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * channels:x * channels + 3]) for x in range(width)])
        prev = line
    return width, height, rows


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    spmdc, source = sys.argv[1], sys.argv[2]
    browser = find_chromium()
    if browser is None:
        if os.environ.get("CI") == "true":
            fail("chromium is not installed and CI=true: a CI run must run this test "
                 "(scripts/install-deps.sh installs it)")
        print("report_html_test: skipped: chromium is not installed (apt-get install chromium)")
        return SKIP
    module = os.path.join(source, "tests", "lit", "report", "html.hlo")
    with tempfile.TemporaryDirectory(prefix="spmdc-html-") as tmp:
        page = os.path.join(tmp, "report.html")
        r = subprocess.run([spmdc, "report", module, "--num-partitions", "8", "--mesh", "data=2,model=4",
                            "--format", "html", "-o", page], capture_output=True, text=True)
        if r.returncode != 0:
            fail(f"spmdc report exited {r.returncode}: {r.stderr}")
        raw = open(page, encoding="utf-8").read()
        if "<lambda>" in raw:
            fail("an op_name went into the page unescaped")

        dom_text = chromium(browser, os.path.join(tmp, "profile"), "--dump-dom", "file://" + page)
        dom = Dom()
        dom.feed(dom_text)
        for section in ("summary", "sharding", "memory", "collectives", "layers", "opcodes", "warnings"):
            if not dom.find("section", id=section):
                fail(f"no <section id={section}> in the rendered DOM")
        if dom.find("lambda"):
            fail("the DOM has a <lambda> element: an op_name was not escaped")
        html_el = dom.find("html")
        if not html_el or html_el[0][1].get("data-sortable-tables") != "5":
            fail(f"the page's script did not run to its end (html attrs {html_el[0][1] if html_el else None})")
        # One grid per distinct sharding: x and y ([data, None]), w1 ([None, model]), w2 and
        # dw2 ([model, None]), and the hidden activations ([data, model]); 8 cells each.
        grids = [e for e in dom.find("svg") if e[1].get("class") == "grid"]
        cells = [e for e in dom.find("rect") if any(s == "svg" for s in e[2]) and not any("memory-plot" in s for s in e[2])]
        if len(grids) < 4:
            fail(f"expected at least 4 device grids, found {len(grids)}")
        if len(cells) != 8 * len(grids):
            fail(f"expected 8 cells per grid ({8 * len(grids)}), found {len(cells)}")
        if not dom.find("svg", id="memory-plot") or not dom.find("polyline", id="memory-curve") or \
                not dom.find("circle", id="memory-peak"):
            fail("the memory plot, its curve or its peak marker is missing")
        by_kind = dom.rows.get("collectives-by-kind", [])
        if not any(r.split("|")[0] == "all-reduce" and r.split("|")[4] == "model" for r in by_kind):
            fail(f"no all-reduce over model in the collectives table: {by_kind}")
        every = dom.rows.get("collectives", [])
        if not any("jit(train)/jvp(<lambda>)/dot_general|train.py:13" in r for r in every):
            fail(f"no collective carries its op_name and source line: {every}")
        if not dom.rows.get("live-at-peak"):
            fail("the table of values live at the peak is empty")
        if not any(r.startswith("jit(train)/jvp(<lambda>)|") for r in dom.rows.get("layer-table", [])):
            fail(f"the per-layer table lacks the layer: {dom.rows.get('layer-table')}")

        shot = os.path.join(tmp, "report.png")
        chromium(browser, os.path.join(tmp, "profile"), f"--screenshot={shot}", "--window-size=1280,1600",
                 "file://" + page)
        width, height, rows = png_pixels(shot)
        colours = {}
        for y in range(0, height, 2):
            for x in range(0, width, 2):
                p = rows[y][x]
                colours[p] = colours.get(p, 0) + 1
        sampled = sum(colours.values())
        white = colours.get((255, 255, 255), 0)
        distinct = len(colours)
        # The diagrams' first two shard colours (Tableau blue and orange), allowing for colour
        # management shifting a channel by a few units.
        def near(rgb):
            return sum(n for p, n in colours.items() if all(abs(p[i] - rgb[i]) <= 6 for i in range(3)))
        blue, orange = near((0x4e, 0x79, 0xa7)), near((0xf2, 0x8e, 0x2b))
        print(f"report_html_test: screenshot {width}x{height}: {distinct} distinct colours, "
              f"{100.0 * white / sampled:.1f}% white, shard blue {blue} px, orange {orange} px (sampled every 2nd)")
        if distinct < 50 or white > 0.97 * sampled:
            fail("the screenshot is blank or nearly so")
        if blue < 50 or orange < 50:
            fail("the device grids' shard colours are not on the screenshot")
    print("report_html_test: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
