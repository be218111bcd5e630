#!/bin/bash
# Lab test of rails: two nodes with two NICs each (rxe0, rxe1, each
# pair of NICs its own link and subnet). A sink on a, a source on b with 4
# workers on one drive:
#   verbs   the default connection (QP attributes over the control channel)
#   cm      -R (rdma_cm)
#           each of the two rails carries 35-65% of the RDMA bytes on both
#           sides' "rails", the rails add up to the totals, verification PASS
#   src1    the source told -d rxe1: only the second rail carries bytes
#   sink0   the sink told -d rxe0: it never receives on rxe1
#   noaddr  the data rail's IPv4 addresses removed on both nodes: the verbs
#           connection needs none, both rails still carry their share
#   perftest  "-d rxe0 -t 128 -q 2 -s 64K": 2 QPs per drive, 128 WRITEs of 64K in flight each
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lab_lib.sh"

run_lab --nodes 2 --nics 2 --drives 1 --drive-size 64M --timeout 400 \
	--on-b "$srcdir/tests/lab/remote_rails_b.sh" "$srcdir/tests/lab/remote_rails_a.sh"
[ "$vlab_rc" = 0 ] || fail "vlab returned $vlab_rc"
assert_no_qemu
A=$WORK/a/out B=$WORK/b/out
j() { "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
ok_run() { # NAME: both sides exit 0 and verify pass
	[ "$(cat "$A/$1.sink.rc")" = 0 ] && [ "$(cat "$B/$1.src.rc")" = 0 ] ||
		fail "$1: exits $(cat "$A/$1.sink.rc") $(cat "$B/$1.src.rc"): $(cat "$A/$1.sink.err" "$B/$1.src.err")"
	[ "$(j "$A/$1.sink.json" 'd["verify"]')" = pass ] || fail "$1: sink verify not pass"
}
# share SIDE-JSON DEV: the share of the RDMA bytes on the rails whose local port is DEV.
share() { j "$1" "sum(r['bytes'] for r in d['rails'] if r['local_dev'] == '$2') / max(1, d['rdma']['bytes'])"; }
sums() { j "$1" "sum(r['bytes'] for r in d['rails']) == d['rdma']['bytes'] and sum(r['qps'] for r in d['rails']) == d['workers']"; }

for n in verbs cm noaddr; do
	ok_run $n
	for side in "$A/$n.sink.json" "$B/$n.src.json"; do
		[ "$(sums "$side")" = True ] || fail "$n: rails do not add up: $(j "$side" 'd["rails"]')"
		[ "$(j "$side" 'len(d["rails"])')" = 2 ] || fail "$n: not two rails: $(j "$side" 'd["rails"]')"
		for dev in rxe0 rxe1; do
			s=$(share "$side" $dev)
			[ "$(echo "$s >= 0.35 && $s <= 0.65" | bc)" = 1 ] ||
				fail "$n: $dev carried $s of the bytes on $(j "$side" 'd["role"]'): $(j "$side" 'd["rails"]')"
		done
	done
	note "$n: rails $(j "$A/$n.sink.json" '", ".join("%s<-%s:%s %d QPs %.3f GB/s" % (r["local_dev"], r["remote_dev"], r["remote_port"], r["qps"], r["gb_per_s"]) for r in d["rails"])')"
done
[ "$(j "$A/cm.sink.json" 'd["params"]["connection"]')" = rdma_cm ] || fail "cm: not rdma_cm"
[ "$(j "$A/verbs.sink.json" 'd["params"]["connection"]')" = verbs ] || fail "verbs: not verbs"

ok_run src1
[ "$(j "$B/src1.src.json" '[r["local_dev"] for r in d["rails"] if r["bytes"] > 0]')" = "['rxe1']" ] ||
	fail "src1: rails with bytes: $(j "$B/src1.src.json" 'd["rails"]')"
ok_run sink0
[ "$(j "$A/sink0.sink.json" 'sorted(set(r["local_dev"] for r in d["rails"]))')" = "['rxe0']" ] ||
	fail "sink0: the sink received on: $(j "$A/sink0.sink.json" 'd["rails"]')"
note "-d rxe1 on the source: $(j "$B/src1.src.json" '[(r["local_dev"], r["bytes"]) for r in d["rails"]]'); -d rxe0 on the sink: $(j "$A/sink0.sink.json" '[(r["local_dev"], r["bytes"]) for r in d["rails"]]')"

ok_run perftest
[ "$(j "$B/perftest.src.json" 'd["params"]["depth"] == 128 and d["params"]["chunk"] == 65536 and d["workers"] == 2')" = True ] ||
	fail "perftest line: depth/workers $(j "$B/perftest.src.json" '(d["params"]["depth"], d["workers"])')"
note "perftest's -t 128 -q 2 -s 64K: 2 QPs per drive, 128 WRITEs of 64K in flight each, verify pass"
assert_images_unchanged b
echo "PASS: $test_name"
