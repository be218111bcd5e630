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
# Environment: SIZE (1M), QPS (2), DEPTH (4), DURATION (8), WARMUP (2), THREADS (2).
# Both sides of each comparison use the same message size, QP count and WRITEs
# in flight per QP (ib_write_bw -t = our --depth: perftest's default of 128
# 1 MiB WRITEs per QP floods Soft-RoCE under emulation and measured nothing).
# Prints a table and the ratios; it reports, it does not pass or fail.
set -u
SIZE=${SIZE:-1M} QPS=${QPS:-2} DEPTH=${DEPTH:-4} DURATION=${DURATION:-8} WARMUP=${WARMUP:-2}
THREADS=${THREADS:-2}
here=$(cd "$(dirname "$0")" && pwd)

case "${1:-}" in
"")
	exec "$here/vlab" run --drives 1 --drive-size 256M --timeout 280 "$here/bench_remote.sh" --lab
	;;
--lab)
	DEV=$VLAB_RDMA_DEV ADDR=$VLAB_ADDR DRIVE=${VLAB_DRIVES%% *} LAB=1
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
WIN="--warmup $WARMUP -D $DURATION -s $SIZE"
W="$WIN --depth $DEPTH" # nvme_read_bw's psync has one read in flight per thread: no --depth
jget() { python3 -c 'import json,sys; print(eval(sys.argv[2], {"d": json.load(open(sys.argv[1]))}))' "$@"; }

# 1. the fabric: ib_write_bw, then nvme_write_bw_remote --source mem.
IB="ib_write_bw -d $DEV -s $bytes -q $QPS -t $DEPTH -D $DURATION --report_gbits -F"
$IB >"$T/ibs" 2>&1 &
sp=$!
sleep 2
$IB "$ADDR" >"$T/ibc" 2>&1
wait $sp
# Result line: #bytes #iterations BW-peak BW-average[Gb/s] MsgRate. Zero
# iterations means it measured nothing: no figure rather than a false 0.
ib=$(awk -v b="$bytes" '$1 == b && NF >= 5 && $2 > 0 { printf "%.4f", $4 / 8 }' "$T/ibc")
ibline=$(awk -v b="$bytes" '$1 == b && NF >= 5' "$T/ibc" | tr -s ' \t' ' ')
nvme_write_bw_remote -d "$DEV" --no-local --dram 256M $W --json >"$T/ks" 2>"$T/kse" &
sp=$!
nvme_write_bw_remote -d "$DEV" --source mem -q "$QPS" $W --json "$ADDR" >"$T/kc" 2>"$T/kce"
wait $sp
mem=$(jget "$T/ks" 'round(d["rdma"]["gb_per_s"], 4)' 2>/dev/null) || cat "$T/kse" "$T/kce" >&2

# 2. one drive: locally, then remote through the loopback.
nvme_read_bw --disks "$DRIVE" -t "$THREADS" $WIN --json >"$T/local" 2>"$T/locale" ||
	sed 's/^/nvme_read_bw: /' "$T/locale" >&2
loc=$(jget "$T/local" 'round(d["drives"][0]["gb_per_s"], 4)' 2>/dev/null)
nvme_write_bw_remote -d "$DEV" --no-local --dram 256M $W --json >"$T/ds" 2>"$T/dse" &
sp=$!
nvme_write_bw_remote -d "$DEV" --disks "$DRIVE" -q "$THREADS" $W --json "$ADDR" >"$T/dc" 2>"$T/dce"
wait $sp
rem=$(jget "$T/ds" 'round(d["rdma"]["gb_per_s"], 4)' 2>/dev/null) || cat "$T/dse" "$T/dce" >&2
ver=$(jget "$T/ds" 'd["verify"]' 2>/dev/null)

py() { python3 -c "import sys; a = [float(x) if x not in ('', '-') else None for x in sys.argv[2:]]; print($1)" "$@"; }
ratio() { py "'%.3f' % (a[0] / a[1]) if None not in a and a[1] > 0 else '-'" "$1" "$2"; }
gbit() { py "'%.4f' % (a[0] * 8) if a[0] is not None else '-'" "$1"; }
# The drive case can go no faster than the drive or the fabric, whichever is slower.
bound=$(py "'%.4f' % min(x for x in a if x is not None) if any(x is not None for x in a) else '-'" "${loc:-}" "${ib:-}")
row() { printf '%-46s %10s %10s %10s %10s %7s\n' "$@"; }
echo
row "comparison ($DEV, $SIZE, depth $DEPTH, ${DURATION} s)" "ours GB/s" "ref GB/s" "ours Gb/s" "ref Gb/s" "ratio"
row "--source mem vs ib_write_bw ($QPS QPs)" "$mem" "${ib:--}" "$(gbit "$mem")" "$(gbit "${ib:-}")" "$(ratio "$mem" "${ib:-}")"
row "remote vs local per drive ($THREADS threads)" "$rem" "${loc:--}" "$(gbit "$rem")" "$(gbit "${loc:-}")" "$(ratio "$rem" "${loc:-}")"
row "remote per drive vs min(local, ib_write_bw)" "$rem" "$bound" "$(gbit "$rem")" "$(gbit "$bound")" "$(ratio "$rem" "$bound")"
printf 'ib_write_bw result line: %s\n' "${ibline:-none}"
[ -n "${ib:-}" ] || printf 'ib_write_bw measured nothing (0 iterations or no result line): no reference figure\n'
printf 'verification of the drive run: %s; targets: ratios >= 0.95\n' "$ver"
if [ -n "${LAB:-}" ]; then
	printf 'lab figures: emulated CPUs (qemu TCG) and Soft-RoCE on loopback; the absolute numbers\n'
	printf 'mean nothing, only the ratios of runs side by side do. Here the fabric (~%s GB/s)\n' "${ib:-?}"
	printf 'is far below the drive, so "remote vs local per drive" measures the fabric: the last row\n'
	printf 'compares with what the slower of the two allows.\n'
fi
