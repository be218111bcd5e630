#!/bin/bash
# scripts/nbw-results on generated documents: a drop beyond noise (194 then 149
# Gb/s with a small cv: a large drop of 23.2%, unexplained with identical
# inventories, the firmware named when it changed, not comparable with another
# message size); eight concurrent recorders; a truncated index rebuilt; a record
# line that is not JSON reported and skipped; reference set / check (exit 3); RUN
# resolution; the refusal of an index on NFS, Lustre and 9p (test hook
# NBW_RESULTS_TEST_FSTYPE); a run_bench.sh ladder directory recorded, trend PNG,
# CSV export, HTML report.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"
NR_PY="$abs_top_srcdir/scripts/nbw-results"
NR() { "$PYTHON3" "$NR_PY" "$@"; }
unset NBW_RESULTS NBW_RESULTS_INDEX NBW_RESULTS_TEST_FSTYPE
export NBW_RESULTS=$TMPD/db

# gen KIND OUT ...: the documents of the tests.
#   sink OUT GBPS CV CHUNK      nvme_write_bw_remote sink, 20 s, one stream cv CV
#   inv OUT HOST FW             an inventory of HOST with NIC firmware FW
gen() {
	"$PYTHON3" - "$@" <<'PY'
import json, sys
kind, out = sys.argv[1], sys.argv[2]
if kind == "sink":
    gb, cv, chunk = float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
    doc = {"tool": "nvme_write_bw_remote", "version": "t", "role": "sink",
           "params": {"chunk": chunk, "threads": 8, "depth": 4, "duration_s": 20, "port": 18515},
           "rdma": {"bytes": int(gb * 2e10), "seconds": 20.0, "gb_per_s": gb},
           "total": {"bytes": int(gb * 2e10), "seconds": 20.0, "gb_per_s": gb},
           "streams": [{"name": "rdma", "source": "b", "cv_pct": cv}],
           "drives": [{"path": "b:/dev/nvme0n1", "gb_per_s": gb / 2},
                      {"path": "b:/dev/nvme1n1", "gb_per_s": gb / 2}], "ok": True}
else:
    host, fw = sys.argv[3], sys.argv[4]
    doc = {"tool": "nbw-results inventory", "host": host, "collected": "2026-01-01T00:00:00Z",
           "kernel": {"release": "6.1.0-18-amd64"}, "cpu": {"model": "Test CPU"},
           "rdma": {"mlx5_0": {"fw_ver": fw, "board_id": "MT_0000000838"}}}
json.dump(doc, open(out, "w"))
PY
}
G=$TMPD/gen
mkdir -p "$G"
gen sink "$G/feb01.json" 24.25 0.8 1048576
gen sink "$G/feb28.json" 18.625 1.1 1048576
gen sink "$G/small.json" 18.625 1.1 65536
gen sink "$G/same.json" 24.1 0.9 1048576
gen inv "$G/inv-a.json" a 20.31.1014
gen inv "$G/inv-a2.json" a 20.31.1014
gen inv "$G/inv-a-fw.json" a 20.35.2000

rec() { NR record --node a "$@" >/dev/null; }
rec --start 2026-02-01T10:00:00Z --inventory "$G/inv-a.json" "$G/feb01.json"
rec --start 2026-02-28T10:00:00Z --inventory "$G/inv-a2.json" "$G/feb28.json"
check_eq "two runs recorded" 2 "$(NR list --json | json_get /dev/stdin 'len(d)')"

# --- a drop beyond noise: 194 then 149 Gb/s -------------------------------------------
NR compare latest~1 latest >"$TMPD/cmp" 2>"$TMPD/err"
check_eq "compare: a drop beyond noise exits 3 (a CI gate)" 3 $?
check_match "194 -> 149 Gb/s: a large drop of 23.2%, the noise said, the headline" \
	"^large drop of 23\.2% \(noise [0-9.]+% from the runs' samples\) \(end to end on a\)$" \
	"$(sed -n 2p "$TMPD/cmp")"
check_match "identical inventories: unexplained" '^unexplained: inventory identical$' "$(cat "$TMPD/cmp")"
check_match "the per-drive rows are compared too" 'end to end +a +b:/dev/nvme0n1 +12\.12 +9\.31 +-23\.2% +large drop of 23\.2%' "$(cat "$TMPD/cmp")"
check_match "the columns carry their units" '^rung +node +drive +A GB/s +B GB/s +change % +verdict$' "$(cat "$TMPD/cmp")"
NR compare --json latest~1 latest >"$TMPD/cmp.json"
check_eq "compare --json: the class and the change" "large -23.2" \
	"$(json_get "$TMPD/cmp.json" '"%s %.1f" % (d["figures"][0]["class"], d["figures"][0]["change_pct"])')"

rec --start 2026-03-01T10:00:00Z --inventory "$G/inv-a-fw.json" --note "new NIC firmware" "$G/feb28.json"
NR compare latest~2 latest >"$TMPD/cmp" 2>&1
check_match "firmware changed: named instead" '^inventory changed: a: rdma\.mlx5_0\.fw_ver: "20\.31\.1014" -> "20\.35\.2000"$' "$(cat "$TMPD/cmp")"
check_eq "no 'unexplained' when the inventory changed" 0 "$(grep -c unexplained "$TMPD/cmp")"

rec --start 2026-03-02T10:00:00Z --inventory "$G/inv-a.json" "$G/small.json"
NR compare latest~3 latest >"$TMPD/cmp" 2>&1
check_match "another message size: not comparable, in units" '^not comparable: chunk 1MiB -> 64KiB$' "$(cat "$TMPD/cmp")"

rec --start 2026-03-03T10:00:00Z --inventory "$G/inv-a.json" "$G/same.json"
NR compare latest~4 latest >"$TMPD/cmp" 2>&1
check_match "24.25 -> 24.10: within noise" 'end to end +a +- +24\.25 +24\.10 +-0\.6% +within noise' "$(cat "$TMPD/cmp")"
NR compare latest~4 latest >/dev/null 2>&1
check_eq "compare: within noise exits 0" 0 $?
check_match "nothing beyond noise, inventory identical" '^no change beyond noise$' "$(cat "$TMPD/cmp")"
# A noisy pair: the same 5% change is moderate with cv 1%, noise with cv 20% over 3 samples
# (the band the samples', the floor only for a run without them).
gen sink "$G/n1.json" 10 20 1048576
gen sink "$G/n2.json" 9.5 20 1048576
"$PYTHON3" -c 'import json,sys; d=json.load(open(sys.argv[1])); d["total"]["seconds"]=3; json.dump(d,open(sys.argv[1],"w"))' "$G/n1.json"
"$PYTHON3" -c 'import json,sys; d=json.load(open(sys.argv[1])); d["total"]["seconds"]=3; json.dump(d,open(sys.argv[1],"w"))' "$G/n2.json"
D2=$TMPD/db2
NR --db "$D2" record "$G/n1.json" >/dev/null && NR --db "$D2" record "$G/n2.json" >/dev/null
check_match "a 5% change with cv 20% over 3 s: within noise, the runs' own spread said" \
	"within noise \(-5\.0%, noise 49\.0% from the runs' samples\)" "$(NR --db "$D2" compare latest~1 latest)"
gen sink "$G/n3.json" 10 1 1048576
gen sink "$G/n4.json" 9.5 1 1048576
NR --db "$D2" record "$G/n3.json" >/dev/null && NR --db "$D2" record "$G/n4.json" >/dev/null
check_match "the same change with cv 1% over 20 s: moderate, the samples' band (no floor under it)" \
	"^moderate drop of 5\.0% \(noise 0\.9% from the runs' samples\)" "$(NR --db "$D2" compare latest~1 latest)"

# --- RUN resolution ------------------------------------------------------------------
first=$(NR list --json | json_get /dev/stdin 'd[0]["uuid"]')
check_eq "latest~4 is the first run" "$first" "$(NR show --json latest~4 | json_get /dev/stdin 'd["uuid"]')"
check_eq "a unique prefix" "$first" "$(NR show --json "${first:0:8}" | json_get /dev/stdin 'd["uuid"]')"
check_eq "show: the 2 Feb figure" 24.25 "$(NR show --json "$first" | json_get /dev/stdin 'd["figures"][0]["gb_per_s"]')"
expect_exit 2 '^nbw-results: latest~9: only 5 runs recorded$' "$PYTHON3" "$NR_PY" show latest~9
expect_exit 2 '^nbw-results: ffffffff: no such run$' "$PYTHON3" "$NR_PY" show ffffffff
expect_exit 2 '^nbw-results: zz: not a run' "$PYTHON3" "$NR_PY" show zz
expect_exit 1 '^nbw-results: .*/nope\.json: No such file or directory$' "$PYTHON3" "$NR_PY" record /nonexistent/nope.json
echo '[1,2' >"$TMPD/bad.json"
expect_exit 1 'bad\.json: not valid JSON' "$PYTHON3" "$NR_PY" record "$TMPD/bad.json"
expect_exit 2 'invalid choice' "$PYTHON3" "$NR_PY" frobnicate

# --- reference and check --------------------------------------------------------------
NR reference set "$first" --single --lower -0.05 >/dev/null
check_eq "reference set: the record holds it" 1 "$(grep -c '"kind":"reference"' "$NBW_RESULTS/runs.jsonl")"
NR check latest >"$TMPD/out" 2>&1
check_eq "check 24.10 against 24.25 -5%: exit 0" 0 $?
NR check latest~3 >"$TMPD/out" 2>&1
check_eq "check 18.625 against 24.25 -5%: exit 3" 3 $?
check_match "check names the figure below" 'end to end +a +- +gb_per_s +GB/s +18\.62 +24\.25 +-0\.05\.\.none +below \(worse\)' "$(cat "$TMPD/out")"
NR check latest~1 >"$TMPD/out" 2>&1
check_eq "check another message size: not comparable, nothing checked (exit 4)" "4 not comparable" \
	"$? $(grep -o 'not comparable' "$TMPD/out" | head -n1)"
NR reference set "$first" --single --lower -0.5 --upper 0.01 >/dev/null
NR check latest~3 >/dev/null 2>&1
check_eq "a newer, wider reference: 18.625 within -50%" 0 $?
expect_exit 2 'lower 0.5: a fraction from -1 to 0' "$PYTHON3" "$NR_PY" reference set latest --lower 0.5
expect_exit 5 "no reference applies to this run" "$PYTHON3" "$NR_PY" --db "$D2" check latest

# --- the record and its index ------------------------------------------------------------
C=$TMPD/conc
for i in 1 2 3 4 5 6 7 8; do gen sink "$G/c$i.json" "1$i" 1 1048576; done
for i in 1 2 3 4 5 6 7 8; do NR --db "$C" record "$G/c$i.json" >/dev/null 2>"$TMPD/c$i.err" & done
wait
check_eq "eight concurrent recorders: eight lines" 8 "$(wc -l <"$C/runs.jsonl")"
check_eq "no error from any of them" "" "$(cat "$TMPD"/c?.err)"
check_eq "the index: eight runs, eight distinct values, 24 figures" "8 8 24" "$("$PYTHON3" -c '
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
print(c.execute("SELECT COUNT(*) FROM runs").fetchone()[0],
      c.execute("SELECT COUNT(DISTINCT gb_per_s) FROM figures WHERE drive IS NULL").fetchone()[0],
      c.execute("SELECT COUNT(*) FROM figures").fetchone()[0])' "$C/index.sqlite")"
check_eq "every record line is JSON with its own id" 8 "$("$PYTHON3" -c '
import json, sys
print(len({json.loads(l)["uuid"] for l in open(sys.argv[1])}))' "$C/runs.jsonl")"
check_eq "schema version recorded" 1 "$("$PYTHON3" -c '
import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT MAX(version) FROM schema_version").fetchone()[0])' "$C/index.sqlite")"

size=$(stat -c %s "$C/index.sqlite")
truncate -s $((size / 2)) "$C/index.sqlite"
NR --db "$C" list --json >"$TMPD/out" 2>"$TMPD/err"
check_eq "truncated index: still eight runs" 8 "$(json_get "$TMPD/out" 'len(d)')"
check_match "truncated index: said and rebuilt" 'index\.sqlite: .*: rebuilt from the record$' "$(cat "$TMPD/err")"
NR --db "$C" list >/dev/null 2>"$TMPD/err"
check_eq "rebuilt once, quiet after" "" "$(cat "$TMPD/err")"
rm -f "$C/index.sqlite"
check_eq "index removed: rebuilt quietly" "8 " "$(NR --db "$C" list --json 2>&1 | json_get /dev/stdin 'len(d)') $(cat /dev/null)"

printf '{"kind": "run", "uuid": "broken\n' >>"$C/runs.jsonl"
gen sink "$G/c9.json" 19 1 1048576
NR --db "$C" record "$G/c9.json" >/dev/null 2>"$TMPD/err"
check_match "a cut line: reported with its number, skipped" 'runs\.jsonl: line 9: not valid JSON .* \(skipped\)$' "$(cat "$TMPD/err")"
check_eq "the run after it is intact: nine runs" 9 "$(NR --db "$C" list --json 2>/dev/null | json_get /dev/stdin 'len(d)')"
check_eq "the last run is the one recorded after the cut line" 19.0 "$(NR --db "$C" show --json latest | json_get /dev/stdin 'd["figures"][0]["gb_per_s"]')"
rm -f "$C/index.sqlite"
NR --db "$C" list >/dev/null 2>"$TMPD/err"
check_match "rebuilt from scratch: the bad line reported again" 'line 9: not valid JSON' "$(cat "$TMPD/err")"
check_eq "and nothing else lost" 9 "$(NR --db "$C" list --json 2>/dev/null | json_get /dev/stdin 'len(d)')"

# Odd shapes from a file or a hand-edited line: read as far as they make sense, no crash.
printf '{"tool": "nvme_read_bw", "baseline": [["x"]], "drives": "oops", "params": [1], "total": {"gb_per_s": 3}}\n' >"$TMPD/odd.json"
check_eq "a document of odd shape: its total recorded" 3.0 "$(NR --db "$C" record --json "$TMPD/odd.json" >/dev/null && NR --db "$C" show --json latest | json_get /dev/stdin 'd["figures"][0]["gb_per_s"]')"
printf '{"kind": "run", "uuid": "0dd0dd00-0000-4000-8000-000000000000", "figures": [{"rung": {"a": 1}, "node": [2], "gb_per_s": "x", "samples": 1e999}], "inventory": [1]}\n' >>"$C/runs.jsonl"
check_eq "a hand-edited line of odd shape: indexed, shown" "{'a': 1} None" "$(NR --db "$C" show --json 0dd0dd00 | json_get /dev/stdin '"%s %s" % (d["figures"][0]["rung"], d["figures"][0]["gb_per_s"])')"

# --- shared storage ------------------------------------------------------------------------
lines=$(wc -l <"$C/runs.jsonl")
expect_exit 1 '^nbw-results: .*: on nfs4: SQLite.s locking is unreliable .*--index FILE' \
	env NBW_RESULTS_TEST_FSTYPE=nfs4 "$PYTHON3" "$NR_PY" --db "$C" list
expect_exit 1 'on lustre: SQLite' env NBW_RESULTS_TEST_FSTYPE=lustre "$PYTHON3" "$NR_PY" --db "$C" record "$G/c1.json"
# A virtual machine's 9p share of its host (the lab's out/): qemu's server grants every lock.
expect_exit 1 'on 9p: SQLite' env NBW_RESULTS_TEST_FSTYPE=9p "$PYTHON3" "$NR_PY" --db "$C" record "$G/c1.json"
check_eq "the refused record was not written" "$lines" "$(wc -l <"$C/runs.jsonl")"

# --- a run_bench.sh ladder directory, trend, export, report ---------------------------------
L=$TMPD/ladder
cp -r "$FIXTURES/ladder/ref" "$L"
"$PYTHON3" "$abs_top_srcdir/scripts/ladder_report" "$L" >/dev/null
printf '{"tool": "run_bench.sh", "mode": "ladder", "nodes": ["a", "b"], "exit_status": 0, "started": "2026-04-01T08:00:00Z", "finished": "2026-04-01T08:20:00Z", "settings": {"CHUNK": "1M", "THREADS": "12", "SINK_NODE": "a", "SRC_NODE": "b"}}\n' >"$L/run.json"
D3=$TMPD/db3
NR --db "$D3" record --inventory "$G/inv-a.json" "$L" >/dev/null
NR --db "$D3" record --inventory "$G/inv-a-fw.json" --note "after the cabling change" --change-starts "$L" >/dev/null
NR --db "$D3" show --json latest >"$TMPD/show"
check_eq "ladder: rungs of a from the tools' documents and ladder.json" \
	"['link', 'drive nvme0n1', 'drive nvme1n1', 'drive nvme2n1', 'drives together', 'fabric (mem)', 'end to end']" \
	"$(json_get "$TMPD/show" '[f["rung"] for f in d["figures"] if f["node"] == "a" and (f["drive"] is None or f["rung"].startswith("drive "))]')"
check_eq "ladder: ib_write_bw of b from ladder.json" 1 "$(json_get "$TMPD/show" 'len([f for f in d["figures"] if f["rung"] == "ib_write_bw"])')"
check_eq "ladder: the command line from run.json" "CHUNK=1M SINK_NODE=a SRC_NODE=b THREADS=12 run_bench.sh ladder" "$(json_get "$TMPD/show" 'd["commands"][0]')"
check_eq "ladder: start and end from run.json, note, mark" "2026-04-01T08:00:00Z 2026-04-01T08:20:00Z after the cabling change True" \
	"$(json_get "$TMPD/show" '"%s %s %s %s" % (d["start"], d["end"], d["note"], d["change_starts"])')"
NR --db "$D3" compare latest~1 latest >"$TMPD/cmp"
check_match "the same ladder twice: no change; the change mark named" 'a known change starts at [0-9a-f]{8}: after the cabling change' "$(cat "$TMPD/cmp")"
check_match "trend: the baseline restarts at the change mark" 'since the known change at [0-9a-f]{8} \(after the cabling change\): 1 points, mean 21\.41 GB/s' \
	"$(NR --db "$D3" trend "END TO END" --node a)"
NR --db "$D3" export --csv --out "$TMPD/all.csv"
check_eq "CSV: a header and a row per figure" "$((1 + 2 * $(json_get "$TMPD/show" 'len(d["figures"])')))" "$(wc -l <"$TMPD/all.csv")"
check_match "CSV: the end to end row" ',after the cabling change,1,[0-9a-f]+,end to end,a,,21\.41,' "$(cat "$TMPD/all.csv")"
if command -v gnuplot >/dev/null; then
	NR trend "end to end" --out "$TMPD/trend.png" >"$TMPD/out"
	check_eq "trend: 5 points, 1 of other parameters left out" "4 1" \
		"$(grep -c '^2026-' "$TMPD/out") $(grep -o '^[0-9]* points with other parameters left out' "$TMPD/out" | cut -d' ' -f1)"
	check_eq "trend: a PNG" '89504e470d0a1a0a' "$(head -c 8 "$TMPD/trend.png" | od -An -tx1 | tr -d ' \n')"
	NR --db "$D3" report --out "$TMPD/r.html" >/dev/null
	check_eq "report: tables and an image per rung" "3 $(json_get "$TMPD/show" 'len({f["rung"] for f in d["figures"] if f["drive"] is None})')" \
		"$(grep -c '<table>' "$TMPD/r.html") $(grep -o 'src="data:image/png;base64,' "$TMPD/r.html" | wc -l)"
	check_match "report: the inventory difference" '<td>a</td><td>rdma.mlx5_0.fw_ver: &quot;20.31.1014&quot; -&gt; &quot;20.35.2000&quot;</td>' "$(cat "$TMPD/r.html")"
	check_eq "report: nothing outside the file" "" "$(grep -Eo '(src|href)="[^d#][^"]*"|https?:' "$TMPD/r.html")"
else
	echo "gnuplot not installed: trend and report plots not checked"
fi
finish
