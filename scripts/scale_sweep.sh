#!/bin/bash
# scripts/scale_sweep.sh: how bandwidth scales from 1 to N drives, locally and
# across the fabric. Local first (nvme_read_bw --sweep on SRC_NODE: the first
# 1, 2, ... N drives together), then remote (nvme_write_bw_remote with the
# first k drives of SRC_NODE as the source, k = 1..N, into SINK_NODE's DRAM,
# the sink reading no drives of its own). Each run goes through
# scripts/run_bench.sh (same environment, same launcher); the rows are written
# as a table (sweep.tsv, sweep.txt) and as JSON (sweep.json) with, per row, the
# ideal (k x the 1-drive local figure) and the link ceiling (the sum of the
# first k drives' link_ceiling_gb_per_s). scripts/plot_scaling draws them.
set -u
prog=scale_sweep.sh
here=$(cd "$(dirname "$0")" && pwd)
RUN_BENCH=${RUN_BENCH:-$here/run_bench.sh}

usage() {
	cat <<'EOF'
Usage: scale_sweep.sh            (settings from the environment)

Local sweep on SRC_NODE (nvme_read_bw --sweep), then remote runs SRC_NODE ->
SINK_NODE with the first 1, 2, ... N drives (nvme_write_bw_remote, sink --no-local).

Environment: everything run_bench.sh --help lists (SINK_NODE, SRC_NODE, SINK_ADDR,
DURATION, WARMUP, THREADS, CHUNK, RDMA_DEV, DRAM, LAUNCHER, ...), and
  SWEEP_DISKS   SRC_NODE's drives in sweep order, comma-separated [every NVMe
                namespace, in nvme_read_bw's order]
  REMOTE        yes|no: the remote runs too [yes]; with no, SINK_NODE is not needed
  RESULTS_DIR [results]  RUN_NAME [UTC timestamp]: the sweep goes to
                RESULTS_DIR/RUN_NAME/: local/ and remote-K/ (run_bench.sh runs),
                sweep.tsv, sweep.txt, sweep.json

Columns: drives, local GB/s, remote GB/s, ideal GB/s (k x the 1-drive local
figure), link ceiling GB/s (sum over the first k drives; - when unknown), local
and remote % of ideal.
Exit status: 0 ok; 1 a run failed (its rows show -); 2 usage; 130/143 interrupted.
EOF
}

say() { echo "$prog: $*" >&2; }
die_usage() {
	say "$*"
	exit 2
}

case ${1:-} in
-h | --help) usage; exit 0 ;;
'') ;;
*) die_usage "no arguments expected (settings come from the environment; --help)" ;;
esac
: "${REMOTE:=yes}" "${RESULTS_DIR:=results}"
case $REMOTE in yes | no) ;; *) die_usage "REMOTE=$REMOTE: yes or no" ;; esac
[ -n "${SRC_NODE:-}" ] || die_usage "SRC_NODE is not set (the node whose drives are swept)"
if [ "$REMOTE" = yes ]; then
	[ -n "${SINK_NODE:-}" ] || die_usage "SINK_NODE is not set (the node whose DRAM receives; or REMOTE=no)"
	[ "$SINK_NODE" != "$SRC_NODE" ] || die_usage "SINK_NODE and SRC_NODE are the same node: $SRC_NODE"
fi
[ -z "${SWEEP_DISKS:-}" ] || [[ $SWEEP_DISKS =~ ^[^,]+(,[^,]+)*$ ]] ||
	die_usage "SWEEP_DISKS=$SWEEP_DISKS: a comma-separated list of drives"
command -v "${PYTHON3:-python3}" >/dev/null || { say "python3 is needed (apt-get install python3)"; exit 1; }
# The settings run_bench.sh will use, checked before anything runs.
if [ "$REMOTE" = yes ]; then
	"$RUN_BENCH" check aggregate || exit
else
	NODES=$SRC_NODE "$RUN_BENCH" check local || exit
fi

run_name=${RUN_NAME:-$(date -u +%Y%m%dT%H%M%SZ)}
sweep_dir=$RESULTS_DIR/$run_name
if [ -z "${RUN_NAME:-}" ]; then
	n=1
	while [ -e "$sweep_dir" ]; do sweep_dir=$RESULTS_DIR/$run_name.$n; n=$((n + 1)); done
fi
mkdir -p "$sweep_dir" || { say "cannot create $sweep_dir"; exit 1; }

child=
on_signal() {
	trap '' INT TERM HUP
	say "interrupted"
	[ -n "$child" ] && kill -TERM "$child" 2>/dev/null && wait "$child"
	exit "$1"
}
trap 'on_signal 130' INT
trap 'on_signal 143' TERM
trap 'on_signal 129' HUP

# bench MODE RUN_NAME [VAR=VALUE...]: one run_bench.sh run into the sweep directory.
bench() {
	local mode=$1 name=$2
	shift 2
	env "$@" RESULTS_DIR="$sweep_dir" RUN_NAME="$name" "$RUN_BENCH" "$mode" &
	child=$!
	wait "$child"
	local rc=$?
	child=
	return "$rc"
}

# 1. Local: the first 1..N drives of SRC_NODE together.
say "local sweep on $SRC_NODE"
bench local local NODES="$SRC_NODE" SRC_DISKS="${SWEEP_DISKS:-}" READ_ARGS="${READ_ARGS:-} --sweep" ||
	{ say "the local sweep on $SRC_NODE failed: no drive list, no remote runs"; exit 1; }
local_json=$sweep_dir/local/local-$SRC_NODE.json
disks=$("${PYTHON3:-python3}" -c 'import json,sys; print(",".join(d["path"] for d in json.load(open(sys.argv[1]))["drives"]))' \
	"$local_json") || { say "$local_json: no drive list"; exit 1; }
IFS=, read -ra drive_list <<<"$disks"
say "${#drive_list[@]} drives on $SRC_NODE: $disks"

# 2. Remote: the first k drives of SRC_NODE into SINK_NODE's DRAM (RDMA only).
failed=0
if [ "$REMOTE" = yes ]; then
	for ((k = 1; k <= ${#drive_list[@]}; k++)); do
		first=$(IFS=,; echo "${drive_list[*]:0:k}")
		say "remote, $k drive(s): $SRC_NODE -> $SINK_NODE"
		bench aggregate "remote-$k" SRC_DISKS="$first" SINK_DISKS= SINK_ARGS="${SINK_ARGS:-} --no-local" ||
			{ say "remote run with $k drive(s) failed (see $sweep_dir/remote-$k)"; failed=1; }
	done
fi

# 3. The table and the JSON, from the saved runs.
"${PYTHON3:-python3}" - "$sweep_dir" "$SRC_NODE" "${SINK_NODE:-}" "$REMOTE" <<'PY' || exit 1
import json, os, sys

sweep_dir, src, sink, remote = sys.argv[1:5]

def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None

def isnum(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)

local = load(os.path.join(sweep_dir, "local", "local-%s.json" % src))
drives = local["drives"]
steps = {s["drives"]: s for s in local.get("sweep") or []}
one = steps.get(1, {}).get("gb_per_s")
rows = []
for k in range(1, len(drives) + 1):
    loc = steps.get(k, {}).get("gb_per_s")
    ideal = k * one if isnum(one) else None
    ceilings = [d.get("link_ceiling_gb_per_s") for d in drives[:k]]
    ceiling = sum(ceilings) if all(isnum(c) for c in ceilings) else None
    rem = verify = None
    if remote == "yes":
        doc = load(os.path.join(sweep_dir, "remote-%d" % k, "aggregate-%s.json" % sink))
        if doc and doc.get("ok", True) is not False:
            rem = (doc.get("rdma") or {}).get("gb_per_s")
            verify = doc.get("verify")
    pct = lambda v: 100.0 * v / ideal if isnum(v) and isnum(ideal) and ideal > 0 else None
    rows.append({"drives": k, "paths": [d["path"] for d in drives[:k]],
                 "local_gb_per_s": loc, "remote_gb_per_s": rem, "ideal_gb_per_s": ideal,
                 "link_ceiling_gb_per_s": ceiling, "local_percent_of_ideal": pct(loc),
                 "remote_percent_of_ideal": pct(rem), "remote_verify": verify})

doc = {"tool": "scale_sweep.sh", "source_node": src, "sink_node": sink or None,
       "params": local.get("params"), "drives": [d["path"] for d in drives], "rows": rows}
with open(os.path.join(sweep_dir, "sweep.json"), "w") as f:
    json.dump(doc, f, indent=2)
    f.write("\n")

keys = ("drives", "local_gb_per_s", "remote_gb_per_s", "ideal_gb_per_s", "link_ceiling_gb_per_s",
        "local_percent_of_ideal", "remote_percent_of_ideal")
def cell(v):
    return "%.4f" % v if isinstance(v, float) else "-" if v is None else str(v)
with open(os.path.join(sweep_dir, "sweep.tsv"), "w") as f:
    f.write("# scale_sweep.sh: %s drives -> %s DRAM; GB/s = 10^9 bytes/s; - = no figure\n"
            % (src, sink or "(local only)"))
    f.write("\t".join(keys) + "\n")
    for r in rows:
        f.write("\t".join(cell(r[k]) for k in keys) + "\n")

heads = ("drives", "local GB/s", "remote GB/s", "ideal GB/s", "link ceiling", "local %", "remote %")
fmt = lambda v, p: "-" if v is None else ("%.3f" % v if p == 3 else "%.1f" % v)
lines = ["%6s %12s %12s %12s %13s %8s %9s" % heads]
for r in rows:
    lines.append("%6d %12s %12s %12s %13s %8s %9s" % (
        r["drives"], fmt(r["local_gb_per_s"], 3), fmt(r["remote_gb_per_s"], 3),
        fmt(r["ideal_gb_per_s"], 3), fmt(r["link_ceiling_gb_per_s"], 3),
        fmt(r["local_percent_of_ideal"], 1), fmt(r["remote_percent_of_ideal"], 1)))
text = "\n".join(lines) + "\n"
with open(os.path.join(sweep_dir, "sweep.txt"), "w") as f:
    f.write(text)
print("scale sweep: %s (ideal = k x the 1-drive local figure)" % sweep_dir)
sys.stdout.write(text)
PY
[ "$failed" = 0 ] && say "done: $sweep_dir/sweep.tsv, sweep.json" || say "FAILED: a remote run failed; rows without a figure show -"
exit "$failed"
