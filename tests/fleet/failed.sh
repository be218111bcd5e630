#!/bin/bash
# nbw-fleet run, a part whose tool fails (the fake sink of tests/fleet/fakes fails on
# n2's rail mlx5_0, $FAKE_DIR/fail.n2.mlx5_0): each such part leaves failed/REL.d/ with
# its tools' stderr and run_bench.log (run_bench.sh's stderr and exit status), is named
# as not measured in sweep.json, the judgement (text and JSON) and nothing else is
# named; --resume, the fault gone, measures those parts alone, keeps every part that
# passed untouched, and the old failure logs go.
# shellcheck disable=SC2010,SC2012 # ls lists and counts the files this test made
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"

touch "$TMPD/fake/fail.n2.mlx5_0"
S=$TMPD/sweep
"${FLEET[@]}" run --nodes n1,n2,n3 --rail-devs mlx5_0 --no-remote --out "$S" \
	--duration 1 --warmup 0 >"$TMPD/out" 2>"$TMPD/err"
check_eq "run: exit" 0 $?
check_eq "the failed parts' logs, nothing else" \
	"failed/fabric/n1/n2.rail0.json.d/aggregate-n1.log failed/fabric/n1/n2.rail0.json.d/aggregate-n2.log failed/fabric/n1/n2.rail0.json.d/run_bench.log failed/fabric/n3/n2.rail0.json.d/aggregate-n2.log failed/fabric/n3/n2.rail0.json.d/aggregate-n3.log failed/fabric/n3/n2.rail0.json.d/run_bench.log" \
	"$(cd "$S" && find failed -type f | sort | tr '\n' ' ' | sed 's/ $//')"
L=$S/failed/fabric/n3/n2.rail0.json.d
check_eq "the sink's stderr kept" \
	"nvme_write_bw_remote: mlx5_0: fake failure: verification FAIL at byte 4096 of n3's stream" \
	"$(tail -n1 "$L/aggregate-n2.log")"
check_match "run_bench.log: the failed command and its exit status" \
	"sink on n2 failed \\(exit 1\\): nvme_write_bw_remote: mlx5_0: fake failure" "$(cat "$L/run_bench.log")"
check_eq "run_bench.log ends with run_bench.sh's exit status" "run_bench.sh aggregate: exit status 1" \
	"$(tail -n1 "$L/run_bench.log")"
check_eq "sweep.json: the parts not measured, their reasons" \
	"[('fabric/n1/n2.rail0.json', True), ('fabric/n3/n2.rail0.json', True)]" \
	"$(json_get "$S/sweep.json" 'sorted((f["part"], "failed (exit 1): nvme_write_bw_remote: mlx5_0: fake failure" in f["reason"] and f["reason"].endswith("its logs: failed/%s.d/" % f["part"])) for f in d["failed"])')"
check_eq "the measured parts: every other one" "fabric/n1/n3.rail0.json fabric/n2/n1.rail0.json fabric/n2/n3.rail0.json fabric/n3/n1.rail0.json" \
	"$(cd "$S" && ls fabric/*/*.json | tr '\n' ' ' | sed 's/ $//')"
check_eq "judge.json: the same parts not measured" "['fabric/n1/n2.rail0.json', 'fabric/n3/n2.rail0.json']" \
	"$(json_get "$S/judge.json" 'sorted(f["part"] for f in d["failed"])')"
check_match "the report names a part not measured, with its logs" \
	'^  not measured: fabric/n1/n2\.rail0\.json \(.*sink on n2 failed \(exit 1\).*; its logs: failed/fabric/n1/n2\.rail0\.json\.d/\)$' \
	"$(cat "$TMPD/out")"
check_eq "no suspect named for a part not measured" "[]" "$(json_get "$S/judge.json" 'd["suspects"]')"
"${FLEET[@]}" judge "$S" >"$TMPD/judge" 2>&1
check_eq "judge again: the parts not measured" 2 "$(grep -c '^  not measured: fabric/n[13]/n2\.rail0\.json' "$TMPD/judge")"

# The fault gone, --resume measures the two parts alone and keeps the four.
rm -f "$TMPD/fake/fail.n2.mlx5_0"
ls -l --time-style=+%s.%N "$S"/fabric/*/*.json | awk '{print $6, $7}' >"$TMPD/before"
"${FLEET[@]}" run --resume "$S" >"$TMPD/out" 2>"$TMPD/err"
check_eq "resume: exit" 0 $?
check_match "resume: two parts to measure" 'nbw-fleet: fabric: .*: 2 of 2 parts done' "$(cat "$TMPD/err")"
check_eq "resume: every fabric part" 6 "$(ls "$S"/fabric/*/*.json | wc -l)"
check_eq "resume: the 4 parts that passed are not measured again" 4 \
	"$(ls -l --time-style=+%s.%N "$S"/fabric/*/*.json | awk '{print $6, $7}' | grep -cxFf "$TMPD/before")"
check_eq "resume: nothing failed, no failure logs left" "[] [] no" \
	"$(json_get "$S/sweep.json" 'd["failed"]') $(json_get "$S/judge.json" 'd["failed"]') $([ -e "$S/failed" ] && echo yes || echo no)"
check_eq "resume: nothing named not measured" "" "$(grep 'not measured' "$TMPD/out")"
check_eq "no process left behind" "" "$(pgrep -f "$TMPD" | grep -v "^$$\$" || true)"
finish
