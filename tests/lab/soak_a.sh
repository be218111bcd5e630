#!/bin/bash
# Node a of soak.sh: ROUNDS runs one after the other, each with its own bound.
# MODE one-way: a sink each round; bidir: --bidir with node b (a sink and a source).
set -u
. "$VLAB_SRCDIR/tests/lab/guest_lib.sh"
rounds=$1 mode=$2
# shellcheck disable=SC2086 # the drives' paths, a word each
set -- $VLAB_DRIVES
for r in $(seq "$rounds"); do
	t=$(date +%s.%N)
	if [ "$mode" = bidir ]; then
		bounded 75 "bidir $r" nvme_write_bw_remote --bidir --dram 64M --disks "$1" -q 1 \
			--warmup 1 -D 4 --timeout 20 --wait 40 --verify full --json "$VLAB_PEER" \
			>"$VLAB_OUT/bidir.$r.json" 2>"$VLAB_OUT/bidir.$r.err"
		round_done "$r" $? "$t" bidir "$VLAB_OUT/bidir.$r.err"
		sleep 2
		continue
	fi
	bounded 60 "sink $r" nvme_write_bw_remote --dram 64M --local-disks "$1" -q 1 --warmup 1 -D 4 \
		--timeout 20 --wait 40 --json >"$VLAB_OUT/sink.$r.json" 2>"$VLAB_OUT/sink.$r.err"
	round_done "$r" $? "$t" sink "$VLAB_OUT/sink.$r.err"
done
kernel_lines "$VLAB_OUT/kernel.txt"
exit 0
