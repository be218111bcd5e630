#!/bin/bash
# bench_read.sh: nvme_read_bw against fio on the same target, side by side in one run.
#
#   scripts/bench_read.sh [TARGET]
#
# TARGET is a block device or a file (default: a 2 GiB file of random data created in
# $BENCH_DIR, default the current directory, removed afterwards). Both tools read it with
# O_DIRECT, the same chunk, threads (each thread/job its own region) and window, no
# warm-up (so CPU time and bytes cover the same whole run). Rounds alternate the tools
# (ours, fio, ours, fio, ...) to spread the machine's noise over both. Printed: GB/s and
# CPU seconds (user + system, the process and its threads) per GiB read, for each case,
# with the ratios ours/fio, and the io_uring-vs-psync engine comparison.
#
# Environment: THREADS (default 12), CHUNK (1M), DURATION (10 s), DEPTH (8),
# ROUNDS (3), BENCH_SIZE (2G), NVME_READ_BW, FIO.
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

command -v "$FIO" >/dev/null || { echo "bench_read.sh: fio not found (apt-get install fio)" >&2; exit 2; }
[ -x "$NVME_READ_BW" ] || { echo "bench_read.sh: $NVME_READ_BW not built" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench_read.XXXXXX")
trap 'rm -rf "$tmp"; [ -n "${made:-}" ] && rm -f "$made"' EXIT

target=${1:-}
if [ -z "$target" ]; then
	made="${BENCH_DIR:-.}/bench_read.$$.img"
	echo "creating $BENCH_SIZE of random data in $made" >&2
	size_mib=$(( $("$NVME_READ_BW" --version >/dev/null; python3 -c "
import sys
s = sys.argv[1].upper()
m = {'K': 1 << 10, 'M': 1 << 20, 'G': 1 << 30}
print(int(s[:-1]) * m[s[-1]] if s[-1] in m else int(s))" "$BENCH_SIZE") / 1048576 ))
	dd if=/dev/urandom of="$made" bs=1M count="$size_mib" status=none conv=fsync
	sync
	target=$made
fi
if [ -b "$target" ]; then size=$(blockdev --getsize64 "$target"); else size=$(stat -c %s "$target"); fi
chunk_bytes=$(python3 -c "
import sys
s = sys.argv[1].upper()
m = {'K': 1 << 10, 'M': 1 << 20, 'G': 1 << 30}
print(int(s[:-1]) * m[s[-1]] if s[-1] in m else int(s))" "$CHUNK")

# run_ours ENGINE THREADS DEPTH -> "bytes seconds cpu"
run_ours() {
	local engine=$1 t=$2 d=$3 extra=()
	[ "$engine" = io_uring ] && extra=(--depth "$d")
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

# run_fio ENGINE JOBS DEPTH -> "bytes seconds cpu"; each job reads its own region like ours.
run_fio() {
	local engine=$1 t=$2 d=$3 extra=()
	local region=$(( size / t / 4096 * 4096 ))
	[ "$engine" = io_uring ] && extra=(--iodepth="$d" --fixedbufs --registerfiles)
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
print(r["io_bytes"], r["runtime"] / 1000.0, u + s)
PY
}

# case NAME TOOL ENGINE THREADS DEPTH: ROUNDS runs; appends "NAME bytes seconds cpu" lines.
declare -a cases=(
	"ours-psync ours psync $THREADS 1"
	"fio-psync fio psync $THREADS 1"
	"ours-io_uring ours io_uring 1 $DEPTH"
	"fio-io_uring fio io_uring 1 $DEPTH"
)
: >"$tmp/results"
for r in $(seq 1 "$ROUNDS"); do
	for c in "${cases[@]}"; do
		set -- $c
		echo "round $r/$ROUNDS: $1 ($4 thread(s), depth $5, chunk $CHUNK, ${DURATION}s)" >&2
		echo "$1 $(run_$2 "$3" "$4" "$5")" >>"$tmp/results"
	done
done

python3 - "$tmp/results" "$target" "$CHUNK" "$THREADS" "$DEPTH" "$DURATION" "$ROUNDS" <<'PY'
import sys
from collections import defaultdict
res, target, chunk, threads, depth, dur, rounds = sys.argv[1:]
agg = defaultdict(lambda: [0, 0.0, 0.0])
for line in open(res):
    name, b, s, c = line.split()
    a = agg[name]
    a[0] += int(b); a[1] += float(s); a[2] += float(c)
def gbps(n): return agg[n][0] / agg[n][1] / 1e9
def cpu(n): return agg[n][2] / (agg[n][0] / 2**30)
print(f"target {target}: chunk {chunk}, {rounds} alternating rounds of {dur} s each, no warm-up")
print(f"{'case':<16}{'threads':>8}{'depth':>6}{'GB/s':>9}{'CPU s/GiB':>11}")
rows = [("ours-psync", threads, 1), ("fio-psync", threads, 1),
        ("ours-io_uring", 1, depth), ("fio-io_uring", 1, depth)]
for n, t, d in rows:
    print(f"{n:<16}{t:>8}{d:>6}{gbps(n):>9.3f}{cpu(n):>11.4f}")
print()
print(f"{'ratio':<34}{'bandwidth':>10}{'CPU/GiB':>9}  target")
for e in ("psync", "io_uring"):
    print(f"{'ours/fio ' + e:<34}{gbps('ours-' + e) / gbps('fio-' + e):>10.3f}"
          f"{cpu('ours-' + e) / cpu('fio-' + e):>9.3f}  bw >= 0.97, cpu <= 1.00")
print(f"{'io_uring x1 / psync x' + threads + ' (ours)':<34}{gbps('ours-io_uring') / gbps('ours-psync'):>10.3f}"
      f"{cpu('ours-io_uring') / cpu('ours-psync'):>9.3f}  bw >= 1.00, cpu < 1.00")
PY
