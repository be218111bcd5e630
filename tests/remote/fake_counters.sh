#!/bin/bash
# fake_counters.sh: the ports' counters on both ends and the sink's own evidence, over the
# fake fabric whose ports count what they send and receive as a NIC does (4-byte words,
# headers included; tests/remote/fake_fabric.c):
# - an honest source: both ends' counter deltas in the JSON (every counter, null where the
#   port keeps none) and beside the figures in the text (those that moved; all with -W),
#   and the sink's figure checked against what its ports received;
# - a source that claims 3 x what it wrote (tests/remote/inflate_remote, $NBW_INFLATE):
#   refused as implausible in one line, exit 1, and no RDMA figure left behind (not even
#   its last heartbeat);
#   the same on software ports, which have no line rate to bound it by;
# - the same lie where the sink's ports count packets only (":nocnt", as Soft-RoCE):
#   refused against packets x MTU, an honest source taken, but labelled unchecked (packets
#   x MTU bounds no payload: tests/remote/fake_empty_writes.sh);
# - the same lie where they keep no receive count at all (":nocnt:nopkts"): taken, but
#   labelled "reported by the source, unchecked" in text and JSON;
# - ports whose retransmission and CNP counters move (":lossy", ":ecn"): the report's
#   attribution names them and what that usually means, in text and JSON.
. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/remote/fake_lib.sh"

INFLATE=$abs_top_builddir/tests/remote/inflate_remote
[ -x "$INFLATE" ] || skip "$INFLATE not built"

# 1. An honest source, both reports in JSON.
pair honest "--no-local --dram 4M --json" "--source mem -q 2 --json"
check_eq "honest: exits" "0 0" "$SINK_RC $SRC_RC"
jv honest-sink 'd["rdma"]["bytes"] > 0' 'd["rdma_check"]' \
	'd["rdma_received_bytes"] >= d["rdma"]["bytes"]' \
	'" ".join("%s:%d" % (p["device"], p["port"]) for p in d["counters"])' \
	'all(p["counters"]["port_rcv_data"] > 0 for p in d["counters"])' \
	'4 * sum(p["counters"]["port_rcv_data"] for p in d["counters"]) == d["rdma_received_bytes"]' \
	'd["counters"][0]["counters"]["symbol_error"], d["counters"][0]["hw_counters"]["np_cnp_sent"]' \
	'd["counters"][0]["hw_counters"]["rcvd_pkts"] == d["counters"][0]["counters"]["port_rcv_packets"] > 0'
check_eq "honest: the sink has a figure" True "${J[0]}"
check_eq "honest: checked against the sink's ports" "received" "${J[1]}"
check_eq "honest: its ports received at least the figure" True "${J[2]}"
check_eq "honest: the sink's ports' counters" "fake0:1 fake1:1" "${J[3]}"
check_eq "honest: each port received" True "${J[4]}"
check_eq "honest: received bytes = 4 x port_rcv_data" True "${J[5]}"
check_eq "honest: counters the port does not keep are null" "(None, None)" "${J[6]}"
check_eq "honest: driver and port packet counts agree" True "${J[7]}"
jv honest-src 'd["rdma"]["bytes"]' \
	'sum(p["counters"]["port_xmit_data"] for p in d["counters"]) * 4 >= d["rdma"]["bytes"] > 0' \
	'sum(p["counters"]["port_rcv_data"] for p in d["counters"])'
check_eq "honest: the source's ports sent at least its figure" True "${J[1]}"
check_eq "honest: the source's ports received nothing" 0 "${J[2]}"

# The text: the deltas that moved beside the figures; -W: all of them.
pair text "--no-local --dram 4M" "--source mem -q 2 -W"
check_eq "text: exits" "0 0" "$SINK_RC $SRC_RC"
out=$(cat "$TMPD/text-sink.out")
check_match "text: the sink's ports' deltas" "fake0:1 +port_rcv_data [1-9][0-9]* " "$out"
check_match "text: the check line" "checked against payload: the sink's ports received [0-9]+ bytes" "$out"
check_eq "text: without -W, a counter that did not move is not shown" 0 \
	"$(grep -c 'port_xmit_data\|symbol_error' "$TMPD/text-sink.out")"
src_out=$(cat "$TMPD/text-src.out")
check_match "text -W: the source's counters, the still ones too" "port_rcv_data 0" "$src_out"
check_match "text -W: a counter the port does not keep" "symbol_error not kept" "$src_out"

# 2. A source that claims 3 x what it wrote: refused, and no figure left behind.
FAKE=$INFLATE
# shellcheck disable=SC2086
sink x3-sink $RUN --no-local --dram 4M --json
# shellcheck disable=SC2086
NBW_INFLATE=3 src x3-src $RUN --source mem -q 2
sink_status
check_eq "x3: the sink refuses (exit 1)" 1 "$SINK_RC"
check_match "x3: one line says why" \
	"implausible result: it claims [0-9]+ bytes, more than the [0-9]+ bytes of payload the [0-9]+ packets its ports received" \
	"$(cat "$TMPD/x3-sink.err")"
check_eq "x3: one line" 1 "$(grep -c 'implausible' "$TMPD/x3-sink.err")"
jv x3-sink 'd["rdma"]["bytes"]' 'd["rdma_reported_by"]' 'd["ok"]' 'len(d["rails"])'
check_eq "x3: no RDMA figure, not even a heartbeat's" "0 None False 0" "${J[*]}"

# Software ports (no line rate to bound a claim by, as Soft-RoCE's): the counters still do.
SINK_FAKE_PORTS="fake0:1:eth:127.0.1.1/24:100:sw,fake1:1:eth:127.0.2.1/24:100:sw"
# shellcheck disable=SC2086
sink sw-sink $RUN --no-local --dram 4M --json
# shellcheck disable=SC2086
NBW_INFLATE=3 src sw-src $RUN --source mem -q 2
sink_status
jv sw-sink 'd["rdma"]["bytes"]' 'd["rdma_check"]'
check_eq "x3 on software ports: refused, no figure" "1 0 received" "$SINK_RC ${J[0]} ${J[1]}"

# 3. Ports that count packets only (as Soft-RoCE): the lie refused against packets x MTU,
# an honest source taken, unchecked (an empty packet would count as a full one).
SINK_FAKE_PORTS="fake0:1:eth:127.0.1.1/24:100:nocnt,fake1:1:eth:127.0.2.1/24:100:nocnt"
# shellcheck disable=SC2086
sink pk3-sink $RUN --no-local --dram 4M --json
# shellcheck disable=SC2086
NBW_INFLATE=3 src pk3-src $RUN --source mem -q 2
sink_status
check_match "packets: x3 refused, in one line" \
	"implausible result: it claims [0-9]+ bytes, more than the [0-9]+ the packets its ports received from its window.s start to its result can carry \(packets x MTU\)" \
	"$(cat "$TMPD/pk3-sink.err")"
jv pk3-sink 'd["rdma"]["bytes"]' 'd["ok"]'
check_eq "packets: x3 refused, exit 1, no figure" "1 0 False" "$SINK_RC ${J[*]}"
# shellcheck disable=SC2086
sink pk-sink $RUN --no-local --dram 4M --json
# shellcheck disable=SC2086
src pk-src $RUN --source mem -q 2
sink_status
check_eq "packets: honest: taken (exit 0)" 0 "$SINK_RC"
jv pk-sink 'd["rdma_check"]' 'd["rdma_received_bytes"]' 'd["rdma"]["bytes"] > 0' \
	'd["rdma"]["bytes"] <= 4096 * sum(p["hw_counters"]["rcvd_pkts"] for p in d["counters"])'
check_eq "packets: honest: within packets x MTU, unchecked" "unchecked None True True" "${J[*]}"
# shellcheck disable=SC2086
sink pk2-sink $RUN --no-local --dram 4M
# shellcheck disable=SC2086
src pk2-src $RUN --source mem -q 2
sink_status
check_match "packets: said in the text" \
	"RDMA: reported by the source, unchecked: the sink's ports count packets, not bytes" \
	"$(cat "$TMPD/pk2-sink.out")"

# The same lie on ports that keep no receive count at all: taken, labelled unchecked.
SINK_FAKE_PORTS="fake0:1:eth:127.0.1.1/24:100:nocnt:nopkts,fake1:1:eth:127.0.2.1/24:100:nocnt:nopkts"
# shellcheck disable=SC2086
sink nocnt-sink $RUN --no-local --dram 4M --json
# shellcheck disable=SC2086
NBW_INFLATE=3 src nocnt-src $RUN --source mem -q 2
sink_status
check_eq "unchecked: taken (exit 0)" 0 "$SINK_RC"
jv nocnt-sink 'd["rdma_check"]' 'd["rdma_received_bytes"]' 'd["rdma"]["bytes"] > 0' \
	'd["counters"][0]["counters"]["port_rcv_data"]' 'd["counters"][0]["hw_counters"].get("rcvd_pkts")'
check_eq "unchecked: labelled, no received count, a figure" "unchecked None True" "${J[0]} ${J[1]} ${J[2]}"
check_eq "unchecked: neither port_rcv_data nor rcvd_pkts kept" "None None" "${J[3]} ${J[4]}"
# shellcheck disable=SC2086
sink nocnt2-sink $RUN --no-local --dram 4M -W
# shellcheck disable=SC2086
src nocnt2-src $RUN --source mem -q 2
sink_status
check_match "unchecked: said in the text" "reported by the source, unchecked" "$(cat "$TMPD/nocnt2-sink.out")"
# -W on ports that keep link_downed only among the driver's counters (as Soft-RoCE):
# the PMA's "not kept" and the driver's value, told apart, not "link_downed" twice.
check_eq "-W: the port's link_downed not kept, the driver's as hw:link_downed" "2 2 0" \
	"$(grep -c ' link_downed not kept' "$TMPD/nocnt2-sink.out") $(grep -c ' hw:link_downed 0' "$TMPD/nocnt2-sink.out") $(grep -c ' link_downed 0' "$TMPD/nocnt2-sink.out")"
unset SINK_FAKE_PORTS

# 4. The attribution: a port whose counters move names itself and what that usually means
# (":lossy": a retransmission per WRITE; ":ecn" too: a CNP per WRITE); quiet ports say nothing.
SINK_FAKE_PORTS="fake0:1:eth:127.0.1.1/24:100:lossy:ecn,fake1:1:eth:127.0.2.1/24:100"
SRC_FAKE_PORTS="fake0:1:eth:127.0.1.2/24:100:lossy,fake1:1:eth:127.0.2.2/24:100"
pair why "--no-local --dram 4M --json" "--source mem -q 2 --json"
check_eq "why: exits" "0 0" "$SINK_RC $SRC_RC"
# (the fake's two rails carry what the machine's scheduler gives each: one may be named
# below its peer, the emulator's noise; asserted here: the hops with a rule, rail or port)
P='[a for a in d["attribution"] if a["rules"]]'
jv why-sink "[(a['device'], [x['rule'] for x in a['rules']]) for a in $P]" \
	"${P}[0]['rules'][0]['moved']['retransmissions'] == ${P}[0]['rules'][0]['moved']['cnps'] > 0"
check_eq "why: the sink names its congested port, only it" "[('fake0', ['congestion'])]" "${J[0]}"
check_eq "why: retransmissions and CNPs counted, one per WRITE" True "${J[1]}"
jv why-src "[(a['device'], [x['rule'] for x in a['rules']]) for a in $P]" "${P}[0]['text']"
check_eq "why: the source's lossy port: loss, not congestion" "[('fake0', ['loss'])]" "${J[0]}"
check_match "why: in words" "^(port fake0:1:|rail fake0:1: [0-9]+% below its peers;) [0-9,]+ retransmissions in the window: packets lost or timed out without congestion notifications" "${J[1]}"
pair why-text "--no-local --dram 4M" "--source mem -q 2"
check_match "why: the text says it under the counters" \
	"Attribution +:.*(port fake0:1:|rail fake0:1: [0-9]+% below its peers;) [0-9,]+ retransmissions and [0-9,]+ CNPs and ECN marks in the window: congestion on that path" \
	"$(tr '\n' ' ' <"$TMPD/why-text-sink.out")"
SINK_FAKE_PORTS=$SINK_PORTS SRC_FAKE_PORTS=$SRC_PORTS pair quiet "--no-local --dram 4M --json" "--source mem -q 2 --json"
jv quiet-sink '[a for a in d.get("attribution", []) if a["rules"]]'
check_eq "why: no counter moved that a rule names: no rule said" "[]" "${J[0]}"
unset SINK_FAKE_PORTS SRC_FAKE_PORTS
finish
