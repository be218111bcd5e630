#!/bin/bash
# nbw-results record never drops a figure. Two nvme_read_bw --json documents collected
# one file per node (collect/gpu-node-017.json, collect/gpu-node-018.json) and recorded
# as one run keep both nodes, each filed under the host its provenance names, the run
# dated by the documents' own windows. Two documents claiming the same node, rung and
# drive are refused with one line naming both files (or kept apart: --apart); old
# documents without provenance take their node from --node-from-name. Bad input, one
# line each and the record left byte for byte as it was: provenance that contradicts the
# file name, a clock far in the future, a run id recorded already or twice in one record,
# a truncated file, a block that breaks its contract. A record cut short mid-write
# (NBW_RESULTS_TEST_CRASH_AFTER: the process dies after that many bytes) is rolled back
# by the next command. --start with documents that say their own window: said, theirs
# kept. A run directory's MODE-NODE.json files: filed under the NODE run_bench.sh names.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"
command -v "$PYTHON3" >/dev/null || skip "python3 not installed"
NR_PY="$abs_top_srcdir/scripts/nbw-results"
NR() { "$PYTHON3" "$NR_PY" "$@"; }
unset NBW_RESULTS NBW_RESULTS_INDEX NBW_RESULTS_TEST_FSTYPE NBW_RESULTS_TEST_CRASH_AFTER
export NBW_RESULTS=$TMPD/db
HOST=$(hostname)

# edit FILE PYTHON: the document d in FILE changed by PYTHON, written back.
edit() {
	"$PYTHON3" -c 'import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[2])
json.dump(d, open(sys.argv[1], "w"))' "$1" "$2"
}
# state: what must not change when a record is refused: the record's bytes.
state() { sha256sum "$NBW_RESULTS/runs.jsonl" 2>/dev/null | cut -c1-16 || echo none; }

# Two runs of nvme_read_bw on this host, as two nodes would have made them.
make_pattern "$TMPD/d1.img" $((4 << 20)) 1
make_pattern "$TMPD/d3.img" $((4 << 20)) 3
for i in 1 3; do
	"$NVME_READ_BW" --disks "$TMPD/d$i.img" -t 1 -s 64K --warmup 0 -D 0.5 --json \
		>"$TMPD/rb$i.json" 2>/dev/null || fail "nvme_read_bw rb$i.json"
done
C=$TMPD/collect
mkdir -p "$C"
cp "$TMPD/rb1.json" "$C/gpu-node-017.json"
cp "$TMPD/rb3.json" "$C/gpu-node-018.json"
# (each its own run id: the runs of this host's documents are recorded further down)
edit "$C/gpu-node-017.json" 'd["provenance"].update(host="gpu-node-017", run_id="17000000-0000-4000-8000-000000000000")'
edit "$C/gpu-node-018.json" 'd["provenance"].update(host="gpu-node-018", run_id="18000000-0000-4000-8000-000000000000")'

# --- the issue's case: both nodes kept ------------------------------------------------
NR record "$C/gpu-node-017.json" "$C/gpu-node-018.json" >"$TMPD/out" 2>"$TMPD/err"
check_eq "two nodes' documents: recorded" "0 " "$? $(cat "$TMPD/err")"
NR show --json latest >"$TMPD/show"
check_eq "both nodes kept, each with its drive and total" \
	"[('read', 'gpu-node-017', 'd1.img'), ('read', 'gpu-node-017', None), ('read', 'gpu-node-018', 'd3.img'), ('read', 'gpu-node-018', None)]" \
	"$(json_get "$TMPD/show" '[(f["rung"], f["node"], f["drive"]) for f in d["figures"]]')"
check_eq "the run's nodes" "['gpu-node-017', 'gpu-node-018']" "$(json_get "$TMPD/show" 'd["hosts"]')"
check_eq "each figure its document's own value" "$(json_get "$TMPD/rb1.json" 'd["total"]["gb_per_s"]') $(json_get "$TMPD/rb3.json" 'd["total"]["gb_per_s"]')" \
	"$(json_get "$TMPD/show" '" ".join("%g" % f["gb_per_s"] for f in d["figures"] if f["drive"] is None)')"
first=$(json_get "$TMPD/rb1.json" 'd["provenance"]["start"][:19] + "Z"')
last=$(json_get "$TMPD/rb3.json" 'd["provenance"]["end"][:19] + "Z"')
check_eq "the run's start and end are the documents' own" "$first $last" \
	"$(json_get "$TMPD/show" 'd["start"] + " " + d["end"]')"
check_eq "show: where each figure came from" "gpu-node-017 gpu-node-018" \
	"$(json_get "$TMPD/show" '" ".join(sorted({p["host"] for p in d["provenance"].values()}))')"
NR show latest >"$TMPD/show.txt"
check_match "show (text): a document's provenance line" \
	"^document gpu-node-017\.json: gpu-node-017, .*kernel $(uname -r)" "$(cat "$TMPD/show.txt")"

# --- the same documents as they really are: both made on this host --------------------
cp "$TMPD/rb1.json" "$C/gpu-node-017.json"
cp "$TMPD/rb3.json" "$C/gpu-node-018.json"
before=$(state)
expect_exit 1 "^nbw-results: .*/gpu-node-017\.json and .*/gpu-node-018\.json both claim read on $HOST: refused \(" \
	"$PYTHON3" "$NR_PY" record "$C/gpu-node-017.json" "$C/gpu-node-018.json"
check_eq "refused: the record as it was" "$before" "$(state)"
NR record --apart "$C/gpu-node-017.json" "$C/gpu-node-018.json" >"$TMPD/out" 2>"$TMPD/err"
check_eq "--apart: each document a run of its own" "0 2" "$? $(grep -c '^recorded ' "$TMPD/out")"
check_eq "--apart: both figures kept" "['d3.img', None] ['d1.img', None]" \
	"$(NR show --json latest | json_get /dev/stdin '[f["drive"] for f in d["figures"]]') $(NR show --json latest~1 | json_get /dev/stdin '[f["drive"] for f in d["figures"]]')"

# --- a run id recorded already, or twice in one record ----------------------------------
before=$(state)
expect_exit 1 "^nbw-results: .*/gpu-node-017\.json: run id [0-9a-f-]{36} is recorded already \(run [0-9a-f]{8}\): refused$" \
	"$PYTHON3" "$NR_PY" record "$C/gpu-node-017.json"
cp "$C/gpu-node-017.json" "$TMPD/copy.json"
edit "$TMPD/copy.json" 'd["provenance"]["host"] = "gpu-node-019"'
expect_exit 1 "^nbw-results: .*/copy\.json: the same run as .*/rb1\.json \(run id [0-9a-f-]{36}\): refused$" \
	"$PYTHON3" "$NR_PY" --db "$TMPD/other" record "$TMPD/rb1.json" "$TMPD/copy.json"
check_eq "refused: the record as it was" "$before" "$(state)"

# --- old documents (no provenance): the file name, when asked --------------------------
O=$TMPD/old
mkdir -p "$O"
for n in 17 18; do
	cp "$TMPD/rb$([ $n = 17 ] && echo 1 || echo 3).json" "$O/gpu-node-0$n.json"
	edit "$O/gpu-node-0$n.json" 'del d["provenance"]'
done
expect_exit 1 "^nbw-results: .*/gpu-node-017\.json and .*/gpu-node-018\.json both claim read on $HOST: refused \(.*--node-from-name" \
	"$PYTHON3" "$NR_PY" record "$O/gpu-node-017.json" "$O/gpu-node-018.json"
NR record --node-from-name "$O/gpu-node-017.json" "$O/gpu-node-018.json" >/dev/null
check_eq "--node-from-name: old documents keep both nodes" "['gpu-node-017', 'gpu-node-018']" \
	"$(NR show --json latest | json_get /dev/stdin 'd["hosts"]')"
NR record --node old-node "$O/gpu-node-017.json" >/dev/null
check_eq "--node names an old document's node" "['old-node']" "$(NR show --json latest | json_get /dev/stdin 'd["hosts"]')"
cp "$TMPD/rb1.json" "$O/local-nameless.json"
edit "$O/local-nameless.json" 'd["provenance"].update(host=None, run_id="00000000-0000-4000-8000-00000000000a")'
NR record "$O/local-nameless.json" >/dev/null
check_eq "a block without a host: the node from the file name" "['nameless']" \
	"$(NR show --json latest | json_get /dev/stdin 'd["hosts"]')"

# --- bad input: one line each, nothing recorded ------------------------------------------
B=$TMPD/bad
mkdir -p "$B"
before=$(state)
cp "$TMPD/rb1.json" "$B/local-gpu-node-019.json"
expect_exit 1 "^nbw-results: .*/local-gpu-node-019\.json: its provenance says host $HOST, its file name node gpu-node-019: refused \(--node-from-name takes the name's\)$" \
	"$PYTHON3" "$NR_PY" record "$B/local-gpu-node-019.json"
expect_exit 1 "^nbw-results: .*/rb1\.json: its provenance says host $HOST, --node says elsewhere: refused" \
	"$PYTHON3" "$NR_PY" record --node elsewhere "$TMPD/rb1.json"
cp "$TMPD/rb1.json" "$B/future.json"
edit "$B/future.json" 'p = d["provenance"]; p["run_id"] = "00000000-0000-4000-8000-000000000001"; p["start"], p["start_unix_s"], p["end"], p["end_unix_s"] = "2099-01-01T00:00:00.000Z", 4070908800.0, "2099-01-01T00:00:20.000Z", 4070908820.0'
expect_exit 1 "^nbw-results: .*/future\.json: its window ends 2099-01-01T00:00:20Z, [0-9]+ days after this host's clock: a clock far in the future, refused$" \
	"$PYTHON3" "$NR_PY" record "$B/future.json"
head -c 300 "$TMPD/rb3.json" >"$B/cut.json"
expect_exit 1 "^nbw-results: .*/cut\.json: not valid JSON \(.*\): a truncated document\?$" \
	"$PYTHON3" "$NR_PY" record "$TMPD/rb3.json" "$B/cut.json"
cp "$TMPD/rb3.json" "$B/backwards.json"
edit "$B/backwards.json" 'p = d["provenance"]; p["run_id"] = "00000000-0000-4000-8000-000000000002"; p["start"], p["start_unix_s"] = p["end"], p["end_unix_s"] + 5'
expect_exit 1 "^nbw-results: .*/backwards\.json: .*does not say the same time|ends .* before it starts" \
	"$PYTHON3" "$NR_PY" record "$B/backwards.json"
cp "$TMPD/rb3.json" "$B/host.json"
edit "$B/host.json" 'd["provenance"]["host"] = "a b/../c"'
expect_exit 1 "^nbw-results: .*/host\.json: provenance\.host: 'a b/\.\./c' is not a host name$" \
	"$PYTHON3" "$NR_PY" record "$B/host.json"
check_eq "every refusal left the record as it was" "$before" "$(state)"

# --- a record cut short mid-write: rolled back by the next command ------------------------
lines=$(wc -l <"$NBW_RESULTS/runs.jsonl")
edit "$TMPD/rb3.json" 'd["provenance"]["run_id"] = "00000000-0000-4000-8000-000000000003"'
NBW_RESULTS_TEST_CRASH_AFTER=100 "$PYTHON3" "$NR_PY" record "$TMPD/rb3.json" >/dev/null 2>&1
check_eq "the writer died mid-line" 9 "$?"
check_eq "its first 100 bytes are in the record" yes "$([ "$(state)" != "$before" ] && echo yes)"
NR list --json >"$TMPD/out" 2>"$TMPD/err"
check_match "the next command rolls it back, once, saying so" \
	"runs\.jsonl: a record cut short \(100 bytes\) rolled back$" "$(cat "$TMPD/err")"
check_eq "the record as it was" "$before $lines" "$(state) $(wc -l <"$NBW_RESULTS/runs.jsonl")"
NR record "$TMPD/rb3.json" >/dev/null 2>"$TMPD/err"
check_eq "then recorded whole, quietly" "0 " "$? $(cat "$TMPD/err")"

# --- --start with documents that say their own: said, theirs kept -------------------------
edit "$TMPD/rb3.json" 'd["provenance"]["run_id"] = "00000000-0000-4000-8000-000000000004"'
NR record --start 2026-01-01T00:00:00Z "$TMPD/rb3.json" >/dev/null 2>"$TMPD/err"
check_eq "--start with provenance: recorded, one line says the documents' own start counts" \
	"0 nbw-results: --start: the documents say their own start and end (provenance): theirs are the run's" \
	"$? $(cat "$TMPD/err")"
check_eq "the documents' start kept" "$(json_get "$TMPD/rb3.json" 'd["provenance"]["start"][:19] + "Z"')" \
	"$(NR show --json latest | json_get /dev/stdin 'd["start"]')"

# --- a run directory: run_bench.sh's MODE-NODE.json name the node it ran on ---------------
# (an ssh alias or an address as SINK_NODE, the name its inventory/NODE.json and ladder use;
# both documents here were made on this host)
R=$TMPD/run
mkdir -p "$R"
cp "$TMPD/rb1.json" "$R/local-n1.json"
cp "$TMPD/rb3.json" "$R/local-n2.json"
edit "$R/local-n1.json" 'd["provenance"]["run_id"] = "00000000-0000-4000-8000-000000000005"'
edit "$R/local-n2.json" 'd["provenance"]["run_id"] = "00000000-0000-4000-8000-000000000006"'
NR record "$R" >/dev/null 2>"$TMPD/err"
check_eq "a run directory: recorded" "0 " "$? $(cat "$TMPD/err")"
check_eq "a run directory: each figure under the run's name of its node, the provenance kept" \
	"['n1', 'n2'] $HOST" \
	"$(NR show --json latest | json_get /dev/stdin 'str(d["hosts"]) + " " + " ".join(sorted({p["host"] for p in d["provenance"].values()}))')"
finish
