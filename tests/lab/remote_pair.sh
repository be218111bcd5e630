#!/bin/bash
# Lab test of nvme_write_bw_remote between two nodes: one lab boot, four parts
# one after the other (remote_pair_guest.sh), each checked by its own file:
#   access    strangers at the sink's door (remote_access_check.sh)
#   bidir     --bidir on both nodes (remote_bidir_check.sh)
#   two_node  sink on a, source on b, a late source, the network gone
#             (remote_two_node_check.sh)
#   bounds    the run's budget: a frozen peer, a link down, a hung teardown
#             (remote_bounds_check.sh)
#   evidence  both ends' counter deltas and drives' links under load in JSON; node b's
#             NIC slowed by a traffic shaper (remote_evidence_check.sh)
# Every part is checked even when one before it failed; the test fails naming
# the parts that did. $NBW_PAIR_PARTS runs some of them, in its order (to look
# at one part without the others). The drives are unchanged at the end.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lab_lib.sh"

ALL="access bidir two_node bounds evidence"
parts=${NBW_PAIR_PARTS:-$ALL}
for p in $parts; do
	case " $ALL " in
	*" $p "*) ;;
	*) fail "NBW_PAIR_PARTS: no part '$p' (the parts: $ALL)" ;;
	esac
done
[ -n "${parts// /}" ] || fail "NBW_PAIR_PARTS: no part named (the parts: $ALL)"

G=$srcdir/tests/lab/remote_pair_guest.sh
# The parts took 36, 21, 42 and 87 s in a CI run (55, 26, 56 and 105 s beside the other
# tests), evidence 19 s beside three other labs waiting; each step inside is bounded, so
# 600 s is only the backstop.
# shellcheck disable=SC2086 # parts: words, one argument each
run_lab --nodes 2 --drives 1 --drive-size 64M --timeout 600 --on-b "$G" "$G" $parts
[ "$vlab_rc" = 0 ] || fail "vlab returned $vlab_rc"
assert_no_qemu

# jq_ FILE EXPR: EXPR on the JSON in FILE (as d), for the part checks.
jq_() { "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
failed=
for p in $parts; do
	A=$WORK/a/out/$p B=$WORK/b/out/$p
	note "part $p: node scripts exit $(cat "$A/script.rc" 2>&1) (a), $(cat "$B/script.rc" 2>&1) (b)"
	# Each part's check in a subshell, under a test_name of its own; fail ends it alone.
	# shellcheck disable=SC2030 source=/dev/null
	if (test_name=$test_name/$p && . "$srcdir/tests/lab/remote_${p}_check.sh"); then
		note "part $p: checks passed"
	else
		failed="$failed $p"
	fi
done
assert_images_unchanged a
assert_images_unchanged b
[ -z "$failed" ] || fail "parts that failed:$failed"
# shellcheck disable=SC2031 # the test's own name: the parts changed only their copies
echo "PASS: $test_name"
