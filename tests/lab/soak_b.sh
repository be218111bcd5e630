#!/bin/bash
# Node b of soak.sh: ROUNDS runs, each bounded. MODE one-way: a source, every other
# one 1 s late; bidir: --bidir with node a, as soak_a.sh.
set -u
. "$VLAB_SRCDIR/tests/lab/guest_lib.sh"
rounds=$1 mode=$2
[ "$mode" = bidir ] && exec bash "$VLAB_SRCDIR/tests/lab/soak_a.sh" "$rounds" bidir
# shellcheck disable=SC2086 # the drives' paths, a word each
set -- $VLAB_DRIVES
for r in $(seq "$rounds"); do
	listening 40 || { echo "round $r exit 1 (no sink)" >>"$VLAB_OUT/rounds.txt"; break; }
	late=
	[ $((r % 2)) = 0 ] && late="--late-start 1"
	t=$(date +%s.%N)
	# shellcheck disable=SC2086 # late: nothing, or the option and its value
	bounded 60 "source $r" nvme_write_bw_remote --disks "$1" -q 1 --warmup 1 -D 4 --timeout 20 \
		$late --json "$VLAB_PEER" >"$VLAB_OUT/src.$r.json" 2>"$VLAB_OUT/src.$r.err"
	round_done "$r" $? "$t" source "$VLAB_OUT/src.$r.err"
	sleep 1
done
kernel_lines "$VLAB_OUT/kernel.txt"
exit 0
