# Part "evidence" of remote_pair.sh: what the hardware counted, on both ends of a two-node
# run over Soft-RoCE. Both JSON documents carry their ports' counter deltas (rxe keeps
# driver counters, hw_counters, and no port data counters: the sink's figure is within
# the packets it received x the port's MTU and labelled unchecked, since packets bound no
# payload, never held against a made-up 0) and their
# drive's PCIe link under load
# with its AER counts (a count the device does not keep is "not kept", never 0). Then
# node b's NIC slowed by a traffic shaper: whatever the emulator makes of the run, both
# ends print their counters (the sink all of them, -W) and the shaper was in place.
# What moved and how fast the shaped run went are the emulator's to decide: said, not
# asserted. Sourced by remote_pair.sh in a subshell (A, B, jq_, fail, note).
# shellcheck shell=bash
for f in "$A/sink.rc" "$B/src.rc"; do
	[ "$(cat "$f")" = 0 ] || fail "$f: exit $(cat "$f"): $(cat "$A/sink.err" "$B/src.err")"
done
# Both ends: the ports' deltas, rxe's driver counters kept, its port data counters not.
for j in "$A/sink.json" "$B/src.json"; do
	[ "$(jq_ "$j" '[p["device"] for p in d["counters"]] == ["rxe0"] and isinstance(d["counters"][0]["hw_counters"]["rcvd_pkts"], int) and d["counters"][0]["hw_counters"]["sent_pkts"] > 0 and d["counters"][0]["counters"].get("port_rcv_data") is None and d["counters"][0]["seconds"] > 0 and bool(d["counters_span"])')" = True ] ||
		fail "$j: no rxe0 counter deltas: $(jq_ "$j" '(d.get("counters_span"), d.get("counters"))')"
	# The drive's link under load and its AER counts; no software port among the devices.
	[ "$(jq_ "$j" 'any(x["kind"] == "nvme" and x["link_under_load"]["before"]["width"] is not None and x["link_under_load"]["samples"] >= 2 and isinstance(x["link_under_load"]["dropped"], bool) and all(v == "not kept" or isinstance(v["delta"], int) for v in x["aer"].values()) for x in d["pcie_under_load"]) and all(x["name"] != "rxe0" for x in d["pcie_under_load"])')" = True ] ||
		fail "$j: no drive's link under load: $(jq_ "$j" 'd.get("pcie_under_load")')"
done
# rxe keeps no port_rcv_data: the figure is held within rcvd_pkts x the port's MTU (1024
# bytes on the lab's 1500-byte Ethernet), which the honest source's payload fits within, but
# packets bound no payload (an empty one counts as a full one): labelled unchecked, and why.
[ "$(jq_ "$A/sink.json" 'd["rdma_check"], d["rdma_received_bytes"], "packets" in d["rdma_unchecked_reason"], 0 < d["rdma"]["bytes"] <= 1024 * d["counters"][0]["hw_counters"]["rcvd_pkts"]')" = "('unchecked', None, True, True)" ] ||
	fail "sink: the figure must be within rcvd_pkts x 1024 and unchecked: $(jq_ "$A/sink.json" '(d.get("rdma_check"), d.get("rdma_unchecked_reason"), d["rdma"]["bytes"])')"
[ "$(jq_ "$A/sink.json" 'd["counters"][0]["hw_counters"]["rcvd_pkts"] > 0')" = True ] ||
	fail "sink: its rxe0 received no packet over the run"
note "sink rxe0: $(jq_ "$A/sink.json" '", ".join("%s %s" % (k, v) for k, v in d["counters"][0]["hw_counters"].items() if v)')"
note "sink drive: $(jq_ "$A/sink.json" '[(x["name"], x["link_under_load"]["before"], x["aer"]) for x in d["pcie_under_load"]]')"

# The shaped NIC: the shaper was there; both ends printed their counters, however it ended.
[ "$(cat "$B/tc.rc")" = 0 ] || fail "tc qdisc add failed: $(cat "$B/tc.err")"
grep -q "qdisc tbf" "$B/tc.show" || fail "no tbf qdisc on node b during the run: $(cat "$B/tc.show")"
src_rc=$(cat "$B/shaped.src.rc") sink_rc=$(cat "$A/shaped.sink.rc")
[ "$src_rc" = 0 ] || [ "$src_rc" = 1 ] || fail "shaped: source exit $src_rc (neither done nor failed in its bound)"
[ "$(jq_ "$B/shaped.src.json" '[p["device"] for p in d["counters"]] == ["rxe0"]')" = True ] ||
	fail "shaped: the source's counters are missing: $(cat "$B/shaped.src.json")"
grep -qE "^ Port counters   : from (START|the window's start) to .*, all of them" "$A/shaped.sink.out" ||
	fail "shaped: the sink printed no counters (exit $sink_rc): $(cat "$A/shaped.sink.out" "$A/shaped.sink.err")"
grep -q "^  rxe0:1 " "$A/shaped.sink.out" && grep -q " rcvd_pkts [0-9]" "$A/shaped.sink.out" ||
	fail "shaped: no rxe0 line with its counters: $(cat "$A/shaped.sink.out")"
if [ "$sink_rc" = 0 ]; then
	grep -q "RDMA: reported by the source, unchecked: the sink's ports count packets" "$A/shaped.sink.out" ||
		fail "shaped: the sink's figure is not said unchecked (packets only): $(cat "$A/shaped.sink.out")"
fi
note "shaped run: exits $sink_rc (sink) $src_rc (source); RDMA $(jq_ "$B/src.json" 'd["rdma"]["gb_per_s"]') GB/s plain, $(jq_ "$B/shaped.src.json" 'd["rdma"]["gb_per_s"]') GB/s shaped"
note "shaped source rxe0, what moved: $(jq_ "$B/shaped.src.json" '", ".join("%s %s" % (k, v) for k, v in d["counters"][0]["hw_counters"].items() if v)')"
note "shaper: $(grep -m1 -E 'dropped|overlimits' "$B/tc.show")"
