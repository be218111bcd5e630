#!/bin/bash
# Lab test of nvme_write_bw_remote on one node (rxe0 loopback): drives on both
# sides with full verification PASS (and two sources into one sink over
# rdma_cm, -R --sources 2), and the bytes of one sink slice equal the
# source drive's backing file at the offsets the sink reports; the combined
# table adds local and RDMA; a -s 4K run prints the message rate on both
# sides and, with --latency, the source's WRITE latency percentiles; a
# corrupted canary FAILs (exit 1); a parameter mismatch fails the source and is logged by the sink, which keeps waiting
# until --wait; a stranger on the port is dropped while the sink
# keeps serving; a killed source makes the sink exit 1 within its bound; a
# stopped (silent) source is seen by the sink within --timeout; a wrong
# device, no ACTIVE port, a port in use and a peer that never comes fail
# cleanly; -x 9 (no GID there on rxe0) is refused with its GIDs, exit 2, by
# the device's name and by its netdev's; --list-ports shows rxe0, its netdev
# and its RoCE v2 IPv4 GID.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lab_lib.sh"

run_lab --drives 2 --drive-size 64M --timeout 420 "$srcdir/tests/lab/remote_loopback_guest.sh"
[ "$vlab_rc" = 0 ] || fail "vlab returned $vlab_rc"
assert_no_qemu
O=$WORK/a/out
rc() { cat "$O/$1.rc" 2>/dev/null || echo missing; }
jq_() { "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

[ "$(rc disk.sink)" = 0 ] || fail "disk: sink exit $(rc disk.sink): $(cat "$O/disk.sink.err")"
[ "$(rc disk.src)" = 0 ] || fail "disk: source exit $(rc disk.src): $(cat "$O/disk.src.err")"
[ "$(jq_ "$O/disk.sink.out" 'd["verify"]')" = pass ] || fail "disk: sink verify not pass"
[ "$(jq_ "$O/disk.src.out" 'd["verify"]')" = pass ] || fail "disk: source verify not pass"
[ "$(jq_ "$O/disk.sink.out" 'd["total"]["bytes"] == d["local"]["bytes"] + d["rdma"]["bytes"] and d["local"]["bytes"] > 0 and d["rdma"]["bytes"] > 0')" = True ] ||
	fail "disk: total is not local + RDMA (both non-zero)"
[ "$(jq_ "$O/disk.sink.out" 'd["rdma"]["bytes"]')" = "$(jq_ "$O/disk.src.out" 'd["rdma"]["bytes"]')" ] ||
	fail "disk: the sink's RDMA bytes are not the source's"
note "disk: PASS, local $(jq_ "$O/disk.sink.out" 'd["local"]["gb_per_s"]') + RDMA $(jq_ "$O/disk.sink.out" 'd["rdma"]["gb_per_s"]') GB/s"

# The dumped slice against the source drive's backing file (node a, drive 1).
[ -s "$O/slice.bin" ] && [ -s "$O/slice.bin.map" ] || fail "no slice dump"
"$PY" "$srcdir/tests/lab/remote_slice_check.py" "$O/slice.bin" "$O/slice.bin.map" "$WORK/images/a1.img" 1048576 "the drive" ||
	fail "slice differs from the drive"

[ "$(rc uring.sink)" = 0 ] && [ "$(rc uring.src)" = 0 ] ||
	fail "io_uring source: exits $(rc uring.sink) $(rc uring.src): $(cat "$O/uring.sink.err" "$O/uring.src.err")"
[ "$(jq_ "$O/uring.sink.out" 'd["verify"] == "pass" and d["rdma"]["bytes"] > 0')" = True ] ||
	fail "io_uring source: verify not pass"
note "io_uring source: PASS (full), RDMA $(jq_ "$O/uring.sink.out" 'd["rdma"]["gb_per_s"]') GB/s"
[ "$(rc sizes.sink)" = 0 ] && [ "$(rc sizes.src)" = 0 ] ||
	fail "-a: exits $(rc sizes.sink) $(rc sizes.src): $(cat "$O/sizes.sink.err" "$O/sizes.src.err")
$(tail -c 3000 "$O/sizes.sink.out"; echo; tail -c 3000 "$O/sizes.src.out")"
for side in sink src; do
	[ "$(jq_ "$O/sizes.$side.out" 'd["complete"] and [p["size"] for p in d["sweep"]["points"]] == [2 << i for i in range(23)] and len(d["sizes"]) == 23 and [x["verify"] for x in d["sizes"]] == ["off"] * 11 + ["pass"] * 12 and all(p["gb_per_s"] > 0 for p in d["sweep"]["points"])')" = True ] ||
		fail "-a ($side): not 23 sizes 2..8M with a rate each, verified from 4K"
done
[ "$(jq_ "$O/sizes.sink.out" '[x["params"]["chunk"] for x in d["sizes"]] == [2 << i for i in range(23)]')" = True ] ||
	fail "-a: the sink's runs are not at 2..8M"
note "-a: PASS, $(jq_ "$O/sizes.sink.out" '" ".join("%d:%.4f" % (p["size"], p["gb_per_s"]) for p in d["sweep"]["points"])') (bytes:GB/s)"

# Small blocks: the message rate on both sides, the source's latency percentiles.
[ "$(rc small.sink)" = 0 ] && [ "$(rc small.src)" = 0 ] ||
	fail "-s 4K: exits $(rc small.sink) $(rc small.src): $(cat "$O/small.sink.err" "$O/small.src.err")"
[ "$(jq_ "$O/small.src.out" '(t := d["total"]) and d["params"]["chunk"] == 4096 and t["bytes"] > 0 and abs(t["writes_per_s"] - t["bytes"] / 4096 / t["seconds"]) <= 2e-5 * t["writes_per_s"] and abs(sum(r["writes_per_s"] for r in d["rails"]) - t["writes_per_s"]) <= 1e-4 * t["writes_per_s"] and d["drives"][0]["writes_per_s"] > 0')" = True ] ||
	fail "-s 4K: the source's message rate is not its bytes / 4096 / seconds in every row: $(cat "$O/small.src.out")"
[ "$(jq_ "$O/small.src.out" '(l := d["total"]["latency_us"]) and 0 < l["min"] <= l["p50"] <= l["p90"] <= l["p99"] <= l["p99.9"] <= l["p99.99"] <= l["max"] and l["min"] <= l["mean"] <= l["max"] and abs(l["count"] - d["total"]["bytes"] / 4096) <= max(2 * 2 * 4, 0.05 * d["total"]["bytes"] / 4096)')" = True ] ||
	fail "-s 4K: the source's latency percentiles are missing, out of order or not the window's WRITEs: $(cat "$O/small.src.out")"
[ "$(jq_ "$O/small.sink.out" 'd["verify"] == "pass" and abs(d["rdma"]["writes_per_s"] - d["rdma"]["bytes"] / 4096 / d["rdma"]["seconds"]) <= 2e-5 * d["rdma"]["writes_per_s"]')" = True ] ||
	fail "-s 4K: the sink's message rate or verdict: $(cat "$O/small.sink.out")"
note "-s 4K: $(jq_ "$O/small.src.out" '(t := d["total"], l := t["latency_us"]) and "%.0f WRITE/s, %.4f GB/s; WRITE latency us: p50 %.1f p99 %.1f p99.9 %.1f max %.1f (%d WRITEs)" % (t["writes_per_s"], t["gb_per_s"], l["p50"], l["p99"], l["p99.9"], l["max"], l["count"])')"

[ "$(rc fanr.sink)" = 0 ] && [ "$(rc fanr.src1)" = 0 ] && [ "$(rc fanr.src2)" = 0 ] ||
	fail "-R --sources 2: exits $(rc fanr.sink) $(rc fanr.src1) $(rc fanr.src2): $(cat "$O/fanr.sink.err" "$O/fanr.src1.err" "$O/fanr.src2.err")"
[ "$(jq_ "$O/fanr.sink.out" 'd["sources_admitted"] == 2 and d["verify"] == "pass" and d["params"]["connection"] == "rdma_cm" and all(s["ok"] and s["rdma"]["bytes"] > 0 for s in d["sources"])')" = True ] ||
	fail "-R --sources 2: not two verified sources over rdma_cm: $(cat "$O/fanr.sink.out")"
note "-R --sources 2: PASS, RDMA sum $(jq_ "$O/fanr.sink.out" 'd["rdma"]["gb_per_s"]') GB/s"

[ "$(rc corrupt.sink)" = 1 ] || fail "corrupt: sink exit $(rc corrupt.sink)"
[ "$(rc corrupt.src)" = 1 ] || fail "corrupt: source exit $(rc corrupt.src)"
grep -q "RDMA data verification: FAIL" "$O/corrupt.sink.out" || fail "corrupt: no FAIL line"
note "corrupted canary: FAIL, exit 1 on both sides"

[ "$(rc mismatch.sink)" = 1 ] && [ "$(rc mismatch.src)" = 1 ] || fail "mismatch: exits $(rc mismatch.sink) $(rc mismatch.src)"
grep -q "refused: parameter mismatch.*depth: sink 4, source 8; still waiting" "$O/mismatch.sink.err" || fail "mismatch: sink message"
grep -q "no source connected within 5 s" "$O/mismatch.sink.err" || fail "mismatch: the sink did not wait on"
grep -q "refused: parameter mismatch.*depth: sink 4, source 8" "$O/mismatch.src.err" || fail "mismatch: source message"
note "mismatch: $(cat "$O/mismatch.src.err")"

[ "$(rc stranger.sink)" = 0 ] && [ "$(rc stranger.src)" = 0 ] || fail "stranger: exits $(rc stranger.sink) $(rc stranger.src): $(cat "$O/stranger.sink.err")"
grep -q "connection dropped: not the nvme_write_bw_remote protocol" "$O/stranger.sink.err" || fail "stranger: no log line"
note "stranger dropped, then served: $(grep dropped "$O/stranger.sink.err")"

[ "$(rc kill.sink)" = 1 ] || fail "kill: sink exit $(rc kill.sink)"
[ "$(cat "$O/kill.sink.secs")" -le 11 ] || fail "kill: sink took $(cat "$O/kill.sink.secs") s"
grep -q "went away" "$O/kill.sink.err" || fail "kill: message: $(cat "$O/kill.sink.err")"
note "killed source: sink exit 1 after $(cat "$O/kill.sink.secs") s: $(grep -v waiting "$O/kill.sink.err")"

[ "$(rc stop.sink)" = 1 ] || fail "stop: sink exit $(rc stop.sink): $(cat "$O/stop.sink.err")"
[ "$(rc stop.src)" = 1 ] || fail "stop: source exit $(rc stop.src)"
grep -q "the source went silent: nothing on the control channel for 3 s" "$O/stop.sink.err" ||
	fail "stop: message: $(cat "$O/stop.sink.err")"
[ "$(echo "$(cat "$O/stop.sink.secs") <= 3 + 1.5" | bc)" = 1 ] || fail "stop: the sink took $(cat "$O/stop.sink.secs") s"
[ "$(jq_ "$O/stop.sink.out" 'd["ok"] is False and d["rdma_reported_by"] == "heartbeat" and d["rdma"]["bytes"] > 0')" = True ] ||
	fail "stop: the sink did not print the last heartbeat's figures"
note "stopped source: sink exit 1 after $(cat "$O/stop.sink.secs") s: $(grep silent "$O/stop.sink.err")"

[ "$(rc noport.sink)" = 1 ] && grep -q "rxe0: no ACTIVE port" "$O/noport.sink.err" || fail "no ACTIVE port (sink): $(rc noport.sink) $(cat "$O/noport.sink.err")"
[ "$(rc noport.src)" = 1 ] && grep -q "rxe0: no ACTIVE port" "$O/noport.src.err" || fail "no ACTIVE port (source): $(rc noport.src) $(cat "$O/noport.src.err")"
note "no ACTIVE port: $(cat "$O/noport.src.err")"

[ "$(rc baddev)" = 1 ] && grep -q "nosuch0: no such RDMA device" "$O/baddev.err" || fail "bad device: $(cat "$O/baddev.err")"
[ "$(rc badgid)" = 2 ] && [ "$(wc -l <"$O/badgid.err")" = 1 ] &&
	grep -q "rxe0:1: no GID with index 9 (-x 9); its GIDs: 0 RoCE v[12] " "$O/badgid.err" ||
	fail "-x 9: exit $(rc badgid): $(cat "$O/badgid.err")"
[ "$(rc badgid.nd)" = 2 ] && grep -q "rxe0:1: no GID with index 9" "$O/badgid.nd.err" ||
	fail "-d NETDEV -x 9: exit $(rc badgid.nd): $(cat "$O/badgid.nd.err")"
note "-x 9: $(cat "$O/badgid.err")"
nd=$(guest_env a VLAB_NETDEV)
[ "$(rc ports)" = 0 ] && [ "$(jq_ "$O/ports.out" '[(p["device"], p["netdev"], any(g["type"] == "RoCE v2" and g["gid"].startswith("::ffff:") for g in p["gids"])) for p in d["ports"]] == [("rxe0", "'"$nd"'", True)]')" = True ] ||
	fail "--list-ports: exit $(rc ports): $(cat "$O/ports.out" "$O/ports.err")"
note "--list-ports: $(jq_ "$O/ports.out" '[(p["device"], p["netdev"], len(p["gids"])) for p in d["ports"]]')"
[ "$(rc inuse)" = 1 ] && grep -q "Address already in use" "$O/inuse.err" || fail "port in use: $(cat "$O/inuse.err")"
[ "$(rc nopeer)" = 1 ] && grep -q "no source connected within 3 s" "$O/nopeer.err" || fail "no peer: $(cat "$O/nopeer.err")"
[ "$(echo "$(cat "$O/nopeer.wait.secs") <= 4.5" | bc)" = 1 ] ||
	fail "no peer: $(cat "$O/nopeer.wait.secs") s from listening to the exit, --wait 3"
[ "$(echo "$(cat "$O/nopeer.secs") <= 15" | bc)" = 1 ] || fail "no peer: took $(cat "$O/nopeer.secs") s in all"
note "no peer: $(cat "$O/nopeer.wait.secs") s from listening to the exit (--wait 3), $(cat "$O/nopeer.secs") s in all"
[ ! -s "$O/leftover" ] || fail "processes left: $(cat "$O/leftover")"
assert_images_unchanged a
echo "PASS: $test_name"
