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
check_match "a's push: one line, its own grouping key" \
	"^nbw-results: pushed 1 of 1 nodes \(3 figures in all\) to http://127\.0\.0\.1:$GWP/metrics/job/nbw/instance/\.\.\. in [0-9.]+ s: a group per node, 1 at a time$" \
	"$(cat "$TMPD/push.err")"
NR --db "$B" export --openmetrics --push "http://127.0.0.1:$GWP" --timeout 5 2>"$TMPD/push.err"
check_eq "node b pushed" 0 $?
check_match "b's push" "pushed 1 of 1 nodes" "$(cat "$TMPD/push.err")"

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

# A fleet's sweep of 64 nodes (n1 .. n64; n7's rail 1 slow, n12's drive 1 slow) and
# node a's record in one record, pushed a group per node, 16 at a time: the Pushgateway
# refuses a's (a family of another type under another job: HTTP 400), the 64 others
# land; one line per failure and one summary; exit 1. Each rail figure under its rail
# label (rung "fleet rail"), each node's verdict, the suspects' last-run status 0.
F=$TMPD/f
PYTHONPATH="$abs_top_srcdir/python:$abs_top_srcdir/tests/py" "$PYTHON3" -c '
import sys
from fleetgen import Fleet
Fleet(64, 2, 2, pairs="auto", seed=3, names=["n%d" % i for i in range(1, 65)],
      slow_rails=[("n7", 1, 0.5)], slow_drives=[("n12", 1, 0.5)]).write(sys.argv[1])' "$TMPD/sweep"
NR --db "$F" record "$TMPD/sweep" >/dev/null || fail "record the sweep"
NR --db "$F" record --node-from-name "$TMPD/probe-a.json" >/dev/null || fail "record a's probe"
printf '# TYPE nbw_ceiling_bytes_per_second counter\nnbw_ceiling_bytes_per_second 1\n' >"$TMPD/seed.txt"
gw() { # METHOD PATH [FILE]: one request to the Pushgateway
	"$PYTHON3" -c 'import sys, urllib.request
body = open(sys.argv[3], "rb").read() if len(sys.argv) > 3 else None
urllib.request.urlopen(urllib.request.Request(sys.argv[2], data=body, method=sys.argv[1]), timeout=5)' \
		"$1" "http://127.0.0.1:$GWP$2" "${@:3}"
}
gw DELETE /metrics/job/nbw/instance/a || fail "a's group deleted"
gw PUT /metrics/job/seed "$TMPD/seed.txt" || fail "the seed push"
NR --db "$F" export --openmetrics --push "http://127.0.0.1:$GWP" --push-groups 0 2>"$TMPD/push.err"
check_eq "a failed push: exit 1" 1 $?
check_match "the failure, its own line" \
	"^nbw-results: push of a failed: http://127\.0\.0\.1:$GWP/metrics/job/nbw/instance/a: HTTP 400 .*is not a (GAUGE|COUNTER)" \
	"$(head -n 1 "$TMPD/push.err")"
check_match "then one summary line: the 64 others pushed" \
	"^nbw-results: pushed 64 of 65 nodes \(385 figures in all\) to .* a group per node, 16 at a time; 1 push failed \(above\)$" \
	"$(sed -n 2p "$TMPD/push.err")"
check_eq "two lines in all" 2 "$(wc -l <"$TMPD/push.err")"
for _ in $(seq 80); do
	got=$(query 'count(nbw_node_verdict{job="nbw"} == 1)')
	[ "$got" = "-=64" ] && break
	sleep 0.5
done
check_eq "Prometheus: a verdict for each of the 64 nodes" "-=64" "$got"
check_eq "the suspects: n7 and n12, each under its instance" "n12=1 n7=1" \
	"$(query 'nbw_node_verdict{verdict="suspect"} == 1')"
check_eq "the others pass" "-=62" "$(query 'count(nbw_node_verdict{verdict="pass"} == 1)')"
check_eq "the rail its own label: n7's rail 1, slow" "n7=1" \
	"$(query 'nbw_throughput_bytes_per_second{node="n7",rung="fleet rail",rail="1"} < bool 30e9')"
check_eq "no rail inside a rung" "" "$(query 'nbw_throughput_bytes_per_second{rung=~"fleet rail .*"}')"
check_eq "the suspects' last run: 0 for each rung; the others 1" "n12=0 n7=0 n8=1" \
	"$(query 'min by (instance) (nbw_last_run_ok{node=~"n7|n8|n12",rung!=""})')"

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
