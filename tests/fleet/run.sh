#!/bin/bash
# nbw-fleet run without a cluster: an ssh stand-in (each node a name, FAKE_NODE in the
# command's environment; node "gone" unreachable) runs each node's task (one sh -c
# script a step) with fake tools that print canned JSON (tests/fleet/fakes/: the probe,
# nvme_read_bw --baseline and --version, a nvme_write_bw_remote --bidir whose two sides
# meet and report a rate set by fake/slow.* files). Three nodes and two rails: every
# phase's files (a pair's run both documents, every rail at once), a step per round,
# progress lines, a slow rail and a slow drive named with nothing else, an unreachable
# node named and skipped, versions in a tie refused, a non-empty directory refused,
# SIGINT keeping what was measured and --resume measuring only the rest.
# shellcheck disable=SC2010,SC2012 # ls lists and counts the files this test made
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"

# A slow rail (n3's mlx5_1 at half) and a slow drive (n2's nvme1n1 at 60%).
echo 0.5 >"$TMPD/fake/slow.n3.mlx5_1"
echo 0.6 >"$TMPD/fake/slow.n2.nvme1n1"
S=$TMPD/sweep
"${FLEET[@]}" run --nodes n1,n2,gone,n3 --rail-devs mlx5_0,mlx5_1 --out "$S" \
	--duration 1 --warmup 0 --retest-duration 1 --retest-warmup 0 >"$TMPD/out" 2>"$TMPD/err"
check_eq "run: exit" 0 $?
check_match "the unreachable node named and skipped" "gone: skipped \\(unreachable: ssh: Could not resolve hostname gone" "$(cat "$TMPD/err")"
check_eq "sweep.json: nodes, skipped, state, version, format, launcher" "['n1', 'n2', 'n3'] ['gone'] done 0.1.0 2 ssh" \
	"$(json_get "$S/sweep.json" '"%s %s %s %s %s %s" % (d["nodes"], [s["node"] for s in d["skipped"]], d["state"], d["suite_version"], d["format"], d["launcher"])')"
check_eq "sweep.json: the real command line (its --rail-devs), its start and end" \
	"nbw-fleet run --nodes n1,n2,gone,n3 --rail-devs mlx5_0,mlx5_1 True True" \
	"$(json_get "$S/sweep.json" '"%s %s %s" % (" ".join(d["argv"][:6]), d["started"].endswith("Z"), d["finished"] >= d["started"])')"
check_eq "sweep.json: the plan as it was made (of the 4 nodes asked: 6 pairs)" "6 all" \
	"$(json_get "$S/sweep.json" '"%s %s" % (d["plan"]["pair_count"], d["plan"]["pairs_mode"])')"
check_eq "sweep.json: each document's run id as it was kept (nodes/n2/read.json's)" \
	"$(json_get "$S/nodes/n2/read.json" 'd["provenance"]["run_id"]')" \
	"$(json_get "$S/sweep.json" 'd["run_ids"]["nodes/n2/read.json"]')"
"$PYTHON3" "$abs_top_srcdir/scripts/nbw-results" --db "$TMPD/db" record "$S" >"$TMPD/rec" 2>&1
check_eq "nbw-results record of the sweep: n2's figures from host n2, kernel 6.1.0-fake" \
	"0 n2 6.1.0-fake gfake ['F1', 'F1']" "$? $("$PYTHON3" "$abs_top_srcdir/scripts/nbw-results" --db "$TMPD/db" show latest --node n2 --json |
		json_get /dev/stdin '"%s %s %s %s" % (d["node"]["host"], d["node"]["kernel"], d["node"]["suite_build"], [x["firmware"] for x in d["node"]["drives"]])')"
check_match "record: the sweep's real command line kept, its settings before it" "^command: NET_TIMEOUT=5 THREADS=1 TOOL_DIR=[^ ]+ nbw-fleet run --nodes n1,n2,gone,n3 --rail-devs mlx5_0,mlx5_1 --out $S " \
	"$("$PYTHON3" "$abs_top_srcdir/scripts/nbw-results" --db "$TMPD/db" show latest | grep '^command: ')"
check_eq "local: each node's probe and read" "6" "$(ls "$S"/nodes/*/probe.json "$S"/nodes/*/read.json | wc -l)"
check_eq "fabric: 3 pairs, each run's two documents (every rail, both ways)" 6 "$(ls "$S"/fabric/*/*.json | wc -l)"
check_eq "fabric: n1's document of its run with n3 holds what n3 sent on both rails" \
	"bidir [('mlx5_0', 12), ('mlx5_1', 6)]" \
	"$(json_get "$S/fabric/n1/n3.json" '"%s %s" % (d["role"], [(r["local_dev"], r["gb_per_s"]) for r in d["receive"]["rails"]])')"
check_eq "drive->remote: a pair both ways at once, the odd node with the first" 4 "$(ls "$S"/remote/*/*.json | wc -l)"
check_eq "a step per round: local, 3 fabric rounds, 2 drive->remote rounds" "1 3 2" \
	"$(json_get "$S/sweep.json" '"%d %d %d" % tuple(d["timing"][k]["steps"] for k in ("local", "fabric", "drive->remote"))')"
check_match "progress lines: phase, round, kept, steps, time left" \
	'nbw-fleet: fabric: round [1-3] of 3 \(1 pairs\): 2 kept, 0 failed; step [0-9]+ of [0-9]+, [0-9]+ s so far, about [0-9]+ s left' \
	"$(cat "$TMPD/err")"
check_eq "the judgement: the slow rail and the slow drive, nothing else" \
	"[('drive', 'n2', 'nvme1n1'), ('rail', 'n3', 'rail 1 (mlx5_1)')]" \
	"$(json_get "$S/judge.json" 'sorted((s["kind"], s["node"], s["component"]) for s in d["suspects"])')"
check_eq "isolate: n3 retested with two partners (every rail), rail 1 alone, n2's drives read again" "4 2 1" \
	"$(ls "$S"/isolate/fabric/*/*.json | wc -l) $(ls "$S"/isolate/alone/*/*.rail1.json | wc -l) $(ls "$S"/isolate/nodes/*/read.json | wc -l)"
check_eq "the rail's retests are low, and so is the rail alone" "2 0 True" \
	"$(json_get "$S/judge.json" '"%d %d %s" % [(len(s["evidence"]["retest_low_with"]), len(s["evidence"]["retest_normal_with"]), s["evidence"]["alone_low"]) for s in d["suspects"] if s["kind"] == "rail"][0]')"
check_eq "a verdict per node" "[('gone', 'NOT MEASURED'), ('n1', 'PASS'), ('n2', 'SUSPECT'), ('n3', 'SUSPECT')]" \
	"$(json_get "$S/judge.json" 'sorted((v["node"], v["verdict"]) for v in d["verdicts"])')"
check_eq "no scratch left on the nodes" "" "$(ls -A "$TMPDIR")"

# Two sweeps never share a directory; a running sweep is locked.
expect_exit 1 "^nbw-fleet: $S: exists and is not empty" "${FLEET[@]}" run --nodes n1,n2 --out "$S"
# Versions in a tie (no version is the most nodes'): refused before anything runs (one
# node of another version among more is skipped: tests/fleet/veto.sh).
echo 0.2.0 >"$TMPD/fake/version.n4"
expect_exit 1 "^nbw-fleet: suite versions differ: 0.1.0 on n1; 0.2.0 on n4; none is the most nodes': refused" \
	"${FLEET[@]}" run --nodes n1,n4 --out "$TMPD/v"
check_eq "refused: no directory left" "no" "$([ -e "$TMPD/v" ] && echo yes || echo no)"
rm -f "$TMPD/fake/version.n4"

# SIGINT in the fabric phase keeps what was measured; --resume measures only the rest.
rm -f "$TMPD"/fake/slow.*
R=$TMPD/resume
FAKE_SCALE=1 "${FLEET[@]}" run --nodes n1,n2,n3 --out "$R" --duration 1 --warmup 0 >"$TMPD/out" 2>"$TMPD/err" &
pid=$!
for _ in $(seq 600); do
	[ "$(ls "$R"/fabric/*/*.json 2>/dev/null | wc -l)" -ge 1 ] && break
	sleep 0.1
done
kill -INT $pid
wait $pid
check_eq "interrupted: exit 130" 130 $?
check_match "interrupted: says how to resume" "resume with: nbw-fleet run --resume $R" "$(tail -n1 "$TMPD/err")"
kept=$(ls "$R"/fabric/*/*.json | wc -l)
check_eq "interrupted: state" interrupted "$(json_get "$R/sweep.json" 'd["state"]')"
ls -l --time-style=+%s.%N "$R"/fabric/*/*.json | awk '{print $6, $7}' >"$TMPD/before"
"${FLEET[@]}" run --resume "$R" >"$TMPD/out" 2>"$TMPD/err"
check_eq "resume: exit" 0 $?
check_eq "resume: every fabric part" 6 "$(ls "$R"/fabric/*/*.json | wc -l)"
check_eq "resume: the pairs measured are whole (both documents)" "0" "$(( kept % 2 ))"
check_eq "resume: the $kept parts kept are not measured again" "$kept" \
	"$(ls -l --time-style=+%s.%N "$R"/fabric/*/*.json | awk '{print $6, $7}' | grep -cxFf "$TMPD/before")"
check_eq "resume: a healthy fleet, no suspect" "[]" "$(json_get "$R/judge.json" 'd["suspects"]')"
expect_exit 1 "not a sweep directory" "${FLEET[@]}" run --resume "$TMPD/fake"

# --rdma-netdev: each node's address on it, asked on the node, is what its sources
# connect to; a node without one is named and skipped.
cat >"$TMPD/bin/ip" <<'SH'
#!/bin/bash
[ "$*" = "-4 -o addr show dev ib0" ] && [ "$FAKE_NODE" != n4 ] || { echo "Device \"ib0\" does not exist." >&2; exit 1; }
echo "4: ib0    inet 10.0.0.${FAKE_NODE#n}/24 brd 10.0.0.255 scope global ib0\       valid_lft forever"
SH
chmod +x "$TMPD/bin/ip"
A=$TMPD/addr
rm -f "$TMPD/fake/peers"
"${FLEET[@]}" run --nodes n1,n2,n4,n3 --rdma-netdev ib0 --no-remote --out "$A" --duration 1 \
	--warmup 0 --retest-duration 1 --retest-warmup 0 >"$TMPD/out" 2>"$TMPD/err"
check_eq "--rdma-netdev: exit" 0 $?
check_eq "--rdma-netdev: the addresses, the node without one skipped" \
	"{'n1': '10.0.0.1', 'n2': '10.0.0.2', 'n3': '10.0.0.3'} ['n4']" \
	"$(json_get "$A/sweep.json" '"%s %s" % (dict(sorted(d["addresses"].items())), [s["node"] for s in d["skipped"]])')"
check_match "--rdma-netdev: the reason" 'n4: skipped \(no IPv4 address on ib0 \(--rdma-netdev\): Device "ib0" does not exist\.\)' "$(cat "$TMPD/err")"
check_eq "--rdma-netdev: every fabric part" 6 "$(ls "$A"/fabric/*/*.json | wc -l)"
check_eq "--rdma-netdev: the sources connected to the sinks' addresses" "10.0.0.1 10.0.0.2 10.0.0.3" \
	"$(sort -u "$TMPD/fake/peers" | tr '\n' ' ' | sed 's/ $//')"
expect_exit 2 "^nbw-fleet run: argument --rdma-netdev: ib0;x: not an interface name" \
	"${FLEET[@]}" run --nodes n1,n2 --rdma-netdev 'ib0;x'
check_eq "no process left behind" "" "$(pgrep -f "$TMPD" | grep -v "^$$\$" || true)"
finish
