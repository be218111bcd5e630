#!/bin/bash
# make check-slow: nbw-results' HTML report in a real browser (headless Chromium,
# Debian's chromium package). Two recorded ladders (the fixture run, the second one
# slower and with new NIC firmware) -> report.html; the file names nothing outside
# itself; Chromium renders it: the screenshot is not blank and holds the plots'
# colours, the rendered DOM has the tables, decoded images and the verdict, and
# Chromium's own network log shows no request but the file itself. Then nbw-fleet
# judge's page the same way (its suspects, the rail's direction, the heat map).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"
NR_PY="$abs_top_srcdir/scripts/nbw-results"
NR() { "$PYTHON3" "$NR_PY" "$@"; }
CHROMIUM=$(command -v chromium || command -v chromium-browser) ||
	skip "chromium not found (apt-get install chromium)"
command -v gnuplot >/dev/null || skip "gnuplot not found (apt-get install gnuplot-nox)"
export NBW_RESULTS=$TMPD/db

# Two ladders: the fixture, then the same with end to end 20% lower and new firmware.
inv() { # inv FILE FW
	printf '{"tool": "nbw-results inventory", "host": "a", "kernel": {"release": "6.1.0-18-amd64"}, "rdma": {"mlx5_0": {"fw_ver": "%s"}}}\n' "$2" >"$1"
}
L1=$TMPD/l1 L2=$TMPD/l2
cp -r "$FIXTURES/ladder/ref" "$L1"
cp -r "$FIXTURES/ladder/ref" "$L2"
"$PYTHON3" - "$L2/aggregate-a.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["total"]["gb_per_s"] = round(d["total"]["gb_per_s"] * 0.8, 3)
json.dump(d, open(sys.argv[1], "w"))
PY
for L in "$L1" "$L2"; do "$PYTHON3" "$abs_top_srcdir/scripts/ladder_report" "$L" >/dev/null; done
inv "$TMPD/inv1.json" 20.31.1014
inv "$TMPD/inv2.json" 20.35.2000
NR record --start 2026-02-01T10:00:00Z --inventory "$TMPD/inv1.json" "$L1" >/dev/null
NR record --start 2026-02-28T10:00:00Z --inventory "$TMPD/inv2.json" --note "new NIC firmware" "$L2" >/dev/null
NR report --out "$TMPD/report.html" >/dev/null
check_eq "report written" 0 $?
H=$TMPD/report.html
check_eq "the file names nothing outside itself (no http(s), src/href only data: or #)" "" \
	"$(grep -Eoi '(https?|ftp|wss?)://|(src|href|action)="[^d#][^"]*"|<(script|link|iframe|object)|url\(' "$H")"

browse() { # browse ARGS...: headless Chromium on the report, bounded
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
		--disable-background-networking --disable-component-update --disable-sync \
		--no-first-run --no-default-browser-check --user-data-dir="$TMPD/profile" \
		--disable-features=NetworkTimeServiceQuerying --host-resolver-rules="MAP * ~NOTFOUND" \
		--hide-scrollbars --window-size=1200,2400 "$@" "file://$H"
}
browse --screenshot="$TMPD/shot.png" --log-net-log="$TMPD/net.json" >/dev/null 2>"$TMPD/chromium.err"
check_eq "chromium --screenshot: exit status" 0 $?
check_eq "a PNG screenshot" '89504e470d0a1a0a' "$(head -c 8 "$TMPD/shot.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')"
# The screenshot's pixels: the share that is not white, and how many saturated
# colours (the plots' lines and the verdict cells; text and borders are grey).
read -r inked coloured < <("$PYTHON3" - "$TMPD/shot.png" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
pos, idat, w = 8, b"", 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
bpp = {2: 3, 6: 4}[ctype]
raw, stride = zlib.decompress(idat), w * bpp
prev, rows, i = bytearray(stride), [], 0
for _ in range(h):
    f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
    i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b, c = prev[x], prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(line)
    prev = line
inked = coloured = 0
for line in rows:
    for x in range(0, stride, bpp):
        r, g, b = line[x], line[x + 1], line[x + 2]
        inked += (r, g, b) != (255, 255, 255)
        coloured += max(r, g, b) - min(r, g, b) > 60
print("%.4f %d" % (inked / (w * h), coloured))
PY
)
check_match "the screenshot is not blank (over 2% of it inked): $inked" '^0\.(0[2-9]|[1-9])' "$inked"
check_eq "the screenshot has colour (plots, verdict cells): $coloured pixels" 1 "$([ "${coloured:-0}" -gt 2000 ] && echo 1 || echo 0)"

browse --dump-dom >"$TMPD/dom.html" 2>/dev/null
check_eq "rendered DOM: three tables" 3 "$(grep -o '<table>' "$TMPD/dom.html" | wc -l)"
check_eq "rendered DOM: a data: image per rung of the ladder" \
	"$(grep -o 'src="data:image/png;base64,' "$H" | wc -l)" "$(grep -o '<img alt="trend of [^"]*" src="data:image/png;base64,' "$TMPD/dom.html" | wc -l)"
check_match "rendered DOM: the verdict" 'large drop of 20\.0% \(end to end on a\)' "$(cat "$TMPD/dom.html")"
check_match "rendered DOM: the firmware change" 'rdma\.mlx5_0\.fw_ver: (&quot;|")20\.31\.1014(&quot;|") -&gt; (&quot;|")20\.35\.2000(&quot;|")' "$(cat "$TMPD/dom.html")"
# Images decoded: a page script is forbidden by the report's own policy, so ask the
# browser with a copy of the report that has one, allowed, writing the sizes into the DOM.
sed -e "s|default-src 'none';|default-src 'none'; script-src 'unsafe-inline';|" \
	-e 's|</body>|<script>document.body.setAttribute("data-sizes", Array.from(document.images).map(i => i.naturalWidth + "x" + i.naturalHeight).join(","))</script></body>|' \
	"$H" >"$TMPD/probe.html"
H=$TMPD/probe.html browse --dump-dom >"$TMPD/dom2.html" 2>/dev/null
check_match "every image decoded at 800x360" '^(800x360,)*800x360$' "$(grep -o 'data-sizes="[^"]*"' "$TMPD/dom2.html" | cut -d'"' -f2)"
# Chromium's network log: the requests the page started (the browser's own
# background requests have no origin as initiator; the resolver maps every name to
# nothing, so none of them leaves the machine either).
page_requests() { # page_requests NETLOG
	"$PYTHON3" - "$1" <<'PY'
import json, sys
text = open(sys.argv[1]).read().rstrip().rstrip(",")
if not text.endswith("}"):
    text += "]}"
log = json.loads(text)
names = {v: k for k, v in log["constants"]["logEventTypes"].items()}
urls = set()
for e in log["events"]:
    p = e.get("params") or {}
    url = p.get("url")
    if names.get(e["type"]) == "URL_REQUEST_START_JOB" and p.get("initiator") != "not an origin":
        if url and not url.startswith(("file://", "data:")):
            urls.add(url)
print(" ".join(sorted(urls)))
PY
}
check_eq "no request from the page but the file itself" "" "$(page_requests "$TMPD/net.json")"

# nbw-fleet judge's page, in the same browser: a generated fleet of 8 nodes with one
# drive slowed and one port slow as it sends (the lab's --slow-nic): both suspects in
# the rendered table, the rail's direction said, the heat map drawn (SVG and the PNG
# inside the page, decoded), no request but the file.
PYTHONPATH="$abs_top_srcdir/python:$abs_top_srcdir/tests/py" "$PYTHON3" -c '
import sys
from fleetgen import Fleet
Fleet(8, 1, 2, pairs="all", seed=4, slow_drives=[("node006", 1, 0.3)],
      slow_egress=[("node003", 0, 0.05)]).write(sys.argv[1])' "$TMPD/sweep"
"$PYTHON3" "$abs_top_srcdir/scripts/nbw-fleet" judge --html "$TMPD/judge.html" "$TMPD/sweep" >/dev/null
check_eq "nbw-fleet judge --html: written" 0 $?
H=$TMPD/judge.html
check_eq "judge page: names nothing outside itself" "" \
	"$(sed 's|xmlns="http://www.w3.org/2000/svg"||' "$H" | grep -Eoi '(https?|ftp|wss?)://|(src|href|action)="[^d#][^"]*"|<(script|link|iframe|object)|url\(')"
browse --screenshot="$TMPD/judge.png" --log-net-log="$TMPD/jnet.json" >/dev/null 2>"$TMPD/chromium.err"
check_eq "judge page: chromium --screenshot" "0 89504e470d0a1a0a" "$? $(head -c 8 "$TMPD/judge.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')"
browse --dump-dom >"$TMPD/jdom.html" 2>/dev/null
check_eq "judge page, rendered: the two suspects, low" "2" "$(grep -o '<tr class="low">' "$TMPD/jdom.html" | wc -l)"
check_match "judge page, rendered: the slow drive" '<td>drive</td><td>node006</td><td>nvme1n1</td>' "$(cat "$TMPD/jdom.html")"
check_match "judge page, rendered: the rail, low as it sends" \
	'<td>rail</td><td>node003</td><td>rail 0 \(mlx5_0\)</td>.*low as it sends \(node003-&gt;node000, ' "$(cat "$TMPD/jdom.html")"
check_eq "judge page, rendered: the heat map, 28 pairs x 2 cells" 56 "$(grep -o '<rect x=' "$TMPD/jdom.html" | wc -l)"
sed -e "s|default-src 'none';|default-src 'none'; script-src 'unsafe-inline';|" \
	-e 's|</body>|<script>document.body.setAttribute("data-sizes", Array.from(document.images).map(i => i.naturalWidth + "x" + i.naturalHeight).join(","))</script></body>|' \
	"$H" >"$TMPD/jprobe.html"
H=$TMPD/jprobe.html browse --dump-dom >"$TMPD/jdom2.html" 2>/dev/null
check_eq "judge page: the heat map's PNG decoded at 800x800" 800x800 "$(grep -o 'data-sizes="[^"]*"' "$TMPD/jdom2.html" | cut -d'"' -f2)"
check_eq "judge page: no request from the page but the file itself" "" "$(page_requests "$TMPD/jnet.json")"

# The check can fail: a page with an outside image (TEST-NET address, never resolved).
printf '<!DOCTYPE html><html><body><img src="http://198.51.100.7/x.png"></body></html>\n' >"$TMPD/control.html"
H=$TMPD/control.html browse --dump-dom --log-net-log="$TMPD/net2.json" >/dev/null 2>&1
check_eq "control: an outside image is seen in the log" "http://198.51.100.7/x.png" "$(page_requests "$TMPD/net2.json")"
finish
