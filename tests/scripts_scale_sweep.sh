#!/bin/bash
# scripts/scale_sweep.sh without a lab: usage errors exit 2 with one line; a
# sweep over two pattern files (the real nvme_read_bw locally, a fake
# nvme_write_bw_remote for the remote runs, an srun stand-in as LAUNCHER):
# rows 1..2, ideal = k x the 1-drive figure, remote figures from the sinks'
# JSON, the source of run k got the first k drives, the sinks --no-local; a
# failed remote run leaves "-" in its row and makes the sweep exit 1.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/scripts_lib.sh"
[ -x "$NVME_READ_BW" ] || skip "nvme_read_bw is not built"
make_fakes
export PATH=$TMPD/bin:$PATH TOOL_DIR=$TMPD/tools RESULTS_DIR=$TMPD/results
export DURATION=1 WARMUP=0 THREADS=1 CHUNK=64K LAUNCHER="fake-srun -N1 -w" NET_TIMEOUT=1
unset SINK_NODE SRC_NODE NODES LAUNCHER_QUOTE SINK_DISKS SRC_DISKS SWEEP_DISKS REMOTE RUN_NAME

expect_exit 2 'SRC_NODE is not set' "$SCALE_SWEEP"
expect_exit 2 'SINK_NODE is not set' env SRC_NODE=n2 "$SCALE_SWEEP"
expect_exit 2 'same node: n2' env SRC_NODE=n2 SINK_NODE=n2 "$SCALE_SWEEP"
expect_exit 2 'REMOTE=maybe: yes or no' env SRC_NODE=n2 REMOTE=maybe "$SCALE_SWEEP"
expect_exit 2 'no arguments expected' env SRC_NODE=n2 REMOTE=no "$SCALE_SWEEP" 4
expect_exit 2 'SWEEP_DISKS=a,,b: a comma-separated list' env SRC_NODE=n2 REMOTE=no SWEEP_DISKS=a,,b "$SCALE_SWEEP"
expect_exit 2 'THREADS=x: not a positive integer' env SRC_NODE=n2 REMOTE=no THREADS=x "$SCALE_SWEEP"
"$SCALE_SWEEP" --help | grep -q 'SWEEP_DISKS'
check_eq "--help names SWEEP_DISKS" 0 $?

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
RUN_NAME=loc REMOTE=no SINK_NODE= "$SCALE_SWEEP" >/dev/null 2>&1
check_eq "REMOTE=no: exit status" 0 $?
check_eq "REMOTE=no: no remote runs" "local sweep.json sweep.tsv sweep.txt" "$(ls "$RESULTS_DIR/loc" | tr '\n' ' ' | sed 's/ $//')"
check_eq "no process left" "" "$(leftovers)"
finish
