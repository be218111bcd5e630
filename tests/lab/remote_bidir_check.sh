# Part "bidir" of remote_pair.sh, nvme_write_bw_remote --bidir between two nodes: each node is a
# sink and a source at once, node a's drive goes into node b's DRAM and node
# b's into node a's, in one window (>= 97% overlap); both directions verified (full) on both
# sides; what a sent is what b received and the other way round; each side's
# JSON has both directions, and their sum is their sum, with the verdict on it
# (whether it holds is the emulator's timing: the rule is proven in
# tests/remote/printer.sh and fake_modes.sh); the drives are unchanged.
# Sourced by remote_pair.sh in a subshell: A and B are nodes a's and b's outputs of
# this part (remote_bidir_guest.sh on both); fail ends the part;
# jq_ FILE EXPR (remote_pair.sh) reads their JSON.
# shellcheck shell=bash
for n in a b; do
	O=$A
	[ $n = b ] && O=$B
	[ "$(cat "$O/bidir.rc")" = 0 ] || fail "node $n: exit $(cat "$O/bidir.rc"): $(cat "$O/bidir.err")"
	[ "$(jq_ "$O/bidir.json" 'd["role"] == "bidir" and d["send"]["role"] == "source" and d["receive"]["role"] == "sink" and d["exit_status"] == 0')" = True ] ||
		fail "node $n: not both roles in the JSON"
	[ "$(jq_ "$O/bidir.json" 'd["send"]["verify"] == "pass" and d["receive"]["verify"] == "pass" and d["send"]["params"]["verify_mode"] == "full"')" = True ] ||
		fail "node $n: a direction not verified (full)"
	[ "$(jq_ "$O/bidir.json" '(d["receive"].get("local") or {}).get("bytes", 0) == 0')" = True ] ||
		fail "node $n: its sink read drives of its own"
	[ "$(jq_ "$O/bidir.json" '(b := d["bidir"]) and abs(b["sum_gb_per_s"] - b["send_gb_per_s"] - b["receive_gb_per_s"]) < 1e-6 and b["send_gb_per_s"] > 0 and b["receive_gb_per_s"] > 0 and 0 <= b["overlap_pct"] <= 100')" = True ] ||
		fail "node $n: the sum is not send + receive (both > 0)"
	# Each sink holds its START until its own source waits: the directions start together
	# (without that, 96% here; with it, 99.3-99.9%), but how closely is the emulator's
	# timing: the verdict on the sum is given, whichever it is.
	[ "$(jq_ "$O/bidir.json" '(b := d["bidir"]) and (b["sum_valid"] is True and b["sum_invalid_reason"] is None or b["sum_valid"] is False and bool(b["sum_invalid_reason"]))')" = True ] ||
		fail "node $n: no verdict on the sum: $(jq_ "$O/bidir.json" 'd["bidir"]')"
	note "node $n: $(jq_ "$O/bidir.json" '(b := d["bidir"]) and "send %.4f + receive %.4f = %.4f GB/s, overlap %.1f%%, valid %s %s" % (b["send_gb_per_s"], b["receive_gb_per_s"], b["sum_gb_per_s"], b["overlap_pct"], b["sum_valid"], b["sum_invalid_reason"] or "")')"
	[ "$(cat "$O/bidir.txt.rc")" = 0 ] || fail "node $n: text run exit $(cat "$O/bidir.txt.rc"): $(cat "$O/bidir.txt")"
	grep -Eq '^ sum of both directions +[0-9.]+  \((valid|NOT valid)\)$' "$O/bidir.txt" ||
		fail "node $n: no sum line with its verdict in the text report"
	grep -q '=== receive: ' "$O/bidir.txt" && grep -q '=== send: ' "$O/bidir.txt" ||
		fail "node $n: the text report lacks a direction"
done
sed -n '/^--bidir with/,$p' "$A/bidir.txt"
A=$A/bidir.json B=$B/bidir.json
[ "$(jq_ "$A" 'd["send"]["rdma"]["bytes"]')" = "$(jq_ "$B" 'd["receive"]["rdma"]["bytes"]')" ] ||
	fail "a sent $(jq_ "$A" 'd["send"]["rdma"]["bytes"]') bytes, b received $(jq_ "$B" 'd["receive"]["rdma"]["bytes"]')"
[ "$(jq_ "$B" 'd["send"]["rdma"]["bytes"]')" = "$(jq_ "$A" 'd["receive"]["rdma"]["bytes"]')" ] ||
	fail "b sent $(jq_ "$B" 'd["send"]["rdma"]["bytes"]') bytes, a received $(jq_ "$A" 'd["receive"]["rdma"]["bytes"]')"
