#!/bin/bash
# nbw-fleet run, a part whose tool fails (the fake nvme_write_bw_remote fails on n2's rail
# mlx5_0, $FAKE_DIR/fail.n2.mlx5_0, once its partner came): a pair's run is kept whole or
# not at all, so both documents of each of n2's pairs are not measured; each leaves
# failed/REL.d/NODE.log with its tool's stderr on the node and why; sweep.json and the
# judgement name them with the node that failed (n2) and the reason (its partners':
# "kept only with its partner's"); n2 is NOT MEASURED (no rail of it has a figure), its
# partners PASS with a note, nothing is called low; --resume, the fault gone, measures
# those pairs alone, keeps every part that passed untouched, and the old logs go.
# shellcheck disable=SC2010,SC2012 # ls lists and counts the files this test made
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"

touch "$TMPD/fake/fail.n2.mlx5_0"
S=$TMPD/sweep
"${FLEET[@]}" run --nodes n1,n2,n3 --rail-devs mlx5_0 --no-remote --out "$S" \
	--duration 1 --warmup 0 --retest-duration 1 --retest-warmup 0 >"$TMPD/out" 2>"$TMPD/err"
check_eq "run: exit" 0 $?
check_eq "the failed parts' logs, nothing else" \
	"failed/fabric/n1/n2.json.d/n1.log failed/fabric/n2/n1.json.d/n2.log failed/fabric/n2/n3.json.d/n2.log failed/fabric/n3/n2.json.d/n3.log" \
	"$(cd "$S" && find failed -type f | sort | tr '\n' ' ' | sed 's/ $//')"
L=$S/failed/fabric/n2/n3.json.d/n2.log
check_eq "the tool's stderr kept, then why" \
	"nvme_write_bw_remote: mlx5_0: fake failure: verification FAIL at byte 4096 of n3's stream|n2: exit status 1: nvme_write_bw_remote: mlx5_0: fake failure: verification FAIL at byte 4096 of n3's stream" \
	"$(tail -n2 "$L" | tr '\n' '|' | sed 's/|$//')"
check_eq "sweep.json: the parts not measured, the node that failed, the reasons" \
	"[('fabric/n1/n2.json', 'n2', 'kept only with its partner'), ('fabric/n2/n1.json', 'n2', 'exit status 1'), ('fabric/n2/n3.json', 'n2', 'exit status 1'), ('fabric/n3/n2.json', 'n2', 'kept only with its partner')]" \
	"$(json_get "$S/sweep.json" 'sorted((f["part"], f["node"], f["reason"].split(":")[0].split("\x27")[0].rstrip()) for f in d["failed"])')"
check_eq "the measured parts: the pair n1-n3, both documents" "fabric/n1/n3.json fabric/n3/n1.json" \
	"$(cd "$S" && ls fabric/*/*.json | tr '\n' ' ' | sed 's/ $//')"
check_eq "judge.json: the same parts not measured" "['fabric/n1/n2.json', 'fabric/n2/n1.json', 'fabric/n2/n3.json', 'fabric/n3/n2.json']" \
	"$(json_get "$S/judge.json" 'sorted(f["part"] for f in d["not_measured_parts"])')"
check_match "the report names a part not measured, with its reason" \
	'^  not measured: fabric/n2/n3\.json \(exit status 1: nvme_write_bw_remote: mlx5_0: fake failure' \
	"$(cat "$TMPD/out")"
check_eq "the verdicts: n2 not measured, its partners pass" "[('n1', 'PASS'), ('n2', 'NOT MEASURED'), ('n3', 'PASS')]" \
	"$(json_get "$S/judge.json" 'sorted((v["node"], v["verdict"]) for v in d["verdicts"])')"
check_match "n2's line says why" '^  n2  NOT MEASURED: exit status 1: nvme_write_bw_remote: mlx5_0: fake failure' "$(cat "$TMPD/out")"
check_eq "no suspect named for a part not measured" "[]" "$(json_get "$S/judge.json" 'd["suspects"]')"
"${FLEET[@]}" judge "$S" >"$TMPD/judge" 2>&1
check_eq "judge again: the parts not measured" 4 "$(grep -c '^  not measured: fabric/' "$TMPD/judge")"

# The fault gone, --resume measures n2's two pairs alone and keeps the pair n1-n3.
rm -f "$TMPD/fake/fail.n2.mlx5_0"
ls -l --time-style=+%s.%N "$S"/fabric/*/*.json | awk '{print $6, $7}' >"$TMPD/before"
"${FLEET[@]}" run --resume "$S" >"$TMPD/out" 2>"$TMPD/err"
check_eq "resume: exit" 0 $?
check_eq "resume: the two rounds with n2 measured, the one without skipped" 2 \
	"$(grep -c '^nbw-fleet: fabric: round [1-3] of 3 (1 pairs): 2 kept, 0 failed' "$TMPD/err")"
check_eq "resume: every fabric part" 6 "$(ls "$S"/fabric/*/*.json | wc -l)"
check_eq "resume: the 2 parts that passed are not measured again" 2 \
	"$(ls -l --time-style=+%s.%N "$S"/fabric/*/*.json | awk '{print $6, $7}' | grep -cxFf "$TMPD/before")"
check_eq "resume: nothing failed, no failure logs left" "[] [] no" \
	"$(json_get "$S/sweep.json" 'd["failed"]') $(json_get "$S/judge.json" 'd["not_measured_parts"]') $([ -e "$S/failed" ] && echo yes || echo no)"
check_eq "resume: nothing named not measured" "" "$(grep 'not measured' "$TMPD/out")"
check_eq "no process left behind" "" "$(pgrep -f "$TMPD" | grep -v "^$$\$" || true)"
finish
