#!/bin/bash
# bench_remote.sh: nvme_write_bw_remote side by side with its references, in one
# run, as ratios (DESIGN.md "Performance"):
#   1. --source mem vs ib_write_bw on the same RDMA device, same message size
#      and QP count (target: ratio >= 0.95);
#   2. with a drive: remote GB/s per drive vs nvme_read_bw's local GB/s on the
#      same drive, same chunk and threads (target: ratio >= 0.95).
# Usage: bench_remote.sh                   in the virtual lab (one node, rxe0
#                                          loopback, one emulated drive)
#        bench_remote.sh --here DEV ADDR DRIVE
#                                          here: RDMA device, its address (the
#                                          loopback peer) and a drive
# Environment: SIZE (1M), QPS (2), DURATION (8), WARMUP (2), THREADS (2).
# Prints a table and the ratios; it reports, it does not pass or fail.
set -u
SIZE=${SIZE:-1M} QPS=${QPS:-2} DURATION=${DURATION:-8} WARMUP=${WARMUP:-2} THREADS=${THREADS:-2}
here=$(cd "$(dirname "$0")" && pwd)

case "${1:-}" in
"")
	exec "$here/vlab" run --drives 1 --drive-size 256M --timeout 280 "$here/bench_remote.sh" --lab
	;;
--lab)
	DEV=$VLAB_RDMA_DEV ADDR=$VLAB_ADDR DRIVE=${VLAB_DRIVES%% *}
	;;
--here)
	[ $# = 4 ] || { echo "usage: $0 --here DEV ADDR DRIVE" >&2; exit 2; }
	DEV=$2 ADDR=$3 DRIVE=$4
	;;
*)
	echo "usage: $0 [--here DEV ADDR DRIVE]" >&2
	exit 2
	;;
esac
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
bytes=$(numfmt --from=iec "${SIZE%iB}")
W="--warmup $WARMUP -D $DURATION -s $SIZE"
jget() { python3 -c 'import json,sys; print(eval(sys.argv[2], {"d": json.load(open(sys.argv[1]))}))' "$@"; }

# 1. the fabric: ib_write_bw, then nvme_write_bw_remote --source mem.
ib_write_bw -d "$DEV" -s "$bytes" -q "$QPS" -D "$DURATION" --report_gbits -F >"$T/ibs" 2>&1 &
sp=$!
sleep 2
ib_write_bw -d "$DEV" -s "$bytes" -q "$QPS" -D "$DURATION" --report_gbits -F "$ADDR" >"$T/ibc" 2>&1
wait $sp
# The average column (Gb/s) of the result line -> GB/s.
ib=$(awk -v b="$bytes" '$1 == b && NF >= 4 { printf "%.4f", $4 / 8 }' "$T/ibc")
nvme_write_bw_remote -d "$DEV" --no-local --dram 256M $W --json >"$T/ks" 2>"$T/kse" &
sp=$!
nvme_write_bw_remote -d "$DEV" --source mem -q "$QPS" $W --json "$ADDR" >"$T/kc" 2>"$T/kce"
wait $sp
mem=$(jget "$T/ks" 'round(d["rdma"]["gb_per_s"], 4)')

# 2. one drive: locally, then remote through the loopback.
nvme_read_bw --disks "$DRIVE" -t "$THREADS" $W --json >"$T/local" 2>/dev/null
loc=$(jget "$T/local" 'round(d["drives"][0]["gb_per_s"], 4)')
nvme_write_bw_remote -d "$DEV" --no-local --dram 256M $W --json >"$T/ds" 2>"$T/dse" &
sp=$!
nvme_write_bw_remote -d "$DEV" --disks "$DRIVE" -t "$THREADS" $W --json "$ADDR" >"$T/dc" 2>"$T/dce"
wait $sp
rem=$(jget "$T/ds" 'round(d["rdma"]["gb_per_s"], 4)')
ver=$(jget "$T/ds" 'd["verify"]')

ratio() { python3 -c "import sys; a, b = sys.argv[1], sys.argv[2]; print('%.3f' % (float(a) / float(b)) if a and b and float(b) > 0 else '-')" "$1" "$2"; }
printf '\n%-44s %10s %10s %7s\n' "comparison ($DEV, $SIZE, $DURATION s)" "ours GB/s" "ref GB/s" "ratio"
printf '%-44s %10s %10s %7s\n' "--source mem vs ib_write_bw ($QPS QPs)" "$mem" "${ib:--}" "$(ratio "$mem" "$ib")"
printf '%-44s %10s %10s %7s\n' "remote vs local per drive ($THREADS threads)" "$rem" "$loc" "$(ratio "$rem" "$loc")"
printf 'ib_write_bw result line: %s\n' "$(awk -v b="$bytes" '$1 == b' "$T/ibc" | tr -s ' ')"
printf 'verification of the drive run: %s; targets: both ratios >= 0.95\n' "$ver"
