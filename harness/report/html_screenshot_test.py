#!/usr/bin/env python3
"""html_screenshot_test.py REPORT_SAMPLE: the HTML report in a real headless Chromium.

1. A 1400x900 screenshot (the first screen a reader sees) is not blank, and shows the grid
   colours: red for the planted unexpected results, green and amber cells.
2. --dump-dom after the page's script ran: the drill-down table holds the unexpected cases, and a
   deep link (#cell=raw/v1.3/v0.6, what clicking that cell writes) lists exactly that cell's cases.
Skips (exit 77) where Chromium is missing. Set REPORT_SCREENSHOT_DIR to keep the page, the
screenshot and the dumps for a person to look at.
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

SKIP = 77
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1400,900"]


def chromium(binary, args, profile):
    result = subprocess.run([binary] + FLAGS + ["--user-data-dir=" + profile] + args,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    if result.returncode != 0:
        sys.stderr.write(result.stderr.decode(errors="replace")[-2000:])
        raise SystemExit(f"chromium exited with {result.returncode}")
    return result.stdout.decode("utf-8")


def png_pixels(path):
    """(width, height, rows of RGB tuples) of an 8-bit RGB or RGBA PNG, with no imaging library."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0, f"unexpected PNG format {header}"
    channels = 3 if colour == 2 else 4
    raw, stride = zlib.decompress(idat), width * channels
    previous, rows = bytearray(stride), []
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                best = left if pa <= pb and pa <= pc else (up if pb <= pc else corner)
                line[i] = (line[i] + best) & 0xFF
        rows.append([tuple(line[x:x + 3]) for x in range(0, stride, channels)])
        previous = line
    return width, height, rows


def near(pixel, rgb, tolerance=6):
    return all(abs(a - b) <= tolerance for a, b in zip(pixel, rgb))


def main():
    binary = shutil.which("chromium") or ("/usr/bin/chromium"
                                          if os.access("/usr/bin/chromium", os.X_OK) else None)
    if binary is None:
        print("SKIP: chromium is not installed (apt-get install chromium); the HTML report was "
              "not rendered")
        return SKIP
    failures = []

    def check(condition, message):
        if not condition:
            failures.append(message)
            print("FAIL: " + message)

    with tempfile.TemporaryDirectory() as work:
        subprocess.run([sys.argv[1], work], check=True)
        page = "file://" + work + "/sample.html"
        cases = json.load(open(work + "/sample.json"))["cases"]

        shot = work + "/screenshot.png"
        chromium(binary, ["--screenshot=" + shot, page], work + "/profile1")
        width, height, rows = png_pixels(shot)
        check((width, height) == (1400, 900), f"screenshot is {width}x{height}, not 1400x900")
        pixels = [p for row in rows[::2] for p in row[::2]]
        colours = len(set(pixels))
        check(colours > 50, f"screenshot looks blank: {colours} distinct colours")
        counts = {name: sum(near(p, rgb) for p in pixels) for name, rgb in
                  {"red (unexpected)": (0xE5, 0x48, 0x4D), "green (pass)": (0xA6, 0xDB, 0xB0),
                   "amber (expected broken)": (0xFB, 0xC6, 0x58)}.items()}
        for name, n in counts.items():
            check(n > 200, f"first screen shows almost no {name}: {n} sampled pixels")

        # The default drill-down: every unexpected case, in a filled table.
        dom = chromium(binary, ["--dump-dom", page], work + "/profile2")
        body = re.search(r'<tbody id="rows">(.*?)</tbody>', dom, re.S)
        listed = re.findall(r'<tr class="o-([a-z-]+)"><td class="id">([^<]*)</td>',
                            body.group(1) if body else "")
        unexpected = [c["id"] for c in cases
                      if not c["known"] and not c["as_expected"]]
        check([i for _, i in listed] == unexpected,
              f"drill-down shows {len(listed)} rows, expected the {len(unexpected)} unexpected")
        check(all(o == "unexpected" for o, _ in listed), "drill-down rows carry their outcome")
        check("last output: \\x01\\x02 bad utf-8 \ufffd\ufffd" in dom,
              "control characters in a detail show as \\xNN, invalid UTF-8 as U+FFFD")
        check("<b>bold</b>" not in dom and "&lt;b&gt;bold&lt;/b&gt;" in dom,
              "markup in a detail is shown as text")

        # A deep link to one cell lists exactly its cases.
        in_cell = [c["id"] for c in cases if c["scenario"] == "raw" and
                   c["producer"]["header"] == "v1.3" and c["consumer"]["header"] == "v0.6"]
        dom = chromium(binary, ["--dump-dom", page + "#cell=raw/v1.3/v0.6"], work + "/profile3")
        body = re.search(r'<tbody id="rows">(.*?)</tbody>', dom, re.S)
        listed = re.findall(r'<td class="id">([^<]*)</td>', body.group(1) if body else "")
        check(in_cell and listed == in_cell,
              f"#cell=raw/v1.3/v0.6 lists {len(listed)} cases, expected {len(in_cell)}")
        check("v1.3 → v0.6 (raw)" in dom, "the cell chip names the open cell")
        check('class="c expected-broken sel"' in dom, "the open cell is highlighted")

        keep = os.environ.get("REPORT_SCREENSHOT_DIR")
        if keep:
            os.makedirs(keep, exist_ok=True)
            for name in ("sample.html", "screenshot.png"):
                shutil.copy(os.path.join(work, name), keep)
            open(os.path.join(keep, "cell-dom.html"), "w").write(dom)

    if failures:
        print(f"{len(failures)} checks failed")
        return 1
    print(f"ok: {width}x{height}, {colours} colours, {counts}; drill-down and deep link filled")
    return 0


if __name__ == "__main__":
    sys.exit(main())
