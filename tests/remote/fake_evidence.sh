#!/bin/bash
# fake_evidence.sh: what the hardware counted, on both ends of nvme_write_bw_remote over
# the fake fabric (its ports count as a NIC does; tests/remote/fake_fabric.c), with each
# side's --sysfs-root a tree of tests/fixtures/sysfs/mklinks.py where fake0 and fake1 are
# the ports of one PCIe NIC (0000:3b:00.0, 8 GT/s x16):
# - the links under load: the test lowers the source's NIC link to 2.5 GT/s x4 after its
#   first live line and raises its AER correctable count; the source's JSON and text name
#   the drop, when, and the count; the sink's NIC (untouched, no AER files) did not drop
#   and its AER counts are "not kept", never 0;
# - a sink with --sources 2 prints its own ports' counter deltas as the single-source
#   sink does, with the span they cover; they hold what both sources wrote;
# - a run that fails before RESULT (the source dies mid-window) still has the sink's
#   counters, over START to the session's end, said so; and in fan-in too.
. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/remote/fake_lib.sh"

fxa=$TMPD/links-sink fxb=$TMPD/links-src
"$PYTHON3" "$FIXTURES/sysfs/mklinks.py" "$fxa" || fail "mklinks.py exited $?"
"$PYTHON3" "$FIXTURES/sysfs/mklinks.py" "$fxb" || fail "mklinks.py exited $?"
nicb=$fxb/bus/pci/devices/0000:3b:00.0
printf 'RxErr 0\nTOTAL_ERR_COR 0\n' >"$nicb/aer_dev_correctable"
printf 'TOTAL_ERR_NONFATAL 0\n' >"$nicb/aer_dev_nonfatal"
printf 'TOTAL_ERR_FATAL 0\n' >"$nicb/aer_dev_fatal"
LONG="-s 64K -t 2 --warmup 0.2 -D 4 --timeout 3 --interval 1"

# 1. The links under load: the source's NIC trains down after its first live line.
# shellcheck disable=SC2086
sink links-sink $LONG --no-local --dram 4M --json --sysfs-root "$fxa"
# shellcheck disable=SC2086
src links-src $LONG --source mem -q 2 --json --sysfs-root "$fxb" &
spid=$!
until_live "$TMPD/links-src.err" || fail "the source printed no live line"
echo "2.5 GT/s PCIe" >"$nicb/current_link_speed"
echo 4 >"$nicb/current_link_width"
printf 'RxErr 9\nTOTAL_ERR_COR 9\n' >"$nicb/aer_dev_correctable"
wait $spid || fail "source exit $?: $(tail -n 3 "$TMPD/links-src.err")"
sink_status
check_eq "links: the sink's exit" 0 "$SINK_RC"
P='d["pcie_under_load"]'
jv links-src "[(x[\"name\"], x[\"kind\"], x[\"pci_address\"]) for x in $P]" \
	"${P}[0][\"link_under_load\"][\"before\"]" "${P}[0][\"link_under_load\"][\"min\"]" \
	"${P}[0][\"link_under_load\"][\"dropped\"]" \
	"1.0 <= ${P}[0][\"link_under_load\"][\"changes\"][0][\"t_s\"] <= 4.5" \
	"${P}[0][\"aer\"][\"correctable\"]" "${P}[0][\"aer\"][\"fatal\"][\"delta\"]"
check_eq "links: the source watches its one NIC (two ports, one PCI function)" \
	"[('fake0', 'rdma', '0000:3b:00.0')]" "${J[0]}"
check_eq "links: the source's NIC at the opening" "{'speed_gts': 8, 'width': 16}" "${J[1]}"
check_eq "links: its lowest under load" "{'speed_gts': 2.5, 'width': 4}" "${J[2]}"
check_eq "links: dropped" True "${J[3]}"
check_eq "links: the drop after the first second" True "${J[4]}"
check_eq "links: AER correctable moved" "{'before': 0, 'after': 9, 'delta': 9}" "${J[5]}"
check_eq "links: AER fatal kept, still" 0 "${J[6]}"
jv links-sink "${P}[0][\"name\"], ${P}[0][\"link_under_load\"][\"dropped\"]" \
	"${P}[0][\"link_under_load\"][\"after\"]" "${P}[0][\"aer\"]" 'd["counters_span"]'
check_eq "links: the sink's NIC did not drop" "('fake0', False)" "${J[0]}"
check_eq "links: the sink's NIC at the close" "{'speed_gts': 8, 'width': 16}" "${J[1]}"
check_eq "links: no AER files: not kept, never 0" \
	"{'correctable': 'not kept', 'nonfatal': 'not kept', 'fatal': 'not kept'}" "${J[2]}"
check_eq "links: what the sink's counters cover" "from the window's start to the source's result" "${J[3]}"

# The text: the drop named, with when; the AER count that moved.
echo "8.0 GT/s PCIe" >"$nicb/current_link_speed"
echo 16 >"$nicb/current_link_width"
printf 'RxErr 0\nTOTAL_ERR_COR 0\n' >"$nicb/aer_dev_correctable"
# shellcheck disable=SC2086
sink text-sink $LONG --no-local --dram 4M --sysfs-root "$fxa"
# shellcheck disable=SC2086
src text-src $LONG --source mem -q 2 --sysfs-root "$fxb" &
spid=$!
until_live "$TMPD/text-src.out" || fail "the source printed no live line"
echo "2.5 GT/s PCIe" >"$nicb/current_link_speed"
printf 'RxErr 2\nTOTAL_ERR_COR 2\n' >"$nicb/aer_dev_correctable"
wait $spid || fail "text source exit $?"
sink_status
out=$(cat "$TMPD/text-src.out")
check_match "text: the heading" "^ PCIe under load : 1 device, links read at the window's opening" "$out"
check_match "text: the source's NIC dropped, when" \
	'^   fake0 \(0000:3b:00\.0\): link dropped under load: 8 GT/s x16 at the opening, 2\.5 GT/s x16 at [1-4]\.[0-9] s, 2\.5 GT/s x16 at the close \(1 change\)$' "$out"
check_match "text: its AER count" '^   fake0 \(0000:3b:00\.0\): AER correctable \+2 \(0 -> 2\), nonfatal 0, fatal 0 in the window$' "$out"
check_match "text: the sink saw nothing move" "^   no link dropped, no AER count moved$" "$(cat "$TMPD/text-sink.out")"

# 2. Fan-in: the sink's own ports' counters, as the single-source sink's.
SRC3_PORTS="fake0:1:eth:127.0.1.3/24:100,fake1:1:eth:127.0.2.3/24:100"
fanin() {
	# shellcheck disable=SC2086
	sink "$1" $RUN --sources 2 --no-local --dram 8M --json --max-cv 100 --min-overlap 10 \
		--sysfs-root "$fxa"
	# shellcheck disable=SC2086
	src "$1-a" $RUN --source mem -q 2 --json &
	# shellcheck disable=SC2086
	NBW_FAKE_FAULT=${2:-} SRC_FAKE_PORTS=$SRC3_PORTS src "$1-b" $RUN --source mem -q 1 --json
	wait $! || true
	sink_status
}
fanin fan
check_eq "fan-in: sink exit" 0 "$SINK_RC"
jv fan '" ".join("%s:%d" % (p["device"], p["port"]) for p in d["counters"])' \
	'd["counters_span"]' \
	'4 * sum(p["counters"]["port_rcv_data"] for p in d["counters"]) >= d["rdma"]["bytes"] > 0' \
	'all(p["seconds"] >= 1 for p in d["counters"])' \
	'[x["name"] for x in d["pcie_under_load"]]'
check_eq "fan-in: the sink's ports' counters" "fake0:1 fake1:1" "${J[0]}"
check_eq "fan-in: the span they cover" "from before the sources' START to the last one's end" "${J[1]}"
check_eq "fan-in: its ports received at least what both sources wrote" True "${J[2]}"
check_eq "fan-in: over the whole window at least" True "${J[3]}"
check_eq "fan-in: its NIC's link watched" "['fake0']" "${J[4]}"
# shellcheck disable=SC2086
sink fantext $RUN --sources 2 --no-local --dram 8M --max-cv 100 --min-overlap 10
# shellcheck disable=SC2086
src fantext-a $RUN --source mem -q 2 &
# shellcheck disable=SC2086
SRC_FAKE_PORTS=$SRC3_PORTS src fantext-b $RUN --source mem -q 1
wait $! || true
sink_status
check_match "fan-in text: the counters' heading" \
	"^ Port counters   : from before the sources' START to the last one's end, those that moved" \
	"$(cat "$TMPD/fantext.out")"
check_match "fan-in text: a port's deltas" "fake0:1 +port_rcv_data [1-9]" "$(cat "$TMPD/fantext.out")"

# 3. A run that fails before RESULT: the source dies at its 40th WRITE.
# shellcheck disable=SC2086
sink die-sink $RUN --no-local --dram 4M --json
# shellcheck disable=SC2086
NBW_FAKE_FAULT=die@40 src die-src $RUN --source mem -q 2
sink_status
check_eq "dies: the sink fails" 1 "$SINK_RC"
jv die-sink 'd["counters_span"]' 'sum(p["counters"]["port_rcv_data"] for p in d["counters"]) > 0' \
	'd["ok"]'
check_eq "dies: the sink's counters, and what they cover" \
	"from START to the session's end (no result taken)" "${J[0]}"
check_eq "dies: its ports received the bytes before the death" True "${J[1]}"
check_eq "dies: not ok" False "${J[2]}"
fanin fandie die@40
check_eq "fan-in, one source dies: the sink fails" 1 "$SINK_RC"
jv fandie 'd["counters_span"]' '" ".join("%s:%d" % (p["device"], p["port"]) for p in d["counters"])'
check_eq "fan-in, one dies: the sink's counters still there" \
	"from before the sources' START to the last one's end fake0:1 fake1:1" "${J[0]} ${J[1]}"
finish
