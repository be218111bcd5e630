#!/bin/bash
# bench_fleet.sh: the host's own cost of nbw-fleet run at scale, measured. A whole sweep
# over NODES fake nodes from the source tree's test fakes (tests/fleet/fakes: an ssh
# stand-in that runs each node's task here, and tools that print canned documents, their
# windows taking WINDOW seconds), RAILS rails and 2 drives a node, one rail and one drive
# slowed; it prints the wall time, each phase's steps and seconds, the peak memory of
# nbw-fleet itself (its VmHWM) and its own processor seconds, the peak of its whole
# process tree (the resident memory of every process it started summed, sampled each
# second: the ssh stand-ins and the fake tools too, which on a cluster run on the nodes),
# the whole tree's processor seconds, and what the judgement named. Then `nbw-fleet
# judge` of the sweep alone: its seconds and peak memory.
#
# Usage: scripts/bench_fleet.sh [NODES]     (default 1024; from the source tree)
# Environment: RAILS (2), FANOUT (256: --fanout), WINDOW (1: --duration and
# --retest-duration, warm-ups 0), KEEP=DIR (keep the sweep in DIR, else a scratch
# directory that goes). It reports; it does not pass or fail.
set -u
prog=bench_fleet.sh
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=bench_lib.sh source-path=SCRIPTDIR
. "$here/bench_lib.sh" || exit 1
fakes=$top/tests/fleet/fakes
[ -x "$fakes/nvme_write_bw_remote" ] || { say "$fakes: not found (run from the source tree)"; exit 1; }
NODES=${1:-1024}
[[ $NODES =~ ^[1-9][0-9]*$ ]] && [ "$NODES" -ge 4 ] || die_usage "NODES=$NODES: a number of nodes, 4 or more"
RAILS=${RAILS:-2} FANOUT=${FANOUT:-256} WINDOW=${WINDOW:-1}
[[ $RAILS =~ ^[1-9]$ ]] || die_usage "RAILS=$RAILS: 1 to 9"
[[ $FANOUT =~ ^[1-9][0-9]*$ ]] || die_usage "FANOUT=$FANOUT: a number"
[[ $WINDOW =~ ^[0-9]+(\.[0-9]+)?$ ]] || die_usage "WINDOW=$WINDOW: seconds"

work=$(mktemp -d "${TMPDIR:-/tmp}/bench_fleet.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/fake" "$work/nodetmp"
cp "$fakes/ssh" "$work/bin/ssh"
devs=$(seq -f 'mlx5_%g' 0 $((RAILS - 1)) | paste -sd,)
nodes=$(seq -f 'n%g' 1 "$NODES" | paste -sd,)
echo 0.5 >"$work/fake/slow.n$((NODES / 3)).mlx5_$((RAILS - 1))"
echo 0.6 >"$work/fake/slow.n$((2 * NODES / 3)).nvme1n1"
sweep=${KEEP:-$work/sweep}

# The sweep in a subshell that reports its processor time (bash's times: its children's)
# once it ended; its tree's memory sampled each second meanwhile.
(env -u SLURM_JOB_ID -u SLURM_JOB_NODELIST -u LAUNCHER_QUOTE -u SRC_DISKS \
	PATH="$work/bin:$PATH" TOOL_DIR="$fakes" FAKE_DIR="$work/fake" LAUNCHER=ssh NET_TIMEOUT=5 \
	THREADS=1 TMPDIR="$work/nodetmp" PYTHONDONTWRITEBYTECODE=1 \
	"${PYTHON3:-python3}" "$top/scripts/nbw-fleet" run --nodes "$nodes" --rail-devs "$devs" \
	--out "$sweep" --fanout "$FANOUT" --duration "$WINDOW" --warmup 0 \
	--retest-duration "$WINDOW" --retest-warmup 0 >"$work/out" 2>"$work/err"
	rc=$?
	times >"$work/times"
	exit "$rc") &
pid=$!
t0=$(date +%s.%N)
tree_kb=0 own_kb=0 own_ticks=0 hz=$(getconf CLK_TCK)
# tree_rss PID: the resident KiB of PID and every process descended from it.
tree_rss() {
	ps -e -o pid=,ppid=,rss= 2>/dev/null | awk -v root="$1" '
		{ parent[$1] = $2; rss[$1] = $3 }
		END { for (p in parent) { q = p; while (q != "" && q != root && q in parent && q != 1) q = parent[q]
			if (q == root) s += rss[p] } print s + 0 }'
}
while kill -0 "$pid" 2>/dev/null; do
	kb=$(tree_rss "$pid")
	[ "$kb" -gt "$tree_kb" ] && tree_kb=$kb
	py=$(pgrep -P "$pid" | head -n1)
	hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/${py:-0}/status" 2>/dev/null)
	[ -n "$hwm" ] && [ "$hwm" -gt "$own_kb" ] && own_kb=$hwm
	# nbw-fleet's own processor time so far (utime + stime: fields 14 and 15, the
	# command name in parentheses holds no space here)
	ticks=$(awk '{ print $14 + $15 }' "/proc/${py:-0}/stat" 2>/dev/null)
	[ -n "$ticks" ] && [ "$ticks" -gt "$own_ticks" ] && own_ticks=$ticks
	sleep 1
done
wait "$pid"
rc=$?
wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
# The processor seconds of everything this script waited for (bash's times: its
# children's user and system time, on its second line).
cpu=$(sed -n 2p "$work/times" | awk '{ split($1, u, /[ms]/); split($2, v, /[ms]/)
	printf "%.1f", u[1] * 60 + u[2] + v[1] * 60 + v[2] }')
[ "$rc" = 0 ] || { say "nbw-fleet run failed (exit $rc): $(tail -n 3 "$work/err")"; exit 1; }

printf 'nbw-fleet run over %d fake nodes, %d rails, 2 drives, %s s windows, fan-out %d\n' \
	"$NODES" "$RAILS" "$WINDOW" "$FANOUT"
printf '  wall time              %s s\n' "$wall"
printf '  nbw-fleet peak memory  %d MiB (VmHWM)\n' $((own_kb / 1024))
printf '  nbw-fleet processor    %s s at least (its own, sampled each second: the schedule,\n' \
	"$(awk -v t="$own_ticks" -v hz="$hz" 'BEGIN { printf "%.1f", t / hz }')"
printf '                         the framed outputs read back, the files, the judgement)\n'
printf '  process tree at peak   %d MiB (nbw-fleet and every process it started: the ssh\n' $((tree_kb / 1024))
printf '                         stand-ins and the nodes'\'' tasks, which a cluster runs elsewhere)\n'
printf '  processor time         %s s (the whole tree, on %s cores; load average %s at the end)\n' \
	"${cpu:-?}" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
sed -n 's/^nbw-fleet: took \(.*\)$/  phases                 \1/p' "$work/err" | sed 's/: /\n                         /; s/, /\n                         /g'
printf '  the judgement          %s\n' "$(head -n1 "$work/out" | sed 's/^nbw-fleet judge: //')"
grep -E '^  [^ ]+ +SUSPECT: ' "$work/out" | sed 's/^  */  named                  /'
t1=$(date +%s.%N)
PYTHONDONTWRITEBYTECODE=1 "${PYTHON3:-python3}" "$top/scripts/nbw-fleet" judge --json "$sweep" \
	>/dev/null 2>"$work/judge.err" &
jp=$!
j_kb=0
while kill -0 "$jp" 2>/dev/null; do
	hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$jp/status" 2>/dev/null)
	[ -n "$hwm" ] && [ "$hwm" -gt "$j_kb" ] && j_kb=$hwm
	sleep 0.2
done
wait "$jp"
printf '  nbw-fleet judge alone  %s s, peak memory %d MiB\n' \
	"$(awk -v a="$t1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')" $((j_kb / 1024))
[ -z "${KEEP:-}" ] || echo "  the sweep: $sweep"
