#!/bin/bash
# scripts/nbw-results keeps the truth of a run: a failed sink document (ok false, verify
# fail, total not valid) and a run directory with a non-zero exit recorded as failed
# with the reason, left out of compare, trend and check (exit 4: nothing compared);
# check against a reference of other parameters exits 4; a random 4 KiB read keeps
# its IOPS and latency percentiles (show --json, compare); note and exclude lines in
# the record; list --node --since --mode; export --openmetrics into a file.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"

TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT
NR_PY="$abs_top_srcdir/scripts/nbw-results"
NR() { "$PYTHON3" "$NR_PY" "$@"; }
unset NBW_RESULTS NBW_RESULTS_INDEX NBW_RESULTS_TEST_FSTYPE
export NBW_RESULTS=$TMPD/db
RAND="$FIXTURES/results/read-rand.json"

sink() { # sink OUT GB [failed]
	"$PYTHON3" - "$@" <<'PY'
import json, sys
out, gb = sys.argv[1], float(sys.argv[2])
doc = {"tool": "nvme_write_bw_remote", "version": "t", "role": "sink",
       "params": {"chunk": 1048576, "threads": 8},
       "rdma": {"gb_per_s": gb, "writes_per_s": gb * 1e9 / 1048576},
       "total": {"gb_per_s": gb, "cpu_s_per_gib": 0.02}, "ok": True, "verify": "pass",
       "total_valid": True}
if len(sys.argv) > 3:
    doc.update(ok=False, verify="fail", total_valid=False,
               total_invalid_reason="overlap 40% < 90%")
json.dump(doc, open(out, "w"))
PY
}
sink "$TMPD/good.json" 24.0
sink "$TMPD/bad.json" 19.2 failed
NR record --node a --start 2026-02-01T10:00:00Z "$TMPD/good.json" >/dev/null
NR record --node a --start 2026-02-02T10:00:00Z "$TMPD/bad.json" >"$TMPD/out"
check_match "a failed document: recorded as failed, with its reason" \
	'as FAILED \(bad\.json: ok: false; verify: fail; total not valid \(overlap 40% < 90%\)\)' "$(cat "$TMPD/out")"
check_eq "list --json: the reason kept" "bad.json: ok: false; verify: fail; total not valid (overlap 40% < 90%)" \
	"$(NR list --json | json_get /dev/stdin 'd[1]["failed"]')"
check_match "list: the state column" 'latest~0 .* failed$' "$(NR list)"
NR compare latest~1 latest >"$TMPD/cmp" 2>&1
check_eq "compare with a failed run: exit 4" 4 $?
check_match "compare: says nothing was compared and why" '^nothing compared: run [0-9a-f]{8} failed: bad\.json' "$(cat "$TMPD/cmp")"
check_eq "compare: no 'large drop' of the failed figure" 0 "$(grep -c 'drop' "$TMPD/cmp")"
check_eq "trend: the failed point left out" "1 1" \
	"$(NR trend "end to end" --json | json_get /dev/stdin '"%d %d" % (len(d["points"]), d["left_out_failed_or_excluded"])')"
NR reference set latest~1 --single >/dev/null
NR check latest >"$TMPD/out" 2>&1
check_eq "check a failed run: exit 4" 4 $?
check_match "check: nothing checked, why" '^nbw-results: nothing checked: run [0-9a-f]{8} failed' "$(cat "$TMPD/out")"

# A run directory whose run_bench.sh exited non-zero.
mkdir -p "$TMPD/run"
cp "$TMPD/good.json" "$TMPD/run/aggregate-a.json"
echo '{"tool": "run_bench.sh", "mode": "aggregate", "exit_status": 3, "settings": {}}' >"$TMPD/run/run.json"
NR record --start 2026-01-15T00:00:00Z "$TMPD/run" >"$TMPD/out"
check_match "a run directory with exit status 3: failed" 'FAILED \(run_bench\.sh: exit status 3\)' "$(cat "$TMPD/out")"

# Check against a reference of other parameters only: nothing comparable, exit 4.
"$PYTHON3" -c 'import json,sys; d=json.load(open(sys.argv[1])); d["params"]["chunk"]=65536; json.dump(d,open(sys.argv[2],"w"))' \
	"$TMPD/good.json" "$TMPD/small.json"
NR record --node a --start 2026-02-03T10:00:00Z "$TMPD/small.json" >/dev/null
NR check latest >"$TMPD/out" 2>&1
check_eq "check, nothing comparable: exit 4" 4 $?
check_match "check, nothing comparable: said so" 'nothing checked: none of its 3 figures with a reference is comparable' "$(cat "$TMPD/out")"
NR compare latest~3 latest >"$TMPD/cmp" 2>&1
check_eq "compare, nothing comparable: exit 4" 4 $?
check_match "compare: the parameter in its unit" '^not comparable: chunk 1MiB -> 64KiB$' "$(cat "$TMPD/cmp")"

# A random 4 KiB read: IOPS and latency percentiles kept and compared.
"$PYTHON3" -c 'import json,sys; d=json.load(open(sys.argv[1])); d["total"]["iops"]=15000; d["total"]["latency_us"]["p99"]=8000.0; json.dump(d,open(sys.argv[2],"w"))' \
	"$RAND" "$TMPD/rand2.json"
NR record --node r --start 2026-02-04T10:00:00Z "$RAND" >/dev/null
NR record --node r --start 2026-02-05T10:00:00Z "$TMPD/rand2.json" >/dev/null
check_eq "show --json: IOPS and p99 of the total" "19744.0 5898.24" \
	"$(NR show --json latest~1 | json_get /dev/stdin '"%s %s" % (d["figures"][-1]["iops"], d["figures"][-1]["lat_p99_us"])')"
NR compare latest~1 latest >"$TMPD/cmp"
check_eq "compare: IOPS down, p99 up: worse beyond noise, exit 3" 3 $?
check_match "compare: IOPS" '^read +r +- +iops +IO/s +19744 +15000 +-24\.0% +large drop of 24\.0%' "$(cat "$TMPD/cmp")"
check_match "compare: p99, a rise" '^read +r +- +lat_p99_us +us +5898\.24 +8000 +\+35\.6% +large rise of 35\.6%' "$(cat "$TMPD/cmp")"
check_eq "compare --json: the p99 row" "lat_p99_us large True" \
	"$(NR compare --json latest~1 latest | json_get /dev/stdin '" ".join(str(x) for r in d["metrics"] if r["metric"] == "lat_p99_us" and r["drive"] is None for x in (r["metric"], r["class"], r["worse"]))')"
check_eq "compare --json: figures stays one GB/s row per rung, node and drive" "2 read read" \
	"$(NR compare --json latest~1 latest | json_get /dev/stdin '"%d %s" % (len(d["figures"]), " ".join(r["rung"] for r in d["figures"]))')"

# note and exclude: lines of their own, never deleted; an excluded run is left out.
lines=$(wc -l <"$NBW_RESULTS/runs.jsonl")
NR note latest "the drive was warm" >/dev/null
NR exclude latest --reason "wrong firmware" >/dev/null
check_eq "note and exclude: two lines appended" "$((lines + 2))" "$(wc -l <"$NBW_RESULTS/runs.jsonl")"
check_eq "the run's line is unchanged" 1 "$(grep -c '"iops":15000' "$NBW_RESULTS/runs.jsonl")"
check_match "show: the note and the exclusion" 'excluded .*: wrong firmware' "$(NR show latest)"
check_match "show: the note" 'note .*: the drive was warm' "$(NR show latest)"
NR compare latest~1 latest >"$TMPD/cmp" 2>&1
check_eq "compare with an excluded run: exit 4" 4 $?
check_match "compare: excluded, why" 'nothing compared: run [0-9a-f]{8} excluded: wrong firmware' "$(cat "$TMPD/cmp")"
expect_exit 2 'no such run' "$PYTHON3" "$NR_PY" note ffffffff "text"

# list --node --since --mode
check_eq "list --node r" 2 "$(NR list --node r --json | json_get /dev/stdin 'len(d)')"
check_eq "list --since 2026-02-03" 3 "$(NR list --since 2026-02-03 --json | json_get /dev/stdin 'len(d)')"
check_eq "list --mode aggregate" 1 "$(NR list --mode aggregate --json | json_get /dev/stdin 'len(d)')"
expect_exit 2 'since yesterday: YYYY-MM-DD' "$PYTHON3" "$NR_PY" list --since yesterday

# export --openmetrics FILE: the latest usable figures, no timestamps for the collector.
NR export --openmetrics "$TMPD/nbw.prom"
check_eq "openmetrics: ends with # EOF" "# EOF" "$(tail -n1 "$TMPD/nbw.prom")"
check_match "openmetrics: IOPS of the last usable random read (the excluded run left out)" \
	'^nbw_io_rate_operations_per_second\{node="r",drive="",rail="",rung="read",mode=""\} 19744$' "$(cat "$TMPD/nbw.prom")"
check_match "openmetrics: p99 in seconds" '^nbw_latency_seconds\{node="r",drive="",rail="",rung="read",mode="",percentile="p99"\} 0\.00589824$' "$(cat "$TMPD/nbw.prom")"
check_match "openmetrics: GB/s in bytes per second, the good run's" '^nbw_throughput_bytes_per_second\{node="a",drive="",rail="",rung="end to end",mode=""\} 24000000000$' "$(cat "$TMPD/nbw.prom")"
check_match "openmetrics: UNIT" '^# UNIT nbw_latency_seconds seconds$' "$(cat "$TMPD/nbw.prom")"
check_match "openmetrics --timestamps yes: the run's time as the timestamp" ' 19744 1770199200$' "$(NR export --openmetrics --timestamps yes)"
if command -v gnuplot >/dev/null; then
	NR report latest~3 --out "$TMPD/r.html" >/dev/null
	check_match "report: the trend's points are the CLI's (1 of other parameters, 2 failed left out)" \
		'<p>end to end: 1 points with other parameters and 2 of failed or excluded runs left out</p>' "$(cat "$TMPD/r.html")"
	check_eq "trend: the same counts" "1 2" "$(NR trend "end to end" --json | json_get /dev/stdin '"%d %d" % (d["left_out_not_comparable"], d["left_out_failed_or_excluded"])')"
else
	echo "gnuplot not installed: the report's trend not checked"
fi
expect_exit 1 'push http://127.0.0.1:9/metrics/job/nbw/instance/[^ ]+: ' "$PYTHON3" "$NR_PY" export --openmetrics --push http://127.0.0.1:9 --timeout 2
finish
