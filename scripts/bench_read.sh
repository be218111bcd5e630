#!/bin/bash
# bench_read.sh: nvme_read_bw against fio on the same target, side by side in one run.
#
#   scripts/bench_read.sh [TARGET]
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
# random reads, io_uring, one thread/job at RAND_DEPTH (32), ours with --pattern rand
# --latency, fio with --rw=randread --fixedbufs --registerfiles (registered buffers of
# 4 KiB pages, like ours at that size) --norandommap (uniform with replacement, like ours)
# --lat_percentiles=1 (submission to completion, like ours). Printed: IOPS (all rounds'
# reads over their seconds), p99 latency (the median of the rounds' p99), CPU per read
# (user + system of the process over its reads), and the ratios against the issue's bar:
# IOPS >= 1.00x fio, p99 <= 1.10x, CPU per read <= 1.00x.
#
# Environment: THREADS (default 12), CHUNK (1M), DURATION (10 s), DEPTH (8),
# ROUNDS (3), BENCH_SIZE (2G), RAND_BS (4K), RAND_DEPTH (32), SEQ=0 (random rows
# only), RAND=0 (sequential rows only), NVME_READ_BW, FIO.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
NVME_READ_BW=${NVME_READ_BW:-$here/../nvme_read_bw/nvme_read_bw}
FIO=${FIO:-fio}
THREADS=${THREADS:-12}
CHUNK=${CHUNK:-1M}
DURATION=${DURATION:-10}
DEPTH=${DEPTH:-8}
ROUNDS=${ROUNDS:-3}
BENCH_SIZE=${BENCH_SIZE:-2G}
RAND_BS=${RAND_BS:-4K}
RAND_DEPTH=${RAND_DEPTH:-32}
SEQ=${SEQ:-1}
RAND=${RAND:-1}

command -v "$FIO" >/dev/null || { echo "bench_read.sh: fio not found (apt-get install fio)" >&2; exit 2; }
[ -x "$NVME_READ_BW" ] || { echo "bench_read.sh: $NVME_READ_BW not built" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench_read.XXXXXX")
trap 'rm -rf "$tmp"; [ -n "${made:-}" ] && rm -f "$made"' EXIT

# to_bytes SIZE: 4096, 4K, 1M, 2G in bytes.
to_bytes() {
	python3 -c "
import sys
s = sys.argv[1].upper()
m = {'K': 1 << 10, 'M': 1 << 20, 'G': 1 << 30}
print(int(s[:-1]) * m[s[-1]] if s[-1] in m else int(s))" "$1"
}

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
	python3 - "$tmp/ours.json" "$tmp/time" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
u, s = map(float, open(sys.argv[2]).read().split()[-2:])
print(d["total"]["bytes"], d["total"]["seconds"], u + s)
PY
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
	python3 - "$tmp/fio.json" "$tmp/time" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = d["jobs"][0]["read"]
u, s = map(float, open(sys.argv[2]).read().split()[-2:])
if d["jobs"][0].get("error"):
    sys.exit("fio failed: error %d" % d["jobs"][0]["error"])
print(r["io_bytes"], r["runtime"] / 1000.0, u + s)
PY
}

# Huge pages fio needs: per job one buffer of depth x chunk, rounded up to 2 MiB, plus one.
need_huge() { echo $(( $1 * (($2 * chunk_bytes + 2097151) / 2097152 + 1) )); }
huge_free=$(awk '/^HugePages_Free/ {print $2}' /proc/meminfo)
huge_need=$(need_huge "$THREADS" 1)
[ "$(need_huge 1 "$DEPTH")" -gt "$huge_need" ] && huge_need=$(need_huge 1 "$DEPTH")
fio_huge=yes fio_buf=huge
if [ "${huge_free:-0}" -lt "$huge_need" ]; then
	echo "note: fio's huge-page rows need $huge_need free huge pages ($huge_free free):" \
		"sysctl vm.nr_hugepages=$huge_need; running fio with 4 KiB pages only" >&2
	fio_huge= fio_buf=4k
fi
# Ours uses huge pages when a thread's buffer is 1 MiB or more (common/storage/placement.c).
ours_buf() { [ $(( $1 * chunk_bytes )) -ge 1048576 ] && echo huge || echo 4k; }
iopoll=yes
"$NVME_READ_BW" --disks "$target" --engine io_uring --iopoll -t 1 --warmup 0 -D 0.2 \
	>/dev/null 2>"$tmp/iopoll.err" || { iopoll=; echo "note: no --iopoll rows: $(cat "$tmp/iopoll.err")" >&2; }

# NAME TOOL ENGINE THREADS DEPTH BUFFER [FLAG]; each of ours next to its fio rows.
declare -a cases=()
# fio_rows NAME ENGINE THREADS DEPTH [FLAG]: the huge-page row (if possible), the 4 KiB one.
fio_rows() {
	[ -n "$fio_huge" ] && cases+=("$1-huge fio $2 $3 $4 huge ${5:-}")
	cases+=("$1-4k fio $2 $3 $4 4k ${5:-}")
}
cases+=("ours-psync ours psync $THREADS 1 $(ours_buf 1)")
fio_rows fio-psync psync "$THREADS" 1
cases+=("ours-io_uring ours io_uring 1 $DEPTH $(ours_buf "$DEPTH")")
fio_rows fio-io_uring io_uring 1 "$DEPTH"
cases+=("ours-sqpoll ours io_uring 1 $DEPTH $(ours_buf "$DEPTH") --sqpoll")
cases+=("fio-sqthread-$fio_buf fio io_uring 1 $DEPTH $fio_buf --sqthread_poll")
if [ -n "$iopoll" ]; then
	cases+=("ours-iopoll ours io_uring 1 $DEPTH $(ours_buf "$DEPTH") --iopoll")
	cases+=("fio-hipri-$fio_buf fio io_uring 1 $DEPTH $fio_buf --hipri")
fi
: >"$tmp/results"
[ "$SEQ" = 0 ] && ROUNDS_SEQ=0 || ROUNDS_SEQ=$ROUNDS
for r in $(seq 1 "$ROUNDS_SEQ"); do
	for c in "${cases[@]}"; do
		set -- $c
		echo "round $r/$ROUNDS: $1 ($4 thread(s), depth $5, chunk $CHUNK, ${DURATION}s)" >&2
		if [ "$2" = ours ]; then out=$(run_ours "$3" "$4" "$5" "${7:-}"); else out=$(run_fio "$3" "$4" "$5" "$6" "${7:-}"); fi
		echo "$1 $4 $5 $6 $out" >>"$tmp/results"
	done
done

if [ "$SEQ" != 0 ]; then
python3 - "$tmp/results" "$target" "$CHUNK" "$THREADS" "$DURATION" "$ROUNDS" <<'PY'
import sys
from collections import defaultdict
res, target, chunk, threads, dur, rounds = sys.argv[1:]
agg = defaultdict(lambda: [0, 0.0, 0.0])
info, order = {}, []
for line in open(res):
    name, t, d, buf, b, s, c = line.split()
    if name not in info:
        order.append(name)
    info[name] = (t, d, buf)
    a = agg[name]
    a[0] += int(b); a[1] += float(s); a[2] += float(c)
def gbps(n): return agg[n][0] / agg[n][1] / 1e9
def cpu(n): return agg[n][2] / (agg[n][0] / 2**30)
print(f"target {target}: chunk {chunk}, {rounds} alternating rounds of {dur} s each, no warm-up")
print(f"{'case':<20}{'threads':>8}{'depth':>6}{'buffer':>8}{'GB/s':>9}{'CPU s/GiB':>11}")
for n in order:
    t, d, buf = info[n]
    print(f"{n:<20}{t:>8}{d:>6}{buf:>8}{gbps(n):>9.3f}{cpu(n):>11.4f}")
print()
print(f"{'ratio':<48}{'bandwidth':>10}{'CPU/GiB':>9}  target")
def ratio(label, a, b, target):
    if a in agg and b in agg:
        print(f"{label:<48}{gbps(a) / gbps(b):>10.3f}{cpu(a) / cpu(b):>9.3f}  {target}")
def like(ours, fio):
    """fio's row with ours's kind of buffer, or None."""
    n = f"{fio}-{info[ours][2]}"
    return n if n in agg else None
for ours, fio, what, tgt in (("ours-psync", "fio-psync", "psync", "bw >= 0.97, cpu <= 1.00"),
                             ("ours-io_uring", "fio-io_uring", "io_uring", "bw >= 1.00, cpu <= 1.00"),
                             ("ours-sqpoll", "fio-sqthread", "sqpoll/sqthread_poll", ""),
                             ("ours-iopoll", "fio-hipri", "iopoll/hipri", "")):
    if ours not in agg:
        continue
    b = info[ours][2]
    if like(ours, fio):
        ratio(f"ours/fio {what} (both {b})", ours, like(ours, fio), tgt)
    for other in ("huge", "4k"):
        if other != b and f"{fio}-{other}" in agg:
            ratio(f"ours/fio {what} (ours {b}, fio {other}: buffers)", ours, f"{fio}-{other}", "")
ratio(f"io_uring x1 / psync x{threads} (ours)", "ours-io_uring", "ours-psync", "bw >= 1.00, cpu < 1.00")
PY
fi

[ "$RAND" = 0 ] && exit 0
rand_bytes=$(to_bytes "$RAND_BS")

# rand_ours / rand_fio -> "reads seconds cpu p99_us"
rand_ours() {
	local TIMEFORMAT='%U %S'
	{ time "$NVME_READ_BW" --disks "$target" --engine io_uring --depth "$RAND_DEPTH" -t 1 \
		--pattern rand -s "$RAND_BS" --latency --warmup 0 -D "$DURATION" --json \
		>"$tmp/ours.json" 2>/dev/null; } 2>"$tmp/time"
	python3 - "$tmp/ours.json" "$tmp/time" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["total"]
u, s = map(float, open(sys.argv[2]).read().split()[-2:])
print(t["ios"], t["seconds"], u + s, t["latency_us"]["p99"])
PY
}
rand_fio() {
	local TIMEFORMAT='%U %S'
	{ time "$FIO" --name=rand --filename="$target" --readonly --rw=randread --bs="$rand_bytes" \
		--ioengine=io_uring --iodepth="$RAND_DEPTH" --numjobs=1 --direct=1 --fixedbufs \
		--registerfiles --norandommap --lat_percentiles=1 --time_based --runtime="$DURATION" \
		--output-format=json >"$tmp/fio.json" 2>/dev/null; } 2>"$tmp/time"
	python3 - "$tmp/fio.json" "$tmp/time" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
if j.get("error"):
    sys.exit("fio failed: error %d" % j["error"])
r = j["read"]
u, s = map(float, open(sys.argv[2]).read().split()[-2:])
print(r["total_ios"], r["runtime"] / 1000.0, u + s, r["lat_ns"]["percentile"]["99.000000"] / 1e3)
PY
}
: >"$tmp/rand"
for r in $(seq 1 "$ROUNDS"); do
	for who in ours fio; do
		echo "round $r/$ROUNDS: $who random $RAND_BS, io_uring depth $RAND_DEPTH, 1 thread, ${DURATION}s" >&2
		echo "$who $("rand_$who")" >>"$tmp/rand"
	done
done
python3 - "$tmp/rand" "$target" "$RAND_BS" "$RAND_DEPTH" "$DURATION" "$ROUNDS" <<'PY'
import statistics, sys
from collections import defaultdict
res, target, bs, depth, dur, rounds = sys.argv[1:]
ios, secs, cpu, p99 = (defaultdict(float), defaultdict(float), defaultdict(float),
                       defaultdict(list))
for line in open(res):
    who, n, s, c, p = line.split()
    ios[who] += int(n); secs[who] += float(s); cpu[who] += float(c); p99[who].append(float(p))
def iops(w): return ios[w] / secs[w]
def lat(w): return statistics.median(p99[w])
def cpu_io(w): return cpu[w] / ios[w] * 1e6
print()
print(f"target {target}: random {bs} reads, io_uring depth {depth}, 1 thread/job, "
      f"{rounds} alternating rounds of {dur} s each")
print(f"{'case':<12}{'IOPS':>12}{'p99 us':>10}{'CPU us/read':>13}")
for w in ("ours", "fio"):
    print(f"{w + '-rand':<12}{iops(w):>12.0f}{lat(w):>10.1f}{cpu_io(w):>13.3f}")
print(f"ours/fio    {iops('ours') / iops('fio'):>12.3f}{lat('ours') / lat('fio'):>10.3f}"
      f"{cpu_io('ours') / cpu_io('fio'):>13.3f}  target: IOPS >= 1.00, p99 <= 1.10, CPU <= 1.00")
PY
