#!/bin/bash
# remote.sh: the documents of nvme_write_bw_remote over the fake fabric (as the
# tests/remote/fake_*.sh tests run it) are valid against schema/nvme_write_bw_remote.
# schema.json: the sink reading its own drive and the source a drive, timing its WRITEs,
# both watching their NICs' PCIe links (--sysfs-root), one sink port losing packets and
# marked by ECN (the attribution); a sink with --sources 2 and one that waits for two
# in vain; --bidir on both sides; -a from a drive on both sides; a source that finds no
# sink. A copy with a required key taken out is refused.
. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/remote/fake_lib.sh"
. "$abs_top_srcdir/tests/schema/schema_lib.sh"
need_jsonschema
D=$TMPD/docs
mkdir -p "$D"
make_pattern "$TMPD/drive.img" $((16 << 20)) 7
make_pattern "$TMPD/local.img" $((16 << 20)) 8
"$PYTHON3" "$FIXTURES/sysfs/mklinks.py" "$TMPD/links-sink" || fail "mklinks.py exited $?"
"$PYTHON3" "$FIXTURES/sysfs/mklinks.py" "$TMPD/links-src" || fail "mklinks.py exited $?"

# keep NAME STATUS: the document of the run NAME (its stdout) kept as $D/NAME.json.
keep() {
	check_eq "$1: exit status" "$2" "${3:-0}"
	cp "$TMPD/$1.out" "$D/$1.json"
}

# One source: drives on both sides, --latency, the links under load, a lossy port.
SINK_FAKE_PORTS="fake0:1:eth:127.0.1.1/24:100:lossy:ecn,fake1:1:eth:127.0.2.1/24:100" \
	pair one "--local-disks $TMPD/local.img --dram 4M --json --sysfs-root $TMPD/links-sink \
	--min-overlap 10 --max-cv 100" "--disks $TMPD/drive.img -q 2 --latency --json \
	--sysfs-root $TMPD/links-src"
keep one-sink 0 "$SINK_RC"
keep one-src 0 "$SRC_RC"
check_eq "the sink's document has the links under load and the attribution" True \
	"$(json_get "$D/one-sink.json" 'bool(d.get("pcie_under_load")) and bool(d.get("attribution"))')"

# Fan-in: two sources; then a sink that waits for two and sees none.
SRC3_PORTS="fake0:1:eth:127.0.1.3/24:100,fake1:1:eth:127.0.2.3/24:100"
# shellcheck disable=SC2086
sink fan $RUN --sources 2 --no-local --dram 8M --json --max-cv 100 --min-overlap 10
# shellcheck disable=SC2086
src fan-a $RUN --source mem --json &
# shellcheck disable=SC2086
SRC_FAKE_PORTS=$SRC3_PORTS src fan-b $RUN --source mem --json
wait $! || true
sink_status
keep fan 0 "$SINK_RC"
keep fan-b 0 "$SRC_RC"
# shellcheck disable=SC2086
sink fan-none $RUN --sources 2 --no-local --dram 8M --json --wait 0.5
sink_status
keep fan-none 1 "$SINK_RC"

# --bidir: each side a sink and a source.
PORT=$((20000 + RANDOM % 40000))
# shellcheck disable=SC2086
NBW_FAKE_PORTS=$SINK_PORTS timeout 60 "$FAKE" -p "$PORT" --bidir $RUN --dram 4M --source mem \
	--json --min-overlap 10 127.0.1.2 >"$TMPD/bidir-a.out" 2>"$TMPD/bidir-a.err" &
SINK_PID=$!
# shellcheck disable=SC2086
NBW_FAKE_PORTS=$SRC_PORTS timeout 60 "$FAKE" -p "$PORT" --bidir $RUN --dram 4M --source mem \
	--json --min-overlap 10 127.0.1.1 >"$TMPD/bidir-b.out" 2>"$TMPD/bidir-b.err"
SRC_RC=$?
sink_status
keep bidir-a 0 "$SINK_RC"
keep bidir-b 0 "$SRC_RC"

# -a from a drive (64K to 4M), both sides.
sink all -a --warmup 0 -D 0.2 --timeout 3 -t 2 --no-local --dram 32M --json
src all-src -a --warmup 0 -D 0.2 --timeout 3 -t 2 -q 1 --disks "$TMPD/drive.img" --json
sink_status
keep all 0 "$SINK_RC"
keep all-src 0 "$SRC_RC"

# A source with no sink to talk to.
PORT=1
src nosink --source mem --json --timeout 1
keep nosink 1 "$SRC_RC"

validate "$D"/*.json

# A document missing a key its schema requires is refused.
B=$TMPD/broken
mkdir -p "$B"
drop <<EOF
$D/one-sink.json|$B/sink-no-verify.json|del d["verify"]
$D/one-sink.json|$B/sink-no-rail-rate.json|del d["rails"][0]["gb_per_s"]
$D/one-sink.json|$B/sink-bad-group.json|d["attribution"][0]["counters_not_kept"] = ["retransmission"]
$D/one-src.json|$B/source-no-total.json|del d["total"]
$D/one-src.json|$B/source-no-latency-p99.json|del d["total"]["latency_us"]["p99"]
$D/fan.json|$B/fanin-no-sources.json|del d["sources"]
$D/bidir-a.json|$B/bidir-no-sum.json|del d["bidir"]["sum_gb_per_s"]
$D/all.json|$B/sizes-no-complete.json|del d["complete"]
$D/nosink.json|$B/failed-no-error.json|del d["error"]
EOF
validate --refused "$B"/*.json
finish
