#!/bin/bash
# bench_remote.sh: nvme_write_bw_remote side by side with its references, in one
# run, as ratios (DESIGN.md "Performance"):
#   1. --source mem vs ib_write_bw on the same RDMA device, same message size
#      and QP count (target: ratio >= 0.95);
#   2. with a drive: remote GB/s per drive vs nvme_read_bw's local GB/s on the
#      same drive, same chunk and threads (target: ratio >= 0.95);
#   3. the source on io_uring vs on psync, same drive, QPs and depth;
#   4. with two RDMA devices (DEVS="dev0 dev1", the lab's VLAB_RDMA_DEVS with
#      --nics 2): two rails of --source mem vs two ib_write_bw run at the same
#      time (one per rail, same size, QPs and depth), and one rail vs two;
#   5. small messages, at each of SMALL_SIZES (4K 64K): --source mem's message
#      rate vs ib_write_bw's MsgRate (same size, QPs and depth), and the
#      source's --latency p50/p99 at one QP, depth 1 vs ib_write_lat's
#      t_typical/99% (same size, LAT_ITERS exchanges).
# Usage: bench_remote.sh                   in the virtual lab (one node, rxe0
#                                          loopback, one emulated drive)
#        bench_remote.sh --here DEV ADDR DRIVE
#                                          here: RDMA device, its address (the
#                                          loopback peer) and a drive
# Environment: SIZE (1M), QPS (2), DEPTH (4), DURATION (8), WARMUP (2), THREADS (2),
# SMALL_SIZES ("4K 64K"; empty: no small-message rows), LAT_ITERS (2000), ROUNDS (3:
# rounds of the small-message rate, ours and ib_write_bw alternated, the median taken),
# ONLY=small (only the small-message rows: items 1-4 skipped), COUNTS=1 (after the small
# rows, one more run of each side under `strace -f -c`: system calls per WRITE of our
# source and of ib_write_bw's client, by call: the doorbells, the CQ's arming and waits),
# SMALL_LAT=0 (no latency rows). In the lab they reach the guest as arguments.
# Both sides of each comparison use the same message size, QP count and WRITEs
# in flight per QP (ib_write_bw -t = our --depth: perftest's default of 128
# 1 MiB WRITEs per QP floods Soft-RoCE under emulation and measured nothing).
# Prints a table and the ratios; it reports, it does not pass or fail.
set -u
# The settings above; the lab's copy gets them as NAME=VALUE arguments after --lab (a
# guest starts with an environment of its own).
SETTINGS="SIZE QPS DEPTH DURATION WARMUP THREADS SMALL_SIZES LAT_ITERS ROUNDS ONLY COUNTS SMALL_LAT DEVS ADDRS"
here=$(cd "$(dirname "$0")" && pwd)
# In the lab this script runs as a copy (the guest's /run/vlab/script): its library is
# in the source tree, which the guest sees where the host has it (VLAB_SRCDIR).
[ -f "$here/bench_lib.sh" ] || here=${VLAB_SRCDIR:-.}/scripts
prog=bench_remote.sh
# shellcheck source=bench_lib.sh source-path=SCRIPTDIR
. "$here/bench_lib.sh" || exit 1
if [ "${1:-}" = --lab ]; then
	for a in "${@:2}"; do
		case " $SETTINGS " in
		*" ${a%%=*} "*) [ "$a" != "${a%%=*}" ] && export "${a?}" && continue ;;
		esac
		die_usage "--lab: not a setting: '$a' (settings: $SETTINGS)"
	done
	set -- --lab
fi
SIZE=${SIZE:-1M} QPS=${QPS:-2} DEPTH=${DEPTH:-4} DURATION=${DURATION:-8} WARMUP=${WARMUP:-2}
THREADS=${THREADS:-2} SMALL_SIZES=${SMALL_SIZES-4K 64K} LAT_ITERS=${LAT_ITERS:-2000}
ROUNDS=${ROUNDS:-3} ONLY=${ONLY:-} COUNTS=${COUNTS:-0} SMALL_LAT=${SMALL_LAT:-1}

case "${1:-}" in
"")
	for v in $SETTINGS; do
		[ -n "${!v+x}" ] && set -- "$@" "$v=${!v}"
	done
	exec "$here/vlab" run --drives 1 --drive-size 256M --nics 2 --timeout 520 \
		"$here/bench_remote.sh" --lab "$@"
	;;
--lab)
	DEV=$VLAB_RDMA_DEV ADDR=$VLAB_ADDR DRIVE=${VLAB_DRIVES%% *} LAB=1
	DEVS=${DEVS:-${VLAB_RDMA_DEVS:-}} ADDRS=${ADDRS:-${VLAB_ADDRS:-}}
	;;
--here)
	[ $# = 4 ] || { echo "usage: $0 --here DEV ADDR DRIVE" >&2; exit 2; }
	DEV=$2 ADDR=$3 DRIVE=$4
	;;
*)
	echo "usage: $0 [--here DEV ADDR DRIVE]   (rails: DEVS=\"d0 d1\" ADDRS=\"a0 a1\")" >&2
	exit 2
	;;
esac
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
bytes=$(numfmt --from=iec "${SIZE%iB}")
WIN=(--warmup "$WARMUP" -D "$DURATION" -s "$SIZE")
W=("${WIN[@]}" --depth "$DEPTH") # nvme_read_bw's psync has one read in flight per thread: no --depth
# jget FILE PATH [DIGITS [DIVISOR]]: a figure of a tool's JSON document (nbw.benchremote).
jget() { nbw_py benchremote value "$@"; }

# ref_pair NAME CMD...: a perftest server, then its client to ADDR ($T/NAME.s, $T/NAME.c).
ref_pair() {
	local n=$1 p
	shift
	"$@" >"$T/$n.s" 2>&1 &
	p=$!
	sleep 2
	"$@" "$ADDR" >"$T/$n.c" 2>&1
	wait $p
}
# sink_ready FILE PID: wait (at most 60 s) until the sink whose stderr is FILE listens
# (its "waiting for a source" line) or has ended: a source started before that is
# refused (under emulation the sink takes seconds to get there).
sink_ready() {
	local tries=600
	while [ $tries -gt 0 ]; do
		grep -q 'waiting for a source' "$1" 2>/dev/null && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.1
		tries=$((tries - 1))
	done
	return 1
}
# ours_pair NAME "SINK ARGS" SOURCE ARGS...: our sink, then our source to ADDR once the
# sink listens (JSON in $T/NAME.k and $T/NAME.o; both on $PAIR_DEV, default $DEV);
# either side's failure on stderr.
ours_pair() {
	local n=$1 sa=$2 p rs
	shift 2
	# shellcheck disable=SC2086
	nvme_write_bw_remote -d "${PAIR_DEV:-$DEV}" --no-local --dram 256M $sa --json >"$T/$n.k" \
		2>"$T/$n.ke" &
	p=$!
	sink_ready "$T/$n.ke" $p
	nvme_write_bw_remote -d "${PAIR_DEV:-$DEV}" "$@" --json "$ADDR" >"$T/$n.o" 2>"$T/$n.oe"
	rs=$?
	# The sink ends either way (its --wait bounds it): never two sinks on one port.
	if ! wait $p || [ $rs != 0 ]; then
		cat "$T/$n.ke" "$T/$n.oe" >&2
	fi
}
# Items 1-4: the bandwidth comparisons (ONLY=small skips them).
if [ "$ONLY" != small ]; then
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
ours_pair k "${W[*]}" --source mem -q "$QPS" "${W[@]}"
mem=$(jget "$T/k.k" rdma.gb_per_s 4 2>/dev/null)

# 2. one drive: locally, then remote through the loopback.
nvme_read_bw --disks "$DRIVE" -t "$THREADS" "${WIN[@]}" --json >"$T/local" 2>"$T/locale" ||
	sed 's/^/nvme_read_bw: /' "$T/locale" >&2
loc=$(jget "$T/local" drives.0.gb_per_s 4 2>/dev/null)
ours_pair d "${W[*]}" --disks "$DRIVE" -q "$THREADS" "${W[@]}"
rem=$(jget "$T/d.k" rdma.gb_per_s 4 2>/dev/null)
ver=$(jget "$T/d.k" verify 2>/dev/null)

# 3. the same drive run with the source on io_uring (same QPs and depth).
ours_pair u "${W[*]}" --disks "$DRIVE" -q "$THREADS" --engine io_uring "${W[@]}"
uring=$(jget "$T/u.k" rdma.gb_per_s 4 2>/dev/null)
uver=$(jget "$T/u.k" verify 2>/dev/null)

# 4. rails: two ib_write_bw at once (one per device) against two rails of ours.
read -ra D <<<"${DEVS:-}"
read -ra A <<<"${ADDRS:-}"
if [ ${#D[@]} -ge 2 ] && [ ${#A[@]} -ge 2 ]; then
	d0=${D[0]} d1=${D[1]}
	for k in 0 1; do
		dv=$([ $k = 0 ] && echo "$d0" || echo "$d1")
		ib_write_bw -d "$dv" -p $((18600 + k)) -s "$bytes" -q "$QPS" -t "$DEPTH" \
			-D "$DURATION" --report_gbits -F >"$T/rs$k" 2>&1 &
	done
	sleep 2
	for k in 0 1; do
		dv=$([ $k = 0 ] && echo "$d0" || echo "$d1")
		ib_write_bw -d "$dv" -p $((18600 + k)) -s "$bytes" -q "$QPS" -t "$DEPTH" \
			-D "$DURATION" --report_gbits -F "${A[$k]}" >"$T/rc$k" 2>&1 &
	done
	wait
	ib2=$(cat "$T/rc0" "$T/rc1" | awk -v b="$bytes" '$1 == b && NF >= 5 && $2 > 0 { s += $4 / 8; n++ }
		END { if (n == 2) printf "%.4f", s }')
	PAIR_DEV=$d0 ours_pair r1 "${W[*]}" --source mem -q $((2 * QPS)) "${W[@]}"
	PAIR_DEV=$d0,$d1 ours_pair r2 "${W[*]}" --source mem -q $((2 * QPS)) "${W[@]}"
	one=$(jget "$T/r1.k" rdma.gb_per_s 4 2>/dev/null)
	two=$(jget "$T/r2.k" rdma.gb_per_s 4 2>/dev/null)
	shares=$(nbw_py benchremote rail-shares "$T/r2.k" 2>/dev/null)
fi
fi # ONLY != small

# 5. small messages: message rate and WRITE latency against ib_write_bw and ib_write_lat.
# small_rate SIZE BYTES: ib_write_bw's MsgRate [Mpps] and ours (--source mem), M WRITE/s,
# each the median of ROUNDS rounds (ib_write_bw first in odd rounds, ours in even ones);
# s_ib_r and s_ours_r keep every round's figure.
small_rate() {
	local o="--warmup $WARMUP -D $DURATION -s $1 --depth $DEPTH" r who a
	s_ib_r='' s_ours_r=''
	for r in $(seq 1 "$ROUNDS"); do
		for who in $([ $((r % 2)) = 1 ] && echo "ib ours" || echo "ours ib"); do
			if [ "$who" = ib ]; then
				ref_pair sb ib_write_bw -d "$DEV" -s "$2" -q "$QPS" -t "$DEPTH" -D "$DURATION" -F
				# Result line: #bytes #iterations BW-peak BW-average MsgRate[Mpps].
				a=$(awk -v b="$2" '$1 == b && NF >= 5 && $2 > 0 { printf "%.4f", $5 }' "$T/sb.c")
				s_ib_r="$s_ib_r ${a:--}"
			else
				# shellcheck disable=SC2086
				ours_pair sk "$o" --source mem -q "$QPS" $o
				a=$(jget "$T/sk.o" total.writes_per_s 4 1e6 2>/dev/null)
				s_ours_r="$s_ours_r ${a:--}"
			fi
		done
	done
	# shellcheck disable=SC2086
	s_ib=$(nbw_py benchremote median $s_ib_r)
	# shellcheck disable=SC2086
	s_ours=$(nbw_py benchremote median $s_ours_r)
}
# per_write FILE WRITES: system calls per WRITE out of `strace -c` FILE, total and by call.
per_write() { nbw_py benchremote per-write "$1" "$2"; }
# small_counts SIZE BYTES: one run of each side under strace -f -c (the client side only):
# system calls per WRITE. WRITEs: ours from its JSON (writes_per_s x the seconds of
# warm-up and window), ib_write_bw's its #iterations (the margins around its window
# count their calls, not their WRITEs: its figure is an upper bound).
small_counts() {
	local o="--warmup $WARMUP -D $DURATION -s $1 --depth $DEPTH" n p
	ib_write_bw -d "$DEV" -s "$2" -q "$QPS" -t "$DEPTH" -D "$DURATION" -F >"$T/cb.s" 2>&1 &
	p=$!
	sleep 2
	strace -f -c -o "$T/cb.st" ib_write_bw -d "$DEV" -s "$2" -q "$QPS" -t "$DEPTH" \
		-D "$DURATION" -F "$ADDR" >"$T/cb.c" 2>&1
	wait $p
	n=$(awk -v b="$2" '$1 == b && NF >= 5 && $2 > 0 { print $2 }' "$T/cb.c")
	c_ib=$(per_write "$T/cb.st" "${n:-0}")
	# shellcheck disable=SC2086
	nvme_write_bw_remote -d "$DEV" --no-local --dram 256M $o --json >"$T/ck.k" 2>"$T/ck.ke" &
	p=$!
	sink_ready "$T/ck.ke" $p
	# shellcheck disable=SC2086
	strace -f -c -o "$T/ck.st" nvme_write_bw_remote -d "$DEV" --source mem -q "$QPS" $o \
		--json "$ADDR" >"$T/ck.o" 2>"$T/ck.oe"
	wait $p
	n=$(nbw_py benchremote writes "$T/ck.o" "$((WARMUP + DURATION))" 2>/dev/null)
	c_ours=$(per_write "$T/ck.st" "${n:-0}")
}
# small_lat SIZE BYTES: ib_write_lat's t_typical and 99% (us), ours p50 and p99 at -q 1 --depth 1.
small_lat() {
	local o="--warmup $WARMUP -D $DURATION -s $1 --depth 1"

	ref_pair sl ib_write_lat -d "$DEV" -s "$2" -n "$LAT_ITERS" -F
	# Result line: #bytes #iterations t_min t_max t_typical t_avg t_stdev 99% 99.9% [usec].
	l_ib50=$(awk -v b="$2" '$1 == b && NF >= 9 && $2 > 0 { printf "%.2f", $5 }' "$T/sl.c")
	l_ib99=$(awk -v b="$2" '$1 == b && NF >= 9 && $2 > 0 { printf "%.2f", $8 }' "$T/sl.c")
	# shellcheck disable=SC2086
	ours_pair sm "$o" --source mem -q 1 $o --latency
	l_ours50=$(jget "$T/sm.o" total.latency_us.p50 2 2>/dev/null)
	l_ours99=$(jget "$T/sm.o" total.latency_us.p99 2 2>/dev/null)
}
small=() counts=() rounds=()
for sz in $SMALL_SIZES; do
	b=$(numfmt --from=iec "${sz%iB}")
	s_ib='' s_ours='' l_ib50='' l_ib99='' l_ours50='' l_ours99=''
	small_rate "$sz" "$b"
	[ "$SMALL_LAT" = 1 ] && small_lat "$sz" "$b"
	small+=("$sz|${s_ours:-}|${s_ib:-}|${l_ours50:-}|${l_ib50:-}|${l_ours99:-}|${l_ib99:-}")
	rounds+=("$sz M WRITE/s rounds: ours$s_ours_r; ib_write_bw$s_ib_r")
	if [ "$COUNTS" = 1 ] && command -v strace >/dev/null; then
		small_counts "$sz" "$b"
		counts+=("$sz system calls per WRITE: ours ${c_ours:-?}; ib_write_bw ${c_ib:-?}")
	fi
done

ratio() { nbw_py benchremote ratio "$1" "$2"; }
gbit() { nbw_py benchremote gbit "$1"; }
# The drive case can go no faster than the drive or the fabric, whichever is slower.
bound=$(nbw_py benchremote lowest "${loc:-}" "${ib:-}")
row() { printf '%-46s %10s %10s %10s %10s %7s\n' "$@"; }
[ "$ONLY" = small ] || {
echo
row "comparison ($DEV, $SIZE, depth $DEPTH, ${DURATION} s)" "ours GB/s" "ref GB/s" "ours Gb/s" "ref Gb/s" "ratio"
row "--source mem vs ib_write_bw ($QPS QPs)" "$mem" "${ib:--}" "$(gbit "$mem")" "$(gbit "${ib:-}")" "$(ratio "$mem" "${ib:-}")"
row "remote vs local per drive ($THREADS threads)" "$rem" "${loc:--}" "$(gbit "$rem")" "$(gbit "${loc:-}")" "$(ratio "$rem" "${loc:-}")"
row "remote per drive vs min(local, ib_write_bw)" "$rem" "$bound" "$(gbit "$rem")" "$(gbit "$bound")" "$(ratio "$rem" "$bound")"
row "io_uring source vs psync source (depth $DEPTH)" "${uring:--}" "$rem" "$(gbit "${uring:-}")" "$(gbit "$rem")" "$(ratio "${uring:-}" "$rem")"
if [ -n "${two:-}${ib2:-}" ]; then
	row "2 rails --source mem vs 2 ib_write_bw at once" "${two:--}" "${ib2:--}" "$(gbit "${two:-}")" "$(gbit "${ib2:-}")" "$(ratio "${two:-}" "${ib2:-}")"
	row "2 rails vs 1 rail ($((2 * QPS)) QPs each)" "${two:--}" "${one:--}" "$(gbit "${two:-}")" "$(gbit "${one:-}")" "$(ratio "${two:-}" "${one:-}")"
	printf 'share of the RDMA bytes per rail (two rails): %s\n' "${shares:-?}"
else
	printf 'rails: one RDMA device only (DEVS/ADDRS name two to compare rails)\n'
fi
}
if [ ${#small[@]} -gt 0 ]; then
	echo
	printf '%-46s %10s %10s %7s\n' "small messages ($DEV)" "ours" "ref" "ratio"
	for x in "${small[@]}"; do
		IFS='|' read -r sz a b c d e f <<<"$x"
		printf '%-46s %10s %10s %7s\n' "$sz M WRITE/s vs ib_write_bw ($QPS QPs, depth $DEPTH)" "${a:--}" "${b:--}" "$(ratio "$a" "$b")" \
			"$sz p50 us vs ib_write_lat t_typical" "${c:--}" "${d:--}" "$(ratio "$c" "$d")" \
			"$sz p99 us vs ib_write_lat 99%" "${e:--}" "${f:--}" "$(ratio "$e" "$f")"
	done
	printf '%s\n' "${rounds[@]}"
	[ ${#counts[@]} -gt 0 ] && printf '%s\n' "${counts[@]}"
	printf 'latency: ours is one WRITE posted to its completion (the WRITE there and its ACK back,\n'
	printf '1 QP, depth 1, --latency); ib_write_lat reports half a ping-pong of WRITEs: not the\n'
	printf 'same interval, read the ratio as a comparison; the M WRITE/s target is a ratio >= 0.95.\n'
fi
[ "$ONLY" = small ] && exit 0
printf 'ib_write_bw result line: %s\n' "${ibline:-none}"
[ -n "${ib:-}" ] || printf 'ib_write_bw measured nothing (0 iterations or no result line): no reference figure\n'
printf 'verification of the drive runs: psync %s, io_uring %s; targets: ratios >= 0.95\n' "$ver" "${uver:-?}"
if [ -n "${LAB:-}" ]; then
	printf 'lab figures: emulated CPUs (qemu TCG) and Soft-RoCE on loopback; the absolute numbers\n'
	printf 'mean nothing, only the ratios of runs side by side do. Here the fabric (~%s GB/s)\n' "${ib:-?}"
	printf 'is far below the drive, so "remote vs local per drive" measures the fabric: the last row\n'
	printf 'compares with what the slower of the two allows.\n'
fi
