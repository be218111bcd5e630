#!/bin/bash
# nbw-fleet run over 64 fake nodes of 8 drives and 8 rails, a delivery slow across the
# board: every drive at 58% of its link's ceiling (3.6 GB/s), every rail at 48% of its
# port's line rate (12.5 GB/s). Held to its peers alone every node passes; held to its
# floor (the default: 80% of each) every node is SUSPECT, "below its floor", and judge
# --fail-on suspect exits 3. --floor none passes them (the emulated lab's); a --spec
# file that is malformed, of an unknown kind, contradicts itself or names a model no
# node has is refused in one line naming FILE:LINE (exit 2); a spec naming the drives'
# model (FAKE) at 2 GB/s wins over the floor for the drives.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
N=64
export FAKE_DRIVES=8 FAKE_RAILS=8
devs=$(seq -f 'mlx5_%g' 0 7 | paste -sd,)
for i in $(seq 1 $N); do
	for k in 0 1 2 3 4 5 6 7; do
		echo 0.5966 >"$FAKE_DIR/slow.n$i.nvme${k}n1" # 3.5 x 0.5966 = 58% of 3.6
		echo 0.7071 >"$FAKE_DIR/slow.n$i.mlx5_$k"     # 12 x 0.7071^2 = 48% of 12.5
	done
done
S=$TMPD/sweep
t0=$(date +%s)
"${FLEET[@]}" run --nodes "$(seq -f 'n%g' 1 $N | paste -sd,)" --rail-devs "$devs" --no-remote \
	--out "$S" --duration 1 --warmup 0 --retest-duration 1 --retest-warmup 0 >"$TMPD/out" 2>"$TMPD/err"
check_eq "run: exit" 0 $?
echo "# $N nodes x 8 drives x 8 rails: $(($(date +%s) - t0)) s"
check_eq "every node SUSPECT" "$N SUSPECT" \
	"$(json_get "$S/judge.json" '"%d %s" % (len(d["verdicts"]), ",".join(sorted({v["verdict"] for v in d["verdicts"]})))')"
check_eq "... each for its every drive and every rail, below its floor" \
	"all 8 rails 48% (below its floor); all 8 drives 58% (below its floor)" \
	"$(json_get "$S/judge.json" '"|".join(sorted({v["what"] for v in d["verdicts"]}))')"
check_eq "... the floors said" "{'drive': 0.8, 'rail': 0.8} {'floor'}" \
	"$(json_get "$S/judge.json" '"%s %s" % (d["floors"], {s["rule"] for s in d["suspects"]})')"
check_match "the text says the rule" "node +n1 +all 8 rails +low +48%  below its floor: every one of its 8 rails below its bar" \
	"$(cat "$TMPD/out")"
expect_exit 3 "" "${FLEET[@]}" judge "$S" --fail-on suspect
check_match "judge --fail-on suspect: exit 3, naming the floors" "n64 +SUSPECT: all 8 rails 48% \\(below its floor\\); all 8 drives 58%" "$(cat "$TMPD/out")"
expect_exit 0 "" "${FLEET[@]}" judge "$S" --fail-on suspect --floor none
check_match "--floor none: held to its peers only, every node PASS" "^nbw-fleet judge: $N nodes: $N PASS, 0 SUSPECT" "$(cat "$TMPD/out")"
expect_exit 3 "" "${FLEET[@]}" judge "$S" --fail-on suspect --floor rail=0.4
check_eq "--floor rail=0.4: the drives alone below" "$N 0" \
	"$(grep -c 'all 8 drives 58% (below its floor)$' "$TMPD/out") $(grep -c 'rails 48%' "$TMPD/out")"

# --spec: one line each, FILE:LINE.
printf '# the site\ndrive FAKE min=2\n' >"$TMPD/spec"
expect_exit 3 "" "${FLEET[@]}" judge "$S" --fail-on suspect --spec "$TMPD/spec" --json
check_eq "a spec of the drives' model at 2 GB/s: the drives pass it, the rails are below their floor" \
	"$N ['floor']" \
	"$("$PYTHON3" -c 'import json, sys; d = json.load(sys.stdin); print(len(d["suspects"]), sorted({s["rule"] for s in d["suspects"]}))' <"$TMPD/out")"
printf 'drive FAKE min=2\nnic MT_FAKE400 rate=100 min=7\n' >"$TMPD/spec2"
"${FLEET[@]}" judge "$S" --spec "$TMPD/spec2" --json >"$TMPD/j2"
check_eq "a spec of the NIC's model (its board_id) at 7 GB/s: the rails below their spec" \
	"('all 8 rails', 'spec', '$TMPD/spec2:2')" \
	"$(json_get "$TMPD/j2" 'sorted({(s["component"], s["rule"], s["evidence"]["rails"]["rail 0 (mlx5_0)"]["spec_line"]) for s in d["suspects"]}).pop()')"
printf 'drive FAKE min=2\ndrive FAKE min=3\n' >"$TMPD/bad1"
expect_exit 2 "^nbw-fleet judge: argument --spec: $TMPD/bad1:2: contradicts line 1 \\(drive FAKE: min 2 there, 3 here\\)" \
	"${FLEET[@]}" judge "$S" --spec "$TMPD/bad1"
printf '\nswitch X min=2\n' >"$TMPD/bad2"
expect_exit 2 "$TMPD/bad2:2: 'switch': not a kind \\(drive or nic\\)" "${FLEET[@]}" run --nodes n1,n2 \
	--out "$TMPD/never" --spec "$TMPD/bad2"
check_eq "... before anything ran" no "$([ -e "$TMPD/never" ] && echo yes || echo no)"
printf 'drive OTHER min=2\n' >"$TMPD/bad3"
expect_exit 2 "^nbw-fleet: $TMPD/bad3:1: drive model 'OTHER': no node of the sweep has it \\(it has FAKE\\)\$" \
	"${FLEET[@]}" judge "$S" --spec "$TMPD/bad3"
expect_exit 2 "drive=R and/or rail=R" "${FLEET[@]}" judge "$S" --floor drive=1.5
check_eq "no process left behind" "" "$(pgrep -f "$TMPD" | grep -v "^$$\$" || true)"
finish
