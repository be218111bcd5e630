#!/bin/bash
# make check-slow: nbw-results export --openmetrics --push against a real Prometheus
# (Debian's prometheus and prometheus-pushgateway, on loopback, at most about 60 s):
# the Pushgateway takes the push, Prometheus scrapes it, and its query API returns the
# IOPS and the p99 latency that were recorded. Skipped (77) without the two packages.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"

PROM=$(command -v prometheus) PGW=$(command -v prometheus-pushgateway)
if [ -z "$PROM" ] || [ -z "$PGW" ]; then
	echo "prometheus or prometheus-pushgateway not installed (Debian: apt-get install prometheus prometheus-pushgateway): skipped"
	exit 77
fi
TMPD=$(mktemp -d)
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
export NBW_RESULTS=$TMPD/db
free_port() { "$PYTHON3" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
GWP=$(free_port) PP=$(free_port)

NR record --node r --start 2026-02-04T10:00:00Z "$FIXTURES/results/read-rand.json" >/dev/null
"$PGW" --web.listen-address="127.0.0.1:$GWP" >"$TMPD/pgw.log" 2>&1 &
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

# The push, retried while the Pushgateway starts (at most 20 s).
ok=
for _ in $(seq 40); do
	if NR export --openmetrics --push "http://127.0.0.1:$GWP" --timeout 2 2>"$TMPD/push.err"; then ok=1; break; fi
	sleep 0.5
done
check_eq "pushed to the Pushgateway" 1 "${ok:-0:$(cat "$TMPD/push.err")}"

query() {
	"$PYTHON3" - "http://127.0.0.1:$PP/api/v1/query" "$1" <<'PY'
import json, sys, urllib.parse, urllib.request
url = sys.argv[1] + "?" + urllib.parse.urlencode({"query": sys.argv[2]})
try:
    d = json.load(urllib.request.urlopen(url, timeout=2))
    print(" ".join(r["value"][1] for r in d["data"]["result"]))
except Exception:
    pass
PY
}
# Prometheus scrapes every second: the figure within 40 s.
iops=
for _ in $(seq 80); do
	iops=$(query 'nbw_io_rate_operations_per_second{node="r",drive="",job="nbw"}')
	[ -n "$iops" ] && break
	sleep 0.5
done
check_eq "Prometheus' query API: the recorded IOPS" 19744 "$iops"
check_eq "Prometheus' query API: the p99 in seconds" 0.00589824 \
	"$(query 'nbw_latency_seconds{node="r",drive="",percentile="p99"}')"
check_eq "Prometheus' query API: bytes per second" 80871600 \
	"$(query 'nbw_throughput_bytes_per_second{node="r",drive=""}')"
[ -n "$iops" ] || tail -n 5 "$TMPD/pgw.log" "$TMPD/prom.log"
finish
