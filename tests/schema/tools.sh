#!/bin/bash
# tools.sh: the documents of nvme_read_bw (a run of a file with --latency, --checksum and
# --interval, random reads, --baseline, --sweep, each curve, --memory, --list of a file
# and of a captured sysfs tree), of nvme_link_probe (every captured dump, a captured
# sysfs tree with --project and --expect-file, --expect) and of the Python commands other
# tools read (nbw-fleet plan and judge, nbw-results export) are valid against their
# schemas (schema/); a copy of each kind with a required key taken out is refused.
# The remote tool's documents: remote.sh; the fixtures: fixtures.sh.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/schema_lib.sh"
need_jsonschema
D=$TMPD/docs
mkdir -p "$D"

# run NAME CMD...: CMD's stdout into $D/NAME.json, its exit status one check.
run() {
	local n=$1 rc
	shift
	"$@" >"$D/$n.json" 2>"$TMPD/$n.err"
	rc=$?
	check_eq "$n: exit status" "${WANT_RC:-0}" "$rc"
	[ "$rc" = "${WANT_RC:-0}" ] || head -n 3 "$TMPD/$n.err"
}

# nvme_read_bw: every mode over two files.
f=$TMPD/a.img g=$TMPD/b.img
make_pattern "$f" $((8 << 20)) 1
make_pattern "$g" $((4 << 20)) 2
R=("$NVME_READ_BW" --disks "$f,$g" -t 1 -s 256K --warmup 0 -D 0.2)
run read-plain "${R[@]}" --latency --checksum --interval 0.1 --json
run read-rand "$NVME_READ_BW" --disks "$f" -t 2 -s 4K --warmup 0 -D 0.2 --pattern rand --json
run read-baseline "${R[@]}" --baseline --json
run read-sweep "${R[@]}" --sweep --json
run read-threads "${R[@]}" --sweep-threads 1,2 --json
run read-chunk "${R[@]}" --sweep-chunk 64K,128K --json
if grep -q "io_uring (not built)" <("$NVME_READ_BW" --help); then
	echo "note: no --sweep-depth document: io_uring is not built"
else
	run read-depth "${R[@]}" --engine io_uring --sweep-depth 1,2 --json
fi
run read-memory "$NVME_READ_BW" --memory -t 1 -s 1M --warmup 0 -D 0.2 --json
run read-list "$NVME_READ_BW" --disks "$f" --list --json
"$PYTHON3" "$FIXTURES/sysfs/mksysfs.py" "$TMPD/sysfs" || fail "mksysfs.py exited $?"
run read-list-sysfs "$NVME_READ_BW" --sysfs-root "$TMPD/sysfs/two-ns" --list --json

# nvme_link_probe: every captured dump; a captured sysfs tree with the projection and a
# site specification (a bay short of it: exit 3), an expectation on a dump (exit 3), the
# topology fixture's matrix with --expect p2p (exit 3) and a dump's.
for dump in "$FIXTURES"/pci/*.lspci; do
	name=${dump##*/}
	run "probe-${name%.lspci}" "$NVME_LINK_PROBE" --pci-dump "$dump" --json
done
"$PYTHON3" "$FIXTURES/pci/gen.py" sysfs "$TMPD/root" || fail "gen.py sysfs exited $?"
printf '6 4 4\n4 3 8\n' >"$TMPD/spec"
WANT_RC=3 run probe-sysfs "$NVME_LINK_PROBE" --sysfs-root "$TMPD/root" --project \
	--expect-file "$TMPD/spec" --json
WANT_RC=3 run probe-expect "$NVME_LINK_PROBE" --pci-dump "$FIXTURES/pci/switch_chain_gen2.lspci" \
	--project --expect gen3x4 --json
"$PYTHON3" "$FIXTURES/pci/gen.py" sysfs "$TMPD/topo" --topo || fail "gen.py sysfs --topo exited $?"
WANT_RC=3 run probe-topology "$NVME_LINK_PROBE" --sysfs-root "$TMPD/topo" --expect p2p --project --json
run probe-topology-dump "$NVME_LINK_PROBE" --pci-dump "$FIXTURES/pci/switch_acs.lspci" --topology --json
"$PYTHON3" "$FIXTURES/pci/gen.py" sysfs "$TMPD/gpus" --gpus || fail "gen.py sysfs --gpus exited $?"
run probe-gpus "$NVME_LINK_PROBE" --sysfs-root "$TMPD/gpus" --json
run probe-mps "$NVME_LINK_PROBE" --pci-dump "$FIXTURES/pci/mps_lowered.lspci" --expect gen3 --json
: >"$TMPD/nothing.lspci"
WANT_RC=1 run probe-nothing "$NVME_LINK_PROBE" --pci-dump "$TMPD/nothing.lspci" --json
WANT_RC=1 run probe-unmatched "$NVME_LINK_PROBE" --pci-dump "$FIXTURES/pci/gen5_port_gen3_drive.lspci" \
	--dev 00:02.0,01:00.0 -s 03: --json

# The Python documents other tools read: nbw-fleet's plan and judgement (of the lab's
# sweep in the fixtures), nbw-results' export.
run fleet-plan "$PYTHON3" "$abs_top_srcdir/scripts/nbw-fleet" plan --nodes 5 --rails 2 \
	--drives 2 --show-rounds 1,2 --json
cp -r "$FIXTURES/fleet_shaped" "$TMPD/sweep"
run fleet-judge "$PYTHON3" "$abs_top_srcdir/scripts/nbw-fleet" judge "$TMPD/sweep" --json
NR=("$PYTHON3" "$abs_top_srcdir/scripts/nbw-results" --db "$TMPD/db")
# two nodes' runs: each document's node is its provenance's host
drop <<EOF
$D/read-plain.json|$TMPD/node-a.json|d["provenance"]["host"] = "a"
$D/read-baseline.json|$TMPD/node-b.json|d["provenance"]["host"] = "b"
EOF
"${NR[@]}" record "$TMPD/node-a.json" >/dev/null || fail "nbw-results record exited $?"
"${NR[@]}" record "$TMPD/node-b.json" >/dev/null || fail "nbw-results record exited $?"
run results-export "${NR[@]}" export --json

check_eq "each document non-empty" "" "$(find "$D" -name '*.json' -empty)"
docs=()
for j in "$D"/*.json; do
	[ "$j" = "$D/results-export.json" ] || docs+=("$j")
done
validate "${docs[@]}"
validate --schema nbw-results-export "$D/results-export.json"
check_eq "the export holds the runs' figures" True \
	"$(json_get "$D/results-export.json" 'len(d) >= 4 and {"a", "b"} <= {x["node"] for x in d}')"

# A document missing a key its schema requires is refused, in each kind.
B=$TMPD/broken
mkdir -p "$B"
drop <<EOF
$D/read-plain.json|$B/read-no-total-rate.json|del d["total"]["gb_per_s"]
$D/read-plain.json|$B/read-no-latency.json|del d["drives"][1]["latency_us"]
$D/read-baseline.json|$B/read-no-phases.json|del d["baseline"]
$D/read-threads.json|$B/read-no-verdict.json|del d["drives"][0]["verdict"]["kind"]
$D/read-memory.json|$B/read-no-ceiling.json|del d["memory"][0]["ceiling_gb_per_s"]
$D/read-list.json|$B/read-no-path.json|del d["drives"][0]["path"]
$D/probe-sysfs.json|$B/probe-no-verdict.json|del d["devices"][2]["verdict"]
$D/probe-sysfs.json|$B/probe-bad-verdict.json|d["devices"][0]["verdict"] = "fine"
$D/probe-expect.json|$B/probe-no-expectation.json|del d["devices"][0]["expectation"]
$D/probe-topology.json|$B/probe-no-relation.json|del d["topology"]["pairs"][3]["relation"]
$D/probe-topology.json|$B/probe-bad-p2p.json|d["topology"]["pairs"][4]["p2p"]["verdict"] = "maybe"
$D/fleet-judge.json|$B/judge-no-state.json|del d["suspects"][0]["state"]
$D/fleet-plan.json|$B/plan-no-rounds.json|del d["rounds"]
$D/results-export.json|$TMPD/export-no-rung.json|del d[0]["rung"]
EOF
validate --refused "$B"/*.json
validate --refused --schema nbw-results-export "$TMPD/export-no-rung.json"
finish
