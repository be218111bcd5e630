#!/bin/bash
# Node a of remote_pair.sh's part two_node: the sink, reading its first drive locally.
# 1. a verified run; 1b. a source 3 s late (the total may not be added); 2. (netdown) a long window during which node b takes its
# NIC down: the sink must see the silence within --timeout.
set -u
# shellcheck disable=SC2086 # the drives' paths, a word each
set -- $VLAB_DRIVES
nvme_write_bw_remote --dram 64M --local-disks "$1" -q 1 --warmup 2 -D 12 --timeout 20 --wait 120 \
	--verify full --dump-slice "$VLAB_OUT/slice.bin" --json >"$VLAB_OUT/sink.json" 2>"$VLAB_OUT/sink.err"
echo $? >"$VLAB_OUT/sink.rc"
cat "$VLAB_OUT/sink.err"

# 1b. a source that opens its window 3 s late against a 6 s window.
nvme_write_bw_remote --dram 64M --local-disks "$1" -q 1 --warmup 1 -D 6 --timeout 20 --wait 60 \
	--json >"$VLAB_OUT/late.sink.json" 2>"$VLAB_OUT/late.sink.err"
echo $? >"$VLAB_OUT/late.sink.rc"
sed 's/^/late sink: /' "$VLAB_OUT/late.sink.err"

t0=$(date +%s.%N)
nvme_write_bw_remote --dram 64M --local-disks "$1" -q 1 --warmup 1 -D 30 --timeout 4 --wait 60 \
	--interval 1 --json >"$VLAB_OUT/netdown.sink.json" 2>"$VLAB_OUT/netdown.sink.err"
echo $? >"$VLAB_OUT/netdown.sink.rc"
echo "$(date +%s.%N) - $t0" | bc >"$VLAB_OUT/netdown.sink.secs"
sed 's/^/netdown sink: /' "$VLAB_OUT/netdown.sink.err"
exit 0
