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
# BOUNDARY=yes runs the local -> remote boundary table instead: SINK_NODE's
# own drives (SINK_SWEEP_DISKS) 1..L locally (nvme_read_bw --sweep), then all L
# of them plus the first 1..R drives of SRC_NODE (SWEEP_DISKS) as the source,
# each an aggregate run (boundary.tsv, boundary.txt, boundary.json).
set -u
prog=scale_sweep.sh
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench_lib.sh source-path=SCRIPTDIR
. "$here/bench_lib.sh" || exit 1
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
  BOUNDARY      yes|no: the local -> remote boundary table instead of the sweep [no]:
                SINK_NODE's own drives 1..L alone (nvme_read_bw --sweep on SINK_NODE),
                then all L of them (the sink's --local-disks) plus the first 1..R
                drives of SWEEP_DISKS on SRC_NODE as the source (aggregate runs);
                needs SINK_SWEEP_DISKS and SWEEP_DISKS. Writes boundary-local/,
                boundary-remote-J/, boundary.tsv, boundary.txt, boundary.json with
                columns drives (L_k + j), local, RDMA, total (the sink's GB/s),
                ideal (drives x the 1-drive local figure), %_of_ideal (total /
                ideal) and valid (the sink's total_valid; local-only rows yes)
  SINK_SWEEP_DISKS  BOUNDARY=yes: SINK_NODE's drives in sweep order, comma-separated
                (required in that mode)
  RESULTS_DIR [results]  RUN_NAME [UTC timestamp]: the sweep goes to
                RESULTS_DIR/RUN_NAME/: local/ and remote-K/ (run_bench.sh runs),
                sweep.tsv, sweep.txt, sweep.json

Columns: drives, local GB/s, remote GB/s, ideal GB/s (k x the 1-drive local
figure), link ceiling GB/s (sum over the first k drives; - when unknown), local
and remote % of ideal.
Exit status: 0 ok; 1 a run failed (its rows show -); 2 usage; 130/143 interrupted.
EOF
}

# The python both tables are written with: its helpers, then the table's own code on stdin.
py_common='import json, os, sys

def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None

def isnum(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)

def cell(v):
    return "%.4f" % v if isinstance(v, float) else "-" if v is None else str(v)

def fmt(v, p):
    return "-" if v is None else ("%.3f" % v if p == 3 else "%.1f" % v)

def save_json(path, doc):
    with open(path, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")

# The TSV: "# " comment lines, the header, then a row of cells per row (keys are its columns).
def save_tsv(path, comments, header, keys, rows):
    with open(path, "w") as f:
        for c in comments:
            f.write("# %s\n" % c)
        f.write("\t".join(header) + "\n")
        for r in rows:
            f.write("\t".join(cell(r[k]) for k in keys) + "\n")

# The text table into path, then the title and the table on stdout.
def save_text(path, lines, title):
    text = "\n".join(lines) + "\n"
    with open(path, "w") as f:
        f.write(text)
    print(title)
    sys.stdout.write(text)'
table() { { printf '%s\n' "$py_common"; cat; } | "${PYTHON3:-python3}" - "$@"; }

case ${1:-} in
-h | --help) usage; exit 0 ;;
'') ;;
*) die_usage "no arguments expected (settings come from the environment; --help)" ;;
esac
: "${REMOTE:=yes}" "${RESULTS_DIR:=results}" "${BOUNDARY:=no}"
case $REMOTE in yes | no) ;; *) die_usage "REMOTE=$REMOTE: yes or no" ;; esac
case $BOUNDARY in yes | no) ;; *) die_usage "BOUNDARY=$BOUNDARY: yes or no" ;; esac
if [ "$BOUNDARY" = yes ]; then
	[ "$REMOTE" = yes ] || die_usage "BOUNDARY=yes needs the remote runs (REMOTE=yes)"
	[ -n "${SINK_SWEEP_DISKS:-}" ] ||
		die_usage "BOUNDARY=yes needs SINK_SWEEP_DISKS (SINK_NODE's drives in sweep order, comma-separated)"
	[[ $SINK_SWEEP_DISKS =~ ^[^,]+(,[^,]+)*$ ]] ||
		die_usage "SINK_SWEEP_DISKS=$SINK_SWEEP_DISKS: a comma-separated list of drives"
	[ -n "${SWEEP_DISKS:-}" ] ||
		die_usage "BOUNDARY=yes needs SWEEP_DISKS (SRC_NODE's drives in the order they are added, comma-separated)"
fi
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

sweep_dir=$(new_run_dir "$RESULTS_DIR") || exit 1

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

# BOUNDARY=yes: SINK_NODE's drives 1..L alone, then all L plus SRC_NODE's 1..R.
if [ "$BOUNDARY" = yes ]; then
	IFS=, read -ra sink_list <<<"$SINK_SWEEP_DISKS"
	IFS=, read -ra src_list <<<"$SWEEP_DISKS"
	failed=0
	say "boundary: local sweep of ${#sink_list[@]} drive(s) on $SINK_NODE"
	bench local boundary-local NODES="$SINK_NODE" SINK_DISKS="$SINK_SWEEP_DISKS" \
		READ_ARGS="${READ_ARGS:-} --sweep" ||
		{ say "the local sweep on $SINK_NODE failed (see $sweep_dir/boundary-local)"; failed=1; }
	for ((j = 1; j <= ${#src_list[@]}; j++)); do
		first=$(IFS=,; echo "${src_list[*]:0:j}")
		say "boundary: ${#sink_list[@]} local + $j remote drive(s): $SRC_NODE -> $SINK_NODE"
		bench aggregate "boundary-remote-$j" SINK_DISKS="$SINK_SWEEP_DISKS" SRC_DISKS="$first" ||
			{ say "boundary run with $j remote drive(s) failed (see $sweep_dir/boundary-remote-$j)"; failed=1; }
	done
	table "$sweep_dir" "$SRC_NODE" "$SINK_NODE" "$SINK_SWEEP_DISKS" "$SWEEP_DISKS" <<'PY' || exit 1
sweep_dir, src, sink, sink_disks, src_disks = sys.argv[1:6]
sink_disks, src_disks = sink_disks.split(","), src_disks.split(",")
L, R = len(sink_disks), len(src_disks)

def gbs(doc, key):
    v = (doc.get(key) or {}).get("gb_per_s") if isinstance(doc, dict) else None
    return v if isnum(v) else None

local = load(os.path.join(sweep_dir, "boundary-local", "local-%s.json" % sink)) or {}
steps = {s.get("drives"): s for s in local.get("sweep") or [] if isinstance(s, dict)}
one = steps.get(1, {}).get("gb_per_s")
one = one if isnum(one) else None
rows = []
for k in range(1, L + 1):
    loc = steps.get(k, {}).get("gb_per_s")
    loc = loc if isnum(loc) else None
    rows.append({"drives": k, "local_drives": k, "remote_drives": 0,
                 "local_paths": sink_disks[:k], "remote_paths": [],
                 "local_gb_per_s": loc, "rdma_gb_per_s": 0.0 if loc is not None else None,
                 "total_gb_per_s": loc, "valid": "yes" if loc is not None else None,
                 "invalid_reason": None})
for j in range(1, R + 1):
    doc = load(os.path.join(sweep_dir, "boundary-remote-%d" % j, "aggregate-%s.json" % sink))
    if not isinstance(doc, dict) or doc.get("ok", True) is False:
        doc = None
    tv = doc.get("total_valid") if doc else None
    valid = None if tv is None else "yes" if tv is True else "no"
    rows.append({"drives": L + j, "local_drives": L, "remote_drives": j,
                 "local_paths": sink_disks, "remote_paths": src_disks[:j],
                 "local_gb_per_s": gbs(doc, "local"), "rdma_gb_per_s": gbs(doc, "rdma"),
                 "total_gb_per_s": gbs(doc, "total"), "valid": valid,
                 "invalid_reason": doc.get("total_invalid_reason") if doc and tv is False else None})
for r in rows:
    r["ideal_gb_per_s"] = r["drives"] * one if one is not None else None
    t, i = r["total_gb_per_s"], r["ideal_gb_per_s"]
    r["percent_of_ideal"] = 100.0 * t / i if t is not None and i else None

doc = {"tool": "scale_sweep.sh", "mode": "boundary", "sink_node": sink, "source_node": src,
       "local_drives": L, "remote_drives": R, "sink_drives": sink_disks,
       "source_drives": src_disks, "one_drive_gb_per_s": one,
       "params": local.get("params"), "rows": rows}
save_json(os.path.join(sweep_dir, "boundary.json"), doc)

keys = ("drives", "local_gb_per_s", "rdma_gb_per_s", "total_gb_per_s", "ideal_gb_per_s",
        "percent_of_ideal", "valid")
heads = ("drives", "local", "RDMA", "total", "ideal", "%_of_ideal", "valid")
save_tsv(os.path.join(sweep_dir, "boundary.tsv"),
         ["scale_sweep.sh boundary: %s's drives, then + %s's drives -> %s DRAM; "
          "GB/s = 10^9 bytes/s; - = no figure" % (sink, src, sink), "local drives: %d" % L],
         heads, keys, rows)

lines = ["%6s %10s %10s %10s %10s %10s  %s" % heads]
for r in rows:
    lines.append("%6d %10s %10s %10s %10s %10s  %s" % (
        r["drives"], fmt(r["local_gb_per_s"], 3), fmt(r["rdma_gb_per_s"], 3),
        fmt(r["total_gb_per_s"], 3), fmt(r["ideal_gb_per_s"], 3),
        fmt(r["percent_of_ideal"], 1),
        (r["valid"] or "-") + (" (%s)" % r["invalid_reason"] if r["invalid_reason"] else "")))
    if r["drives"] == L and R:
        lines.append("%6s %s" % ("", "-- local -> remote boundary (+ %s's drives) --" % src))
save_text(os.path.join(sweep_dir, "boundary.txt"), lines,
          "boundary: %s (GB/s; ideal = drives x the 1-drive local figure of %s)" % (sweep_dir, sink))
PY
	if [ "$failed" = 0 ]; then
		say "done: $sweep_dir/boundary.tsv, boundary.json"
	else
		say "FAILED: a run failed; rows without a figure show -"
	fi
	exit "$failed"
fi

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
table "$sweep_dir" "$SRC_NODE" "${SINK_NODE:-}" "$REMOTE" <<'PY' || exit 1
sweep_dir, src, sink, remote = sys.argv[1:5]

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
save_json(os.path.join(sweep_dir, "sweep.json"), doc)

keys = ("drives", "local_gb_per_s", "remote_gb_per_s", "ideal_gb_per_s", "link_ceiling_gb_per_s",
        "local_percent_of_ideal", "remote_percent_of_ideal")
save_tsv(os.path.join(sweep_dir, "sweep.tsv"),
         ["scale_sweep.sh: %s drives -> %s DRAM; GB/s = 10^9 bytes/s; - = no figure"
          % (src, sink or "(local only)")], keys, keys, rows)

heads = ("drives", "local GB/s", "remote GB/s", "ideal GB/s", "link ceiling", "local %", "remote %")
lines = ["%6s %12s %12s %12s %13s %8s %9s" % heads]
for r in rows:
    lines.append("%6d %12s %12s %12s %13s %8s %9s" % (
        r["drives"], fmt(r["local_gb_per_s"], 3), fmt(r["remote_gb_per_s"], 3),
        fmt(r["ideal_gb_per_s"], 3), fmt(r["link_ceiling_gb_per_s"], 3),
        fmt(r["local_percent_of_ideal"], 1), fmt(r["remote_percent_of_ideal"], 1)))
save_text(os.path.join(sweep_dir, "sweep.txt"), lines,
          "scale sweep: %s (ideal = k x the 1-drive local figure)" % sweep_dir)
PY
[ "$failed" = 0 ] && say "done: $sweep_dir/sweep.tsv, sweep.json" || say "FAILED: a remote run failed; rows without a figure show -"
exit "$failed"
