#!/bin/bash
# nbw-results record over a ladder's run directory with every kind of document
# run_bench.sh ladder leaves (tests/fixtures/ladder/ref and upper: probe, baseline,
# fabric and aggregate of both nodes, iperf3's tcpN, the NFS reads sequential and
# random; the staging memory of nvme_read_bw --memory, run.json, ladder.json of
# scripts/ladder_report and inventory/NODE.json made here): the whole run is
# recorded, each rung its own figure (the sequential and the random NFS reads of
# the same file are different rungs), filed under the nodes the file names say.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"
command -v "$PYTHON3" >/dev/null || skip "python3 not installed"
NR_PY="$abs_top_srcdir/scripts/nbw-results"
unset NBW_RESULTS NBW_RESULTS_INDEX NBW_RESULTS_TEST_FSTYPE NBW_RESULTS_TEST_CRASH_AFTER
export NBW_RESULTS=$TMPD/db

D=$TMPD/run
mkdir -p "$D/inventory"
cp "$FIXTURES"/ladder/ref/* "$FIXTURES"/ladder/upper/* "$D"
for n in a b; do
	"$NVME_READ_BW" --memory -t 1 -s 1M --warmup 0 -D 0.2 --json >"$D/memory-$n.json" 2>/dev/null ||
		fail "nvme_read_bw --memory on $n"
	"$PYTHON3" "$NR_PY" inventory --host "$n" >"$D/inventory/$n.json" 2>/dev/null ||
		fail "nbw-results inventory --host $n"
done
(cd "$abs_top_srcdir/python" && SINK_NODE=a SRC_NODE=b NFS_DEPTHS="8 16 32" \
	"$PYTHON3" -m nbw.summary run-json "$D/run.json" ladder 0 a b) || fail "run.json"
"$abs_top_srcdir/scripts/ladder_report" "$D" >/dev/null 2>&1 || fail "ladder_report"
check_eq "every kind of document is in the run directory" \
	"aggregate baseline fabric ladder memory nfs_rdma nfs_rdma_rand16 nfs_rdma_rand32 nfs_rdma_rand8 nfs_tcp nfs_tcp_rand16 nfs_tcp_rand32 nfs_tcp_rand8 probe run tcp1 tcp8" \
	"$(for p in "$D"/*.json; do p=${p##*/}; p=${p%.json}; echo "${p%-[ab]}"; done | sort -u | tr '\n' ' ' | sed 's/ $//')"

"$PYTHON3" "$NR_PY" record "$D" >"$TMPD/out" 2>"$TMPD/err"
check_eq "the ladder's run: recorded" "0 " "$? $(grep -v '^nbw-results: warning' "$TMPD/err")"
"$PYTHON3" "$NR_PY" show --json latest >"$TMPD/show"
figs() { json_get "$TMPD/show" "sorted({'%s@%s' % (f['rung'], f['node']) for f in d['figures'] if $1})"; }
check_eq "the NFS reads: each its own rung on the source, sequential and random apart" \
	"['nfs_rdma@b', 'nfs_rdma_rand16@b', 'nfs_rdma_rand32@b', 'nfs_rdma_rand8@b', 'nfs_tcp@b', 'nfs_tcp_rand16@b', 'nfs_tcp_rand32@b', 'nfs_tcp_rand8@b']" \
	"$(figs "f['rung'].startswith('nfs')")"
check_eq "each NFS rung its document's own figure" \
	"$(json_get "$D/nfs_rdma-b.json" '"%g" % d["total"]["gb_per_s"]') $(json_get "$D/nfs_tcp_rand16-b.json" '"%g" % d["total"]["gb_per_s"]')" \
	"$(json_get "$TMPD/show" '" ".join("%g" % f["gb_per_s"] for f in d["figures"] if f["rung"] in ("nfs_rdma", "nfs_tcp_rand16") and f["drive"] is None)')"
check_eq "every rung of the ladder is a figure of the run, on its node" True \
	"$(json_get "$TMPD/show" 'set((r["name"], r["node"]) for r in __import__("json").load(open("'"$D"'/ladder.json"))["rungs"] if r.get("measured_gb_per_s") is not None) <= set((f["rung"], f["node"]) for f in d["figures"])')"
check_eq "the staging memory of both nodes, from their documents" \
	"$(json_get "$D/memory-a.json" '"%g" % d["memory"][0]["dram_gb_per_s"]') $(json_get "$D/memory-b.json" '"%g" % d["memory"][0]["dram_gb_per_s"]')" \
	"$(json_get "$TMPD/show" '" ".join("%g" % f["gb_per_s"] for f in sorted(d["figures"], key=lambda f: f["node"]) if f["rung"] == "staging memory")')"
check_eq "the rungs of the tools' documents, filed under the run's nodes" \
	"['drive nvme0n1@a', 'drives together@a', 'end to end (sent)@b', 'end to end@a', 'fabric (mem)@a', 'fabric (mem)@b', 'link@a', 'link@b']" \
	"$(figs "f['rung'] in ('link', 'drive nvme0n1', 'drives together', 'fabric (mem)', 'end to end', 'end to end (sent)') and (f['node'] == 'a' or f['rung'] not in ('drive nvme0n1', 'drives together'))")"
check_eq "the run's nodes: the two of the ladder" "['a', 'b']" "$(json_get "$TMPD/show" 'd["hosts"]')"
check_eq "nothing failed" None "$(json_get "$TMPD/show" 'd["failed"]')"
finish
