#!/bin/bash
# fake_empty_writes.sh: a source that counts full chunks while its WRITEs carry no payload
# (NBW_FAKE_FAULT=empty@N, tests/remote/fake_fabric.c: after its canaries, each WRITE goes
# out as as many empty packets as its length in headers, so the ports' data count adds up
# to what it claims, and completes as if whole). Its canaries land, so verification passes;
# what landed is a sliver of the claim. The sink's check bounds payload, not headers:
# - ports that count bytes and packets (the default): refused in one line (exit 1, no
#   figure), the claim above what the packets' bytes less their headers can carry, or
#   (the warm-up's packets may cover it) labelled unchecked: packets that small could hide
#   it; never "received";
# - ports that count packets only (":nocnt", as Soft-RoCE): packets x MTU cannot tell an
#   empty packet from a full one, so the figure is taken but labelled unchecked, with the
#   reason, in text and JSON; an honest source there too;
# - an honest source on the default ports: checked ("received"), no reason;
# - a source that writes for real through a long warm-up, then posts empty WRITEs in its
#   window (NBW_FAKE_FAULT=emptyms=MS): its claim is held to what the ports received from
#   the window's start, never covered by the warm-up's payload: refused, or unchecked,
#   never "received" with verify pass.
. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/remote/fake_lib.sh"

# 1. Bytes and packets counted: refused.
# shellcheck disable=SC2086
sink empty-sink $RUN --no-local --dram 4M --json
# shellcheck disable=SC2086
NBW_FAKE_FAULT=empty@16 src empty-src $RUN --source mem -q 2 --json
sink_status
jv empty-sink 'd["rdma"]["bytes"]' 'd.get("verify")' 'd.get("rdma_check")' 'd.get("rdma_unchecked_reason")'
echo "# empty WRITEs, bytes and packets counted: sink exit $SINK_RC, figure ${J[0]}," \
	"verify ${J[1]}, check ${J[2]} ${J[3]}"
# Refused when its claim is more than the packets' bytes less 16 bytes of headers each
# (the counters run from START to its result: a long warm-up may cover it), else unchecked
# (packets that small could hide it); never a figure labelled checked.
if [ "$SINK_RC" = 1 ]; then
	check_eq "empty WRITEs: refused, no figure" 0 "${J[0]}"
	check_match "empty WRITEs: said in one line" \
		"implausible result: it claims [0-9]+ bytes, more than the [0-9]+ bytes of payload the [0-9]+ packets its ports received" \
		"$(cat "$TMPD/empty-sink.err")"
else
	check_eq "empty WRITEs: taken, but unchecked (its packets too small)" \
		"0 unchecked True" "$SINK_RC ${J[2]} $(case ${J[3]} in *small*) echo True ;; esac)"
fi

# 2. Packets only: taken, unchecked, with the reason.
SINK_FAKE_PORTS="fake0:1:eth:127.0.1.1/24:100:nocnt,fake1:1:eth:127.0.2.1/24:100:nocnt"
# shellcheck disable=SC2086
sink pk-sink $RUN --no-local --dram 4M --json
# shellcheck disable=SC2086
NBW_FAKE_FAULT=empty@16 src pk-src $RUN --source mem -q 2
sink_status
jv pk-sink 'd["rdma_check"]' 'd["rdma_unchecked_reason"]' 'd["rdma"]["bytes"] > 0'
echo "# empty WRITEs, packets counted: sink exit $SINK_RC, check ${J[0]}"
check_eq "packets only: empty WRITEs taken but unchecked" "0 unchecked True" "$SINK_RC ${J[0]} ${J[2]}"
check_match "packets only: the reason in the JSON" "packets" "${J[1]}"
# shellcheck disable=SC2086
sink pk2-sink $RUN --no-local --dram 4M
# shellcheck disable=SC2086
src pk2-src $RUN --source mem -q 2
sink_status
check_match "packets only: honest, unchecked with the reason in the text" \
	"reported by the source, unchecked: the sink's ports count packets, not bytes" \
	"$(cat "$TMPD/pk2-sink.out")"
unset SINK_FAKE_PORTS

# 3. An honest source on ports that count bytes and packets: checked.
pair honest "--no-local --dram 4M --json" "--source mem -q 2"
jv honest-sink 'd["rdma_check"]' 'd["rdma_unchecked_reason"]' 'd["verify"]' 'd["counters_span"]'
check_eq "honest: checked, no reason, verify pass, counted from the window's start" \
	"0 received None pass from the window's start to the source's result" "$SINK_RC ${J[*]}"
# Without a warm-up the counters read at START are the window's edge: checked too.
RUN=${RUN/--warmup 0.2/--warmup 0} pair nowarm "--no-local --dram 4M --json" "--source mem -q 2"
jv nowarm-sink 'd["params"]["warmup_s"]' 'd["rdma_check"]' 'd["counters_span"]'
check_eq "honest, no warm-up: checked from the window's start" \
	"0 0 received from the window's start to the source's result" "$SINK_RC ${J[*]}"

# 4. Real WRITEs through a 4 s warm-up, from 3.5 s on each an empty packet (its window's):
# the warm-up's payload is more than its window claims, yet bounds nothing.
LONG="-s 64K -t 2 --warmup 4 -D 0.5 --timeout 3"
# shellcheck disable=SC2086
sink warm-sink $LONG --no-local --dram 4M --json
# shellcheck disable=SC2086
NBW_FAKE_FAULT=emptyms=3500 src warm-src $LONG --source mem -q 2
sink_status
jv warm-sink 'd["rdma"]["bytes"]' 'd.get("rdma_check")' 'd.get("rdma_unchecked_reason")'
echo "# real warm-up, empty window: sink exit $SINK_RC, figure ${J[0]}, check ${J[1]} ${J[2]}"
if [ "$SINK_RC" = 1 ]; then
	check_match "warm-up: refused against its window's payload" \
		"implausible result: it claims [0-9]+ bytes, more than the [0-9]+ bytes of payload the [0-9]+ packets its ports received from its window's start" \
		"$(cat "$TMPD/warm-sink.err")"
else
	check_eq "warm-up: refused (exit 1), never taken as checked" "1" "$SINK_RC ${J[1]}"
fi
finish
