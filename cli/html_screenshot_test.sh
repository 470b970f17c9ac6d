#!/bin/sh
# The HTML report in real headless Chromium: it renders (a screenshot with more than a few
# colours), and its script fills the drill-down table. Skips (77) where Chromium is missing.
set -eu
dlconform=$1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
if ! command -v chromium >/dev/null 2>&1; then
  echo "SKIP: chromium is not installed (apt-get install chromium)"
  exit 77
fi
"$dlconform" matrix --filter 'planted/*' --quiet --html "$out/report.html"
flags="--headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir=$out/profile --window-size=1400,900"
# shellcheck disable=SC2086
timeout 120 chromium $flags --screenshot="$out/shot.png" "file://$out/report.html" 2>/dev/null
# shellcheck disable=SC2086
timeout 120 chromium $flags --dump-dom "file://$out/report.html" >"$out/dom.html" 2>/dev/null
python3 - "$out/shot.png" "$out/dom.html" <<'PY'
import struct, sys, zlib
png = open(sys.argv[1], "rb").read()
assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
width, height = struct.unpack(">II", png[16:24])
assert (width, height) == (1400, 900), (width, height)
idat = b"".join(png[i + 8:i + 8 + struct.unpack(">I", png[i:i + 4])[0]]
                for i in range(8, len(png)) if png[i + 4:i + 8] == b"IDAT")
raw = zlib.decompress(idat)
colours = len(set(raw[k:k + 3] for k in range(0, min(len(raw), 3_000_000), 7)))
assert colours > 50, f"screenshot looks blank ({colours} distinct samples)"
dom = open(sys.argv[2]).read()
assert dom.count("<tr") >= 16, "the drill-down table was not filled in"
assert "deleter-called-twice" in dom, "planted findings missing from the page"
print(f"ok: {width}x{height}, {colours} distinct samples, drill-down rows present")
PY
