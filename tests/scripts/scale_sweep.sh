#!/bin/bash
# scripts/scale_sweep.sh without a lab: usage errors exit 2 with one line; a
# sweep over two pattern files (the real nvme_read_bw locally, a fake
# nvme_write_bw_remote for the remote runs, an srun stand-in as LAUNCHER):
# rows 1..2, ideal = k x the 1-drive figure, remote figures from the sinks'
# JSON, the source of run k got the first k drives, the sinks --no-local; a
# failed remote run leaves "-" in its row and makes the sweep exit 1.
# BOUNDARY=yes: the sink's 2 pattern files alone (real nvme_read_bw --sweep),
# then both plus the source's first 1..3 drives: 5 rows, RDMA 0 in the local
# rows, the sink's local/RDMA/total/total_valid in the others, ideal = drives x
# the 1-drive figure, every sink got both drives, source j the first j.
# shellcheck disable=SC2010,SC2012 # ls lists and counts the files this test made
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
[ -x "$NVME_READ_BW" ] || skip "nvme_read_bw is not built"
make_fakes
export PATH=$TMPD/bin:$PATH TOOL_DIR=$TMPD/tools RESULTS_DIR=$TMPD/results
export DURATION=1 WARMUP=0 THREADS=1 CHUNK=64K LAUNCHER="fake-srun -N1 -w" NET_TIMEOUT=1
unset SINK_NODE SRC_NODE NODES LAUNCHER_QUOTE SINK_DISKS SRC_DISKS SWEEP_DISKS REMOTE RUN_NAME BOUNDARY SINK_SWEEP_DISKS

expect_exit 2 'SRC_NODE is not set' "$SCALE_SWEEP"
expect_exit 2 'SINK_NODE is not set' env SRC_NODE=n2 "$SCALE_SWEEP"
expect_exit 2 'same node: n2' env SRC_NODE=n2 SINK_NODE=n2 "$SCALE_SWEEP"
expect_exit 2 'REMOTE=maybe: yes or no' env SRC_NODE=n2 REMOTE=maybe "$SCALE_SWEEP"
expect_exit 2 'no arguments expected' env SRC_NODE=n2 REMOTE=no "$SCALE_SWEEP" 4
expect_exit 2 'SWEEP_DISKS=a,,b: a comma-separated list' env SRC_NODE=n2 REMOTE=no SWEEP_DISKS=a,,b "$SCALE_SWEEP"
expect_exit 2 'THREADS=x: not a positive integer' env SRC_NODE=n2 REMOTE=no THREADS=x "$SCALE_SWEEP"
expect_exit 2 'BOUNDARY=maybe: yes or no' env SRC_NODE=n2 SINK_NODE=n1 BOUNDARY=maybe "$SCALE_SWEEP"
expect_exit 2 'BOUNDARY=yes needs SINK_SWEEP_DISKS' env SRC_NODE=n2 SINK_NODE=n1 BOUNDARY=yes SWEEP_DISKS=a "$SCALE_SWEEP"
expect_exit 2 'BOUNDARY=yes needs SWEEP_DISKS' env SRC_NODE=n2 SINK_NODE=n1 BOUNDARY=yes SINK_SWEEP_DISKS=a "$SCALE_SWEEP"
expect_exit 2 'SINK_SWEEP_DISKS=a,: a comma-separated list' env SRC_NODE=n2 SINK_NODE=n1 BOUNDARY=yes SINK_SWEEP_DISKS=a, SWEEP_DISKS=b "$SCALE_SWEEP"
expect_exit 2 'BOUNDARY=yes needs the remote runs' env SRC_NODE=n2 BOUNDARY=yes REMOTE=no SINK_SWEEP_DISKS=a SWEEP_DISKS=b "$SCALE_SWEEP"

make_pattern "$TMPD/d0" 4194304 0
make_pattern "$TMPD/d1" 4194304 1
export SINK_NODE=n1 SRC_NODE=n2 SWEEP_DISKS=$TMPD/d0,$TMPD/d1
RUN_NAME=sw "$SCALE_SWEEP" >"$TMPD/out" 2>"$TMPD/err"
check_eq "sweep: exit status" 0 $?
S=$RESULTS_DIR/sw
check_eq "rows 1, 2" "[1, 2]" "$(json_get "$S/sweep.json" '[r["drives"] for r in d["rows"]]')"
check_eq "ideal = k x the 1-drive local figure" True \
	"$(json_get "$S/sweep.json" 'all(abs(r["ideal_gb_per_s"] - r["drives"] * d["rows"][0]["local_gb_per_s"]) < 1e-12 for r in d["rows"])')"
check_eq "local figures = nvme_read_bw's sweep steps" True \
	"$(json_get "$S/sweep.json" '[r["local_gb_per_s"] for r in d["rows"]] == [s["gb_per_s"] for s in json.load(open(sys.argv[1].replace("sweep.json", "local/local-n2.json")))["sweep"]]')"
check_eq "remote figures = the sinks' RDMA GB/s" "[0.25, 0.25]" "$(json_get "$S/sweep.json" '[r["remote_gb_per_s"] for r in d["rows"]]')"
check_eq "files have no link ceiling" "[None, None]" "$(json_get "$S/sweep.json" '[r["link_ceiling_gb_per_s"] for r in d["rows"]]')"
check_eq "the last source read the first 2 drives" "$TMPD/d0,$TMPD/d1" "$(grep -A1 -x -- --disks "$TMPD/fake/argv.source" | tail -n1)"
check_eq "the sink read no drive of its own" 1 "$(grep -cx -- --no-local "$TMPD/fake/argv.sink")"
check_eq "sweep.tsv: header and 2 rows" \
	"drives local_gb_per_s remote_gb_per_s ideal_gb_per_s link_ceiling_gb_per_s local_percent_of_ideal remote_percent_of_ideal|2" \
	"$(grep -v '^#' "$S/sweep.tsv" | head -n1 | tr '\t' ' ')|$(grep -c '^[0-9]' "$S/sweep.tsv")"
check_match "sweep.tsv: unknown ceiling is -" '^2	[0-9.]+	0\.2500	[0-9.]+	-	' "$(grep '^2' "$S/sweep.tsv")"
check_match "table printed" 'drives +local GB/s +remote GB/s +ideal GB/s +link ceiling' "$(cat "$TMPD/out")"
for k in 1 2; do
	check_eq "remote-$k: sink and source JSON saved" "sink source" \
		"$(json_get "$S/remote-$k/aggregate-n1.json" 'd["role"]') $(json_get "$S/remote-$k/aggregate-n2.json" 'd["role"]')"
done

# A failing remote run: its row has no remote figure, the sweep exits 1.
reset_fakes
touch "$TMPD/fake/sink.fail"
RUN_NAME=swfail "$SCALE_SWEEP" >"$TMPD/out" 2>"$TMPD/err"
check_eq "failed remote runs: exit status" 1 $?
check_eq "failed remote runs: no remote figures" "[None, None]" \
	"$(json_get "$RESULTS_DIR/swfail/sweep.json" '[r["remote_gb_per_s"] for r in d["rows"]]')"
check_match "failed remote runs: said so" 'remote run with 1 drive\(s\) failed' "$(cat "$TMPD/err")"

# Local only: no sink needed.
RUN_NAME=loc REMOTE=no SINK_NODE='' "$SCALE_SWEEP" >/dev/null 2>&1
check_eq "REMOTE=no: exit status" 0 $?
check_eq "REMOTE=no: no remote runs" "local sweep.json sweep.tsv sweep.txt" "$(ls "$RESULTS_DIR/loc" | tr '\n' ' ' | sed 's/ $//')"
# BOUNDARY=yes: the sink's 2 files, then + the source's first 1..3 drives.
reset_fakes
B=$RESULTS_DIR/bd
RUN_NAME=bd BOUNDARY=yes SINK_SWEEP_DISKS=$TMPD/d0,$TMPD/d1 SWEEP_DISKS=s0,s1,s2 "$SCALE_SWEEP" >"$TMPD/out" 2>"$TMPD/err"
check_eq "boundary: exit status" 0 $?
check_eq "boundary: rows L + R = 5, drives L_k + j" "[1, 2, 3, 4, 5]" "$(json_get "$B/boundary.json" '[r["drives"] for r in d["rows"]]')"
check_eq "boundary: local/remote drive counts" "[(1, 0), (2, 0), (2, 1), (2, 2), (2, 3)]" \
	"$(json_get "$B/boundary.json" '[(r["local_drives"], r["remote_drives"]) for r in d["rows"]]')"
check_eq "boundary: local rows = nvme_read_bw's sweep steps on the sink" True \
	"$(json_get "$B/boundary.json" '[r["local_gb_per_s"] for r in d["rows"][:2]] == [s["gb_per_s"] for s in json.load(open(sys.argv[1].replace("boundary.json", "boundary-local/local-n1.json")))["sweep"]] and all(r["local_gb_per_s"] > 0 for r in d["rows"][:2])')"
check_eq "boundary: the local sweep read the sink's 2 files" "$TMPD/d0 $TMPD/d1" \
	"$(json_get "$B/boundary-local/local-n1.json" '" ".join(x["path"] for x in d["drives"])')"
check_eq "boundary: local rows: RDMA 0, total = local, valid yes" True \
	"$(json_get "$B/boundary.json" 'all(r["rdma_gb_per_s"] == 0 and r["total_gb_per_s"] == r["local_gb_per_s"] and r["valid"] == "yes" for r in d["rows"][:2])')"
check_eq "boundary: remote rows = the sink's local, RDMA, total, total_valid" "[(0.5, 0.25, 0.75, 'yes'), (0.5, 0.25, 0.75, 'yes'), (0.5, 0.25, 0.75, 'yes')]" \
	"$(json_get "$B/boundary.json" '[(r["local_gb_per_s"], r["rdma_gb_per_s"], r["total_gb_per_s"], r["valid"]) for r in d["rows"][2:]]')"
check_eq "boundary: ideal = drives x the 1-drive local figure" True \
	"$(json_get "$B/boundary.json" 'all(abs(r["ideal_gb_per_s"] - r["drives"] * d["rows"][0]["local_gb_per_s"]) < 1e-12 for r in d["rows"])')"
check_eq "boundary: % of ideal = total / ideal" True \
	"$(json_get "$B/boundary.json" 'all(abs(r["percent_of_ideal"] - 100 * r["total_gb_per_s"] / r["ideal_gb_per_s"]) < 1e-9 for r in d["rows"])')"
check_eq "boundary: 3 sinks, each --local-disks with both files, never --no-local" \
	"3|3|0" "$(grep -c . "$TMPD/fake/calls.sink")|$(grep -cF "	--local-disks	$TMPD/d0,$TMPD/d1	" "$TMPD/fake/calls.sink")|$(grep -c '	--no-local	' "$TMPD/fake/calls.sink")"
check_eq "boundary: source j got the first j drives" "s0|s0,s1|s0,s1,s2" \
	"$(awk -F'\t' '{ for (i = 1; i < NF; i++) if ($i == "--disks") print $(i + 1) }' "$TMPD/fake/calls.source" | paste -sd'|')"
check_eq "boundary.tsv: header and 5 rows" "drives local RDMA total ideal %_of_ideal valid|5" \
	"$(grep -v '^#' "$B/boundary.tsv" | head -n1 | tr '\t' ' ')|$(grep -c '^[0-9]' "$B/boundary.tsv")"
check_match "boundary.tsv: a local row" '^2	[0-9.]+	0\.0000	[0-9.]+	[0-9.]+	[0-9.]+	yes$' "$(grep '^2	' "$B/boundary.tsv")"
check_match "boundary.tsv: a remote row" '^5	0\.5000	0\.2500	0\.7500	[0-9.]+	[0-9.]+	yes$' "$(grep '^5	' "$B/boundary.tsv")"
check_eq "boundary.tsv: no - cell" 0 "$(grep -v '^#' "$B/boundary.tsv" | grep -c '	-')"
check_match "boundary.txt printed with the boundary line" 'local -> remote boundary' "$(cat "$TMPD/out")"
check_eq "boundary.txt: header + 5 rows + the boundary line" 7 "$(wc -l <"$B/boundary.txt")"

# Boundary with an invalid total, then with a failing sink: valid no, "-" and exit 1.
reset_fakes
touch "$TMPD/fake/sink.invalid"
RUN_NAME=bdinv BOUNDARY=yes SINK_SWEEP_DISKS=$TMPD/d0 SWEEP_DISKS=s0 "$SCALE_SWEEP" >/dev/null 2>&1
check_eq "boundary, invalid total: exit status" 0 $?
check_eq "boundary, invalid total: valid column" "['yes', 'no']|overlap 80.0% < 99%" \
	"$(json_get "$RESULTS_DIR/bdinv/boundary.json" '"%s|%s" % ([r["valid"] for r in d["rows"]], d["rows"][1]["invalid_reason"])')"
reset_fakes
touch "$TMPD/fake/sink.fail"
RUN_NAME=bdfail BOUNDARY=yes SINK_SWEEP_DISKS=$TMPD/d0,$TMPD/d1 SWEEP_DISKS=s0,s1 "$SCALE_SWEEP" >/dev/null 2>"$TMPD/err"
check_eq "boundary, failed sink: exit status" 1 $?
check_eq "boundary, failed sink: local rows kept, remote rows -" "[True, True, None, None]" \
	"$(json_get "$RESULTS_DIR/bdfail/boundary.json" '[r["total_gb_per_s"] and r["total_gb_per_s"] > 0 for r in d["rows"][:2]] + [r["total_gb_per_s"] for r in d["rows"][2:]]')"
check_match "boundary, failed sink: - cells in the table" '^4	-	-	-	[0-9.]+	-	-$' "$(grep '^4	' "$RESULTS_DIR/bdfail/boundary.tsv")"
check_match "boundary, failed sink: said so" 'boundary run with 1 remote drive\(s\) failed' "$(cat "$TMPD/err")"

check_eq "no process left" "" "$(leftovers)"
finish
