#!/bin/bash
# bench_read.sh: nvme_read_bw against fio on the same target, side by side in one run.
#
#   scripts/bench_read.sh [TARGET]
#   scripts/bench_read.sh --check [TARGET]
#
# --check runs exactly the rows the bar of ours against fio is about, in one command, and
# nothing else: sequential psync x THREADS with huge-page buffers on both sides (bandwidth >=
# 0.97x fio, CPU per GiB <= 1.00x), and the random rows (io_uring at depths 1, 8, 32 and
# psync, each timed and untimed: IOPS >= 1.00x, p99 <= 1.10x, CPU per read <= 1.00x);
# DURATION defaults to 5 s there, and a last block lists each row's verdict. It needs
# huge pages for fio: as root it raises vm.nr_hugepages by what is missing for the run
# and puts the old value back at the end (HUGEPAGES_SET=0: never; without them --check
# stops with exit 2 rather than compare buffer kinds). On an idle 2 vCPU machine it takes
# about 5 minutes (ROUNDS x (2 + 16) runs of DURATION s, plus the 2 GiB file's creation).
#
# TARGET is a block device or a file (default: a 2 GiB file of random data created in
# $BENCH_DIR, default the current directory, removed afterwards). Both tools read it with
# O_DIRECT, the same chunk, threads (each thread/job its own region), depth and window,
# no warm-up (so CPU time and bytes cover the same whole run). Rounds alternate the
# cases (ours, fio, ours, fio, ...) to spread the machine's noise over both.
#
# Like with like: our reader buffers are transparent huge pages when a thread's buffer is
# 1 MiB or more (chunk x depth), so fio is run with --iomem=shmhuge (hugetlbfs pages: set
# vm.nr_hugepages first; the script says how many) for the ratios, and also with its
# default 4 KiB-page buffers in a row labelled as such (that ratio measures the buffers,
# not the engine). Cases: psync x THREADS, io_uring x1 at DEPTH (fio --fixedbufs
# --registerfiles), io_uring --sqpoll (fio --sqthread_poll) and, where the device has poll
# queues, io_uring --iopoll (fio --hipri). Printed: GB/s and CPU seconds (user + system of
# the process and its threads, the kernel SQ threads included) per GiB, and the ratios.
#
# Random rows (after the sequential ones, their own alternating rounds): RAND_BS (4K)
# random reads, one thread/job: io_uring at each of RAND_DEPTHS (1 8 32) and psync, each
# timed and untimed. Ours: --pattern rand, with --latency or without; fio: --rw=randread
# --norandommap (uniform with replacement, like ours), io_uring with --fixedbufs
# --registerfiles (registered buffers of 4 KiB pages, like ours at that size); timed with
# --lat_percentiles=1 (submission to completion, like ours), untimed with --gtod_reduce=1
# (no time stamps, like ours without --latency). Printed per engine, depth and timing:
# IOPS (all rounds' reads over their seconds) with the lowest and highest round, p99
# latency (the median of the rounds' p99) with its lowest and highest, CPU per read (user
# + system of the process over its reads), and the ratios against the bar: IOPS >= 1.00x
# fio, p99 <= 1.10x, CPU per read <= 1.00x. The ratio rows also give the lowest and
# highest ratio of a single round's pair (ours beside fio, run one after the other): a
# bar inside that span is closer than this machine can tell apart in one run.
#
# Environment: THREADS (default 12), CHUNK (1M), DURATION (10 s), DEPTH (8),
# ROUNDS (3), BENCH_SIZE (2G), RAND_BS (4K), RAND_DEPTHS ("1 8 32"), RAND_ENGINES
# ("io_uring psync"), RAND_TIMING ("on off"), SEQ=0 (random rows only), RAND=0
# (sequential rows only), NVME_READ_BW, FIO. The figures come out of the tools' JSON
# through python3 -m nbw.bench_read (python/nbw/bench_read.py).
set -euo pipefail

CHECK=0
if [ "${1:-}" = --check ]; then
	CHECK=1
	shift
fi
here=$(cd "$(dirname "$0")" && pwd)
export PYTHONPATH="$here/../python${PYTHONPATH:+:$PYTHONPATH}"
NVME_READ_BW=${NVME_READ_BW:-$here/../nvme_read_bw/nvme_read_bw}
FIO=${FIO:-fio}
THREADS=${THREADS:-12}
CHUNK=${CHUNK:-1M}
DURATION=${DURATION:-$([ "$CHECK" = 1 ] && echo 5 || echo 10)}
DEPTH=${DEPTH:-8}
ROUNDS=${ROUNDS:-3}
BENCH_SIZE=${BENCH_SIZE:-2G}
RAND_BS=${RAND_BS:-4K}
RAND_DEPTHS=${RAND_DEPTHS:-1 8 32}
RAND_ENGINES=${RAND_ENGINES:-io_uring psync}
RAND_TIMING=${RAND_TIMING:-on off}
SEQ=${SEQ:-1}
RAND=${RAND:-1}

command -v "$FIO" >/dev/null || { echo "bench_read.sh: fio not found (apt-get install fio)" >&2; exit 2; }
[ -x "$NVME_READ_BW" ] || { echo "bench_read.sh: $NVME_READ_BW not built" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench_read.XXXXXX")
huge_old=
# On exit: the scratch files, the file made here, and vm.nr_hugepages as it was.
cleanup() {
	rm -rf "$tmp"
	[ -n "${made:-}" ] && rm -f "$made"
	[ -n "$huge_old" ] && echo "$huge_old" >/proc/sys/vm/nr_hugepages
	return 0
}
trap cleanup EXIT

bench() { python3 -m nbw.bench_read "$@"; }
# to_bytes SIZE: 4096, 4K, 1M, 2G in bytes.
to_bytes() { bench bytes "$1"; }

target=${1:-}
if [ -z "$target" ]; then
	made="${BENCH_DIR:-.}/bench_read.$$.img"
	echo "creating $BENCH_SIZE of random data in $made" >&2
	size_mib=$(( $(to_bytes "$BENCH_SIZE") / 1048576 ))
	dd if=/dev/urandom of="$made" bs=1M count="$size_mib" status=none conv=fsync
	sync
	target=$made
fi
if [ -b "$target" ]; then size=$(blockdev --getsize64 "$target"); else size=$(stat -c %s "$target"); fi
chunk_bytes=$(to_bytes "$CHUNK")

# run_ours ENGINE THREADS DEPTH [FLAG] -> "bytes seconds cpu"; FLAG: --sqpoll or --iopoll.
run_ours() {
	local engine=$1 t=$2 d=$3 extra=()
	[ "$engine" = io_uring ] && extra=(--depth "$d" ${4:+"$4"})
	local TIMEFORMAT='%U %S'
	{ time "$NVME_READ_BW" --disks "$target" --engine "$engine" "${extra[@]}" -t "$t" -s "$CHUNK" \
		--warmup 0 -D "$DURATION" --json >"$tmp/ours.json" 2>/dev/null; } 2>"$tmp/time"
	bench ours-seq "$tmp/ours.json" "$tmp/time"
}

# run_fio ENGINE JOBS DEPTH BUFFER [FLAG] -> "bytes seconds cpu"; each job reads its own
# region like ours. BUFFER: huge (--iomem=shmhuge) or 4k (fio's default malloc).
run_fio() {
	local engine=$1 t=$2 d=$3 buf=$4 extra=()
	local region=$(( size / t / 4096 * 4096 ))
	[ "$engine" = io_uring ] && extra=(--iodepth="$d" --fixedbufs --registerfiles ${5:+"$5"})
	[ "$buf" = huge ] && extra+=(--iomem=shmhuge)
	local TIMEFORMAT='%U %S'
	{ time "$FIO" --name=bench --filename="$target" --readonly --rw=read --direct=1 \
		--ioengine="$engine" "${extra[@]}" --bs="$chunk_bytes" --numjobs="$t" \
		--size="$region" --offset_increment="$region" --time_based --runtime="$DURATION" \
		--group_reporting --output-format=json >"$tmp/fio.json" 2>/dev/null; } 2>"$tmp/time"
	bench fio-seq "$tmp/fio.json" "$tmp/time"
}

# Huge pages fio needs: per job one buffer of depth x chunk, rounded up to 2 MiB, plus one.
need_huge() { echo $(( $1 * (($2 * chunk_bytes + 2097151) / 2097152 + 1) )); }
huge_free=$(awk '/^HugePages_Free/ {print $2}' /proc/meminfo)
huge_need=$(need_huge "$THREADS" 1)
[ "$CHECK" = 0 ] && [ "$(need_huge 1 "$DEPTH")" -gt "$huge_need" ] && huge_need=$(need_huge 1 "$DEPTH")
# As root (--check, or HUGEPAGES_SET=1): raise vm.nr_hugepages by what is missing, for this run.
if [ "${huge_free:-0}" -lt "$huge_need" ] && [ "${HUGEPAGES_SET:-$CHECK}" = 1 ] &&
	[ -w /proc/sys/vm/nr_hugepages ]; then
	huge_old=$(cat /proc/sys/vm/nr_hugepages)
	echo $((huge_old + huge_need - huge_free)) >/proc/sys/vm/nr_hugepages
	huge_free=$(awk '/^HugePages_Free/ {print $2}' /proc/meminfo)
	echo "vm.nr_hugepages raised from $huge_old for this run ($huge_free free)" >&2
fi
fio_huge=yes fio_buf=huge
if [ "${huge_free:-0}" -lt "$huge_need" ]; then
	if [ "$CHECK" = 1 ]; then
		echo "bench_read.sh: --check needs $huge_need free huge pages for fio ($huge_free free):" \
			"sysctl vm.nr_hugepages=$huge_need as root" >&2
		exit 2
	fi
	echo "note: fio's huge-page rows need $huge_need free huge pages ($huge_free free):" \
		"sysctl vm.nr_hugepages=$huge_need; running fio with 4 KiB pages only" >&2
	fio_huge='' fio_buf=4k
fi
# Ours uses huge pages when a thread's buffer is 1 MiB or more (common/storage/placement.c).
ours_buf() { [ $(( $1 * chunk_bytes )) -ge 1048576 ] && echo huge || echo 4k; }
iopoll=
if [ "$CHECK" = 0 ]; then
	iopoll=yes
	"$NVME_READ_BW" --disks "$target" --engine io_uring --iopoll -t 1 --warmup 0 -D 0.2 \
		>/dev/null 2>"$tmp/iopoll.err" || { iopoll=; echo "note: no --iopoll rows: $(cat "$tmp/iopoll.err")" >&2; }
fi

# NAME TOOL ENGINE THREADS DEPTH BUFFER [FLAG]; each of ours next to its fio rows.
declare -a cases=()
# fio_rows NAME ENGINE THREADS DEPTH [FLAG]: the huge-page row (if possible), the 4 KiB one.
fio_rows() {
	[ -n "$fio_huge" ] && cases+=("$1-huge fio $2 $3 $4 huge ${5:-}")
	cases+=("$1-4k fio $2 $3 $4 4k ${5:-}")
}
cases+=("ours-psync ours psync $THREADS 1 $(ours_buf 1)")
if [ "$CHECK" = 1 ]; then # the bar's row only: both sides on huge pages
	cases+=("fio-psync-huge fio psync $THREADS 1 huge")
else
	fio_rows fio-psync psync "$THREADS" 1
	cases+=("ours-io_uring ours io_uring 1 $DEPTH $(ours_buf "$DEPTH")")
	fio_rows fio-io_uring io_uring 1 "$DEPTH"
	cases+=("ours-sqpoll ours io_uring 1 $DEPTH $(ours_buf "$DEPTH") --sqpoll")
	cases+=("fio-sqthread-$fio_buf fio io_uring 1 $DEPTH $fio_buf --sqthread_poll")
fi
if [ -n "$iopoll" ]; then
	cases+=("ours-iopoll ours io_uring 1 $DEPTH $(ours_buf "$DEPTH") --iopoll")
	cases+=("fio-hipri-$fio_buf fio io_uring 1 $DEPTH $fio_buf --hipri")
fi
: >"$tmp/results"
[ "$SEQ" = 0 ] && ROUNDS_SEQ=0 || ROUNDS_SEQ=$ROUNDS
load() { cut -d' ' -f1-3 /proc/loadavg; }
load_seq=$(load)
for r in $(seq 1 "$ROUNDS_SEQ"); do
	# Odd rounds in the listed order, even rounds reversed: no case always runs first.
	order=("${cases[@]}")
	[ $((r % 2)) = 0 ] && for i in "${!cases[@]}"; do order[i]=${cases[${#cases[@]} - 1 - i]}; done
	for c in "${order[@]}"; do
		# shellcheck disable=SC2086 # a case is a line of words
		set -- $c
		echo "round $r/$ROUNDS: $1 ($4 thread(s), depth $5, chunk $CHUNK, ${DURATION}s)" >&2
		if [ "$2" = ours ]; then out=$(run_ours "$3" "$4" "$5" "${7:-}"); else out=$(run_fio "$3" "$4" "$5" "$6" "${7:-}"); fi
		echo "$1 $4 $5 $6 $out" >>"$tmp/results"
	done
done

if [ "$SEQ" != 0 ]; then
	echo "load average (1, 5, 15 min): $load_seq at the start, $(load) at the end"
	bench seq-table "$tmp/results" "$target" "$CHUNK" "$THREADS" "$DURATION" "$ROUNDS"
fi

[ "$RAND" = 0 ] && exit 0
rand_bytes=$(to_bytes "$RAND_BS")

# rand_ours / rand_fio ENGINE DEPTH TIMING -> "reads seconds cpu p99_us" (p99 - untimed)
rand_ours() {
	local extra=() TIMEFORMAT='%U %S'
	[ "$1" = io_uring ] && extra=(--depth "$2")
	[ "$3" = on ] && extra+=(--latency)
	{ time "$NVME_READ_BW" --disks "$target" --engine "$1" "${extra[@]}" -t 1 --pattern rand \
		-s "$RAND_BS" --warmup 0 -D "$DURATION" --json >"$tmp/ours.json" 2>/dev/null; } 2>"$tmp/time"
	bench ours-rand "$tmp/ours.json" "$tmp/time"
}
rand_fio() {
	local extra=() TIMEFORMAT='%U %S'
	[ "$1" = io_uring ] && extra=(--iodepth="$2" --fixedbufs --registerfiles)
	[ "$3" = on ] && extra+=(--lat_percentiles=1) || extra+=(--gtod_reduce=1)
	{ time "$FIO" --name=rand --filename="$target" --readonly --rw=randread --bs="$rand_bytes" \
		--ioengine="$1" "${extra[@]}" --numjobs=1 --direct=1 --norandommap --time_based \
		--runtime="$DURATION" --output-format=json >"$tmp/fio.json" 2>/dev/null; } 2>"$tmp/time"
	bench fio-rand "$tmp/fio.json" "$tmp/time"
}
# ENGINE DEPTH TIMING: io_uring at each depth, psync (one read at a time) once.
rand_cases=()
for e in $RAND_ENGINES; do
	depths=$RAND_DEPTHS
	[ "$e" = psync ] && depths=1
	for d in $depths; do for lat in $RAND_TIMING; do rand_cases+=("$e $d $lat"); done; done
done
: >"$tmp/rand"
load_rand=$(load)
for r in $(seq 1 "$ROUNDS"); do
	for c in "${rand_cases[@]}"; do
		# shellcheck disable=SC2086 # a case is a line of words
		set -- $c
		# ours first in odd rounds, fio first in even ones
		pair="ours fio"
		[ $((r % 2)) = 0 ] && pair="fio ours"
		for who in $pair; do
			echo "round $r/$ROUNDS: $who random $RAND_BS, $1 depth $2, latency $3, 1 thread, ${DURATION}s" >&2
			echo "$who $1 $2 $3 $("rand_$who" "$1" "$2" "$3")" >>"$tmp/rand"
		done
	done
done
echo
echo "load average (1, 5, 15 min): $load_rand at the start, $(load) at the end"
bench rand-table "$tmp/rand" "$target" "$RAND_BS" "$DURATION" "$ROUNDS"
if [ "$CHECK" = 1 ]; then
	echo
	bench check "$tmp/results" "$tmp/rand" "$THREADS"
fi
