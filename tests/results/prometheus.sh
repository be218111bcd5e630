#!/bin/bash
# nbw-results export --openmetrics against the real servers (Debian's prometheus and
# prometheus-pushgateway, started here on loopback on free ports with temporary
# directories, about 10 s): two nodes each push their own record (node a: a random read
# and its link's ceiling; node b: a good run, then a failed one) with --push; each push
# lands under its node's grouping key (job nbw, instance NODE), so the second does not
# erase the first; Prometheus scrapes the Pushgateway every second and its query API
# returns both nodes' figures, the ceiling in its own family (never a throughput) and
# each node's last-run status (b: 0, its last run failed, its last good figure still
# there). The textfile form: no timestamps, written whole. Every server started is
# stopped on exit. Skipped (77) without the two packages; a failure in CI (NBW_CI=1).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"

PROM=$(command -v prometheus) PGW=$(command -v prometheus-pushgateway)
if [ -z "$PROM" ] || [ -z "$PGW" ]; then
	why="prometheus or prometheus-pushgateway not installed (Debian: apt-get install prometheus prometheus-pushgateway; scripts/quickstart deps installs them)"
	if [ "${NBW_CI:-0}" = 1 ]; then
		fail "$why"
		finish
		exit 1
	fi
	skip "$why"
fi
PIDS=()
cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$TMPD"
}
trap cleanup EXIT
NR_PY="$abs_top_srcdir/scripts/nbw-results"
NR() { "$PYTHON3" "$NR_PY" "$@"; }
unset NBW_RESULTS NBW_RESULTS_INDEX NBW_RESULTS_TEST_FSTYPE
free_port() { "$PYTHON3" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
GWP=$(free_port) PP=$(free_port)
RAND=$FIXTURES/results/read-rand.json

# Node a's record: a random read and its links' ceilings (the probe of a captured dump,
# filed under the node its file name says).
A=$TMPD/a B=$TMPD/b
"$NVME_LINK_PROBE" --pci-dump "$FIXTURES/pci/gen4_trained_gen3.lspci" --json >"$TMPD/probe-a.json" ||
	fail "nvme_link_probe exited $?"
NR --db "$A" record --node a --start 2026-02-04T10:00:00Z "$RAND" >/dev/null || fail "record a"
NR --db "$A" record --node-from-name "$TMPD/probe-a.json" >/dev/null || fail "record a's probe"
# Node b's: a good run, then one that failed (interrupted).
"$PYTHON3" -c 'import json, sys
d = json.load(open(sys.argv[1])); d["interrupted"] = True; json.dump(d, open(sys.argv[2], "w"))' \
	"$RAND" "$TMPD/failed.json"
NR --db "$B" record --node b --start 2026-02-04T10:00:00Z "$RAND" >/dev/null || fail "record b"
NR --db "$B" record --node b --start 2026-02-05T10:00:00Z "$TMPD/failed.json" >/dev/null ||
	fail "record b's failed run"

# (no persistence file: Debian's default is the system's /var/lib/prometheus)
"$PGW" --web.listen-address="127.0.0.1:$GWP" --persistence.file="" >"$TMPD/pgw.log" 2>&1 &
PIDS+=($!)
cat >"$TMPD/prometheus.yml" <<EOC
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: pushgateway
    honor_labels: true
    static_configs:
      - targets: ["127.0.0.1:$GWP"]
EOC
"$PROM" --config.file="$TMPD/prometheus.yml" --storage.tsdb.path="$TMPD/tsdb" \
	--web.listen-address="127.0.0.1:$PP" >"$TMPD/prom.log" 2>&1 &
PIDS+=($!)

# The pushes, node a's retried while the Pushgateway starts (at most 20 s).
ok=
for _ in $(seq 40); do
	if NR --db "$A" export --openmetrics --push "http://127.0.0.1:$GWP" --timeout 2 \
		2>"$TMPD/push.err"; then
		ok=1
		break
	fi
	sleep 0.5
done
check_eq "node a pushed to the Pushgateway" 1 "${ok:-0:$(cat "$TMPD/push.err")}"
check_match "a's push: its own grouping key" \
	"pushed 3 figures of a to http://127\.0\.0\.1:$GWP/metrics/job/nbw/instance/a \(HTTP 200\)" \
	"$(cat "$TMPD/push.err")"
NR --db "$B" export --openmetrics --push "http://127.0.0.1:$GWP" --timeout 5 2>"$TMPD/push.err"
check_eq "node b pushed" 0 $?
check_match "b's push: its own grouping key" "/metrics/job/nbw/instance/b \(HTTP 200\)" \
	"$(cat "$TMPD/push.err")"

query() {
	"$PYTHON3" - "http://127.0.0.1:$PP/api/v1/query" "$1" <<'PY'
import json, sys, urllib.parse, urllib.request
url = sys.argv[1] + "?" + urllib.parse.urlencode({"query": sys.argv[2]})
try:
    d = json.load(urllib.request.urlopen(url, timeout=2))
    print(" ".join("%s=%s" % (r["metric"].get("instance", "-"), r["value"][1])
                   for r in sorted(d["data"]["result"], key=lambda r: r["metric"].get("instance", ""))))
except Exception:
    pass
PY
}
# Prometheus scrapes every second: both nodes within 40 s.
got=
for _ in $(seq 80); do
	got=$(query 'nbw_io_rate_operations_per_second{drive="",job="nbw"}')
	[ "$got" = "a=19744 b=19744" ] && break
	sleep 0.5
done
check_eq "Prometheus' query API: both nodes' IOPS, each under its instance" "a=19744 b=19744" "$got"
check_eq "the last run's status: a ok, b failed" "a=1 b=0" "$(query 'nbw_last_run_ok{rung="read"}')"
check_eq "b's last good figure stays" "b=80871600" \
	"$(query 'nbw_throughput_bytes_per_second{node="b",drive=""}')"
check_eq "the last run's start: b's failed one" "a=1770199200 b=1770285600" \
	"$(query 'nbw_last_run_timestamp_seconds{rung="read"}')"
check_match "a's link ceiling in its own family" "^a=[0-9.e+]+$" \
	"$(query 'sum by (instance) (nbw_ceiling_bytes_per_second{rung="link"})')"
check_eq "no ceiling under the throughput" "" "$(query 'nbw_throughput_bytes_per_second{rung="link"}')"
[ "$got" = "a=19744 b=19744" ] || tail -n 5 "$TMPD/pgw.log" "$TMPD/prom.log"

# The textfile form: no timestamps (node_exporter's collector refuses them), whole.
NR --db "$B" export --openmetrics "$TMPD/nbw.prom"
check_eq "textfile: written, no temporary left" "nbw.prom" "$(cd "$TMPD" && ls nbw.prom*)"
check_eq "textfile: no sample carries a timestamp" "" \
	"$(grep -v '^#' "$TMPD/nbw.prom" | awk 'NF != 2')"
check_eq "stdout: no timestamps either by default" "" \
	"$(NR --db "$B" export --openmetrics | grep -v '^#' | awk 'NF != 2')"
check_eq "--timestamps yes: the run's start on each figure" 1770199200 \
	"$(NR --db "$B" export --openmetrics --timestamps yes | grep '^nbw_io_rate.*drive=""' | awk '{print $3}')"
finish
