#!/bin/bash
# scripts/nbw-results checks and trends every figure kind the record keeps, not only
# GB/s: a reference holds IOPS, latency percentiles, message rate and CPU per GiB too,
# and check and trend take the direction of "worse" from the kind (latency and CPU up
# is worse, IOPS and message rate down is worse); the baseline's "drives together"
# keeps its CPU per GiB.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"

TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT
NR_PY="$abs_top_srcdir/scripts/nbw-results"
NR() { "$PYTHON3" "$NR_PY" "$@"; }
unset NBW_RESULTS NBW_RESULTS_INDEX NBW_RESULTS_TEST_FSTYPE
export NBW_RESULTS=$TMPD/db
RAND="$FIXTURES/results/read-rand.json"

# rand OUT IOPS P99 CPU: the fixture's random 4 KiB read with its total's figures changed.
rand() {
	"$PYTHON3" -c 'import json,sys
d = json.load(open(sys.argv[1]))
t = d["total"]
t["iops"], t["latency_us"]["p99"], t["cpu_s_per_gib"] = (float(x) for x in sys.argv[3:6])
json.dump(d, open(sys.argv[2], "w"))' "$RAND" "$@"
}
rand "$TMPD/r1.json" 20000 6000 5.0
rand "$TMPD/r2.json" 15000 8000 6.0 # IOPS -25%, p99 +33.3%, CPU +20%: all worse
rand "$TMPD/r3.json" 20500 3000 4.0 # IOPS +2.5%, p99 -50%, CPU -20%: all better
for i in 1 2 3; do
	NR record --node r --start 2026-03-0${i}T10:00:00Z "$TMPD/r$i.json" >/dev/null
done

# reference set: every figure kind in the record line; check each in its direction.
NR reference set latest~2 --single --lower -0.1 >"$TMPD/out"
check_match "reference: GB/s and the other figures" 'reference by node from one run, [0-9a-f]{8} \(--single: a single measurement, unconfirmed\): 20 figures \(2 GB/s, 18 others\)' "$(cat "$TMPD/out")"
check_eq "reference line: the total's p99 kept with its unit" "6000.0 us" \
	"$(tail -n1 "$NBW_RESULTS/runs.jsonl" | json_get /dev/stdin '" ".join(str(m[k]) for m in d["metrics"] if m["metric"] == "lat_p99_us" and m["drive"] is None for k in ("ref", "unit"))')"
NR check latest~1 >"$TMPD/out" 2>&1
check_eq "check: IOPS down, p99 and CPU up: exit 3" 3 $?
check_match "check: IOPS below, worse" '^read +r +- +iops +IO/s +15000 +20000 +-0\.1\.\.none +below \(worse\)$' "$(cat "$TMPD/out")"
check_match "check: p99 above, worse (latency up)" '^read +r +- +lat_p99_us +us +8000 +6000 +none\.\.\+0\.1 +above \(worse\)$' "$(cat "$TMPD/out")"
check_match "check: CPU per GiB above, worse" '^read +r +- +cpu_s_per_gib +CPU s/GiB +6 +5 +none\.\.\+0\.1 +above \(worse\)$' "$(cat "$TMPD/out")"
check_match "check: the headline first, the worst named (IOPS -25%, p99 +33%: p99)" \
	'^[0-9a-f]{8}: 3 of 20 figures outside their reference \(3 worse\); the worst: read on r: lat_p99_us \+33\.3%$' \
	"$(head -n 1 "$TMPD/out")"
check_match "check: the columns carry the unit" '^rung +node +drive +figure +unit +value +reference +accepted +verdict$' "$(cat "$TMPD/out")"
# --junit: a testcase per figure, the outside ones failures; read by a real consumer
# (Debian's python3-junitparser) when installed, and valid against the JUnit schema of
# the tree's fixtures when it has one.
NR check --junit "$TMPD/j.xml" latest~1 >/dev/null 2>&1
check_eq "check --junit: the exit status as without it" 3 $?
check_eq "check --junit: XML of 20 testcases, 3 failures" "20 3 0" "$("$PYTHON3" -c 'import sys, xml.etree.ElementTree as E
s = E.parse(sys.argv[1]).getroot().find("testsuite")
print(s.get("tests"), s.get("failures"), s.get("skipped"))' "$TMPD/j.xml")"
JP=
for py in /usr/bin/python3 "$PYTHON3"; do
	"$py" -c 'import junitparser' 2>/dev/null && { JP=$py; break; }
done
if [ -n "$JP" ]; then
	check_eq "junitparser: the failures, each with its message and unit" \
		"read on r: lat_p99_us|above (worse)|above: 8000 us against the reference 6000 us" \
		"$("$JP" -c 'import sys
from junitparser import Failure, JUnitXml
for suite in JUnitXml.fromfile(sys.argv[1]):
    for c in suite:
        for r in c.result:
            if isinstance(r, Failure) and c.name == "read on r: lat_p99_us":
                print("%s|%s|%s" % (c.name, r.message, r.text.split(" (run")[0]))' "$TMPD/j.xml")"
else
	echo "note: python3-junitparser not installed: the XML read with ElementTree only"
fi
if [ -f "$FIXTURES/junit.xsd" ] && command -v xmllint >/dev/null; then
	check_eq "xmllint: valid against the tree's JUnit schema" 0 \
		"$(xmllint --noout --schema "$FIXTURES/junit.xsd" "$TMPD/j.xml" >/dev/null 2>&1; echo $?)"
fi
expect_exit 1 "^nbw-results: $TMPD/nodir/j\.xml: No such file or directory \\(no JUnit XML written\\)$" \
	"$PYTHON3" "$NR_PY" check --junit "$TMPD/nodir/j.xml" latest~1
NR check --json latest~1 >"$TMPD/c.json" 2>/dev/null
check_eq "check --json: p99's verdict, worse, accepted change" "above True None 0.1" \
	"$(json_get "$TMPD/c.json" '" ".join(str(x) for r in d["figures"] if r["figure"] == "lat_p99_us" and r["drive"] is None for x in (r["verdict"], r["worse"], *r["accepted_change"]))')"
check_eq "check --json: the total's outside figures" "cpu_s_per_gib iops lat_p99_us" \
	"$(json_get "$TMPD/c.json" '" ".join(sorted(r["figure"] for r in d["figures"] if r["drive"] is None and r["verdict"] != "ok"))')"
# Latency halved, CPU down: better, inside a reference without an upper bound: exit 0.
NR check latest >"$TMPD/out" 2>&1
check_eq "check: p99 and CPU down, no upper bound: exit 0" 0 $?
check_match "check: p99 halved is ok" '^read +r +- +lat_p99_us +us +3000 +6000 +none\.\.\+0\.1 +ok$' "$(cat "$TMPD/out")"
# With an upper bound of +20%, the halved p99 is outside on the better side.
NR reference set latest~2 --single --lower -0.1 --upper 0.2 >/dev/null
NR check --json latest >"$TMPD/c.json" 2>/dev/null
check_eq "check --upper: p99 halved, below and better; exit 3" "3 below False -0.2 0.1" \
	"$(NR check latest >/dev/null 2>&1; echo $?) $(json_get "$TMPD/c.json" '" ".join(str(x) for r in d["figures"] if r["figure"] == "lat_p99_us" and r["drive"] is None for x in (r["verdict"], r["worse"], *r["accepted_change"]))')"

# trend --figure: the points of that figure, the last change worse or better by its kind.
NR trend read --figure lat_p99_us --json >"$TMPD/t.json"
check_eq "trend p99: three points" "6000.0 8000.0 3000.0" "$(json_get "$TMPD/t.json" '" ".join(str(p["value"]) for p in d["points"])')"
check_eq "trend p99: -62.5%, better" "-62.5 False" "$(json_get "$TMPD/t.json" '"%.1f %s" % (d["last_change"]["pct"], d["last_change"]["worse"])')"
check_match "trend p99: text, the figure's unit" 'lat_p99_us us' "$(NR trend read --figure lat_p99_us)"
check_match "trend p99: text, better" 'last point against the one before: -62\.5% \(better\)' "$(NR trend read --figure lat_p99_us)"
check_match "trend IOPS: +36.7%, better" 'last point against the one before: \+36\.7% \(better\)' "$(NR trend read --figure iops)"
check_match "trend CPU: -33.3%, better" 'last point against the one before: -33\.3% \(better\)' "$(NR trend read --figure cpu_s_per_gib)"
NR trend read --figure iops --json --node r >"$TMPD/t.json"
check_eq "trend IOPS: the values" "20000.0 15000.0 20500.0" "$(json_get "$TMPD/t.json" '" ".join(str(p["value"]) for p in d["points"])')"
NR exclude latest --reason "test" >/dev/null
check_match "trend p99 after an exclusion: +33.3%, worse" 'last point against the one before: \+33\.3% \(worse\)' "$(NR trend read --figure lat_p99_us)"
expect_exit 2 '^nbw-results: --figure bogus: one of gb_per_s, iops' "$PYTHON3" "$NR_PY" trend read --figure bogus
expect_exit 1 'read: no writes_per_s figure recorded for this rung' "$PYTHON3" "$NR_PY" trend read --figure writes_per_s

# The remote tool's message rate: trend and check, down is worse.
sink() { # sink OUT GB
	"$PYTHON3" -c 'import json,sys
gb = float(sys.argv[2])
json.dump({"tool": "nvme_write_bw_remote", "version": "t", "role": "sink",
           "params": {"chunk": 65536, "threads": 8},
           "rdma": {"gb_per_s": gb, "writes_per_s": gb * 1e9 / 65536},
           "total": {"gb_per_s": gb, "cpu_s_per_gib": 0.02}, "ok": True, "verify": "pass",
           "total_valid": True}, open(sys.argv[1], "w"))' "$@"
}
D2=$TMPD/db2
sink "$TMPD/s1.json" 20
sink "$TMPD/s2.json" 16
NR --db "$D2" record --node a --start 2026-03-10T10:00:00Z "$TMPD/s1.json" >/dev/null
NR --db "$D2" record --node a --start 2026-03-11T10:00:00Z "$TMPD/s2.json" >/dev/null
NR --db "$D2" reference set latest~1 --single >/dev/null
NR --db "$D2" check latest >"$TMPD/out" 2>&1
check_match "check: message rate below, worse" '^end to end +a +- +writes_per_s +WRITE/s +244141 +305176 +-0\.05\.\.none +below \(worse\)$' "$(cat "$TMPD/out")"
check_match "trend: message rate -20%, worse" 'last point against the one before: -20\.0% \(worse\)' \
	"$(NR --db "$D2" trend "end to end" --figure writes_per_s)"

# export --csv and --json carry the figures beside GB/s too.
NR export --json >"$TMPD/e.json"
check_eq "export --json: the total's p99 of each run" "6000.0 8000.0 3000.0" \
	"$(json_get "$TMPD/e.json" '" ".join(str(r["metrics"]["lat_p99_us"]) for r in d if r["drive"] is None)')"
check_match "export --csv: a metrics column" '^uuid,.*,params_hash,metrics' "$(NR export --csv | head -n 1)"
check_eq "export --csv: the metrics of the first total" "20000.0" \
	"$(NR export --csv | "$PYTHON3" -c 'import csv, json, sys; print([json.loads(r["metrics"])["iops"] for r in csv.DictReader(sys.stdin) if not r["drive"]][0])')"

# The baseline's "drives together" keeps its CPU per GiB (the ladder's CPU s/GiB column).
NR --db "$TMPD/db3" record --node a "$FIXTURES/ladder/ref/baseline-a.json" >/dev/null
check_eq "baseline: drives together's CPU per GiB" "0.052" \
	"$(NR --db "$TMPD/db3" show --json latest | json_get /dev/stdin '[f.get("cpu_s_per_gib") for f in d["figures"] if f["rung"] == "drives together"][0]')"
finish
