#!/bin/bash
# Node b of soak.sh: ROUNDS sources, every other one 1 s late, each bounded.
set -u
. "$VLAB_SRCDIR/tests/lab/guest-lib.sh"
rounds=$1
set -- $VLAB_DRIVES
for r in $(seq "$rounds"); do
	listening 40 || { echo "round $r exit 1 (no sink)" >>"$VLAB_OUT/rounds.txt"; break; }
	late=
	[ $((r % 2)) = 0 ] && late="--late-start 1"
	t=$(date +%s.%N)
	# shellcheck disable=SC2086
	bounded 60 "source $r" nvme_write_bw_remote --disks "$1" -q 1 --warmup 1 -D 4 --timeout 20 \
		$late --json "$VLAB_PEER" >"$VLAB_OUT/src.$r.json" 2>"$VLAB_OUT/src.$r.err"
	rc=$?
	echo "round $r exit $rc $(echo "$(date +%s.%N) - $t" | bc | cut -c1-5) s" >>"$VLAB_OUT/rounds.txt"
	[ $rc = 0 ] || { sed "s/^/source $r: /" "$VLAB_OUT/src.$r.err"; rdma_state "source $r"; }
	sleep 1
done
dmesg | grep -E 'lockup|hung task|blocked for|Oops|BUG:|panic|double fault|rxe|Call Trace' | tail -n 40 >"$VLAB_OUT/kernel.txt"
exit 0
