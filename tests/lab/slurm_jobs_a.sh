#!/bin/bash
# Node a of slurm_jobs.sh: the lab's Slurm up (scripts/vlab.d/slurm-up.sh),
# then the batch scripts of deploy/slurm/ submitted from $VLAB_OUT: one with
# one node too few, aggregate (2 nodes), fan-in (3 nodes), the fleet sweep (2
# nodes, fleet-JOBID/ beside the results), and an aggregate
# cancelled while its tools run, after which a job on every node looks for
# tool processes left behind. Each job's id, exit status, seconds, output and
# `scontrol show job` go to $VLAB_OUT for the host's checks, with slurmctld's
# completion log (jobcomp.txt), the nodes' states at the end (nodes.txt) and
# the record of the runs (record/).
set -u
up=$VLAB_SRCDIR/scripts/vlab.d/slurm-up.sh
D=$VLAB_SRCDIR/deploy/slurm
export SLURM_CONF=/run/slurm-lab/slurm.conf
trap '"$up" stop' EXIT
"$up" start 150 || exit 1
cd "$VLAB_OUT" || exit 1
# shellcheck disable=SC2086 # the drives' paths, a word each
set -- $VLAB_DRIVES
# run_bench.sh's settings, through sbatch's environment; the sink's address
# from its lab NIC (RDMA_NETDEV: a step on the sink asks). The sink's rules
# for a valid total loosened for emulated nodes on a shared host (SINK_ARGS):
# in the first full run (-D 4, 1 MiB chunks) a source's window opened
# 0.1-0.5 s after the sink's (88-94% overlap) and the 1 s samples of a stream
# of 1-2 chunks a second varied 8-82%. With -D 6 a 0.5 s late start still
# overlaps 91% (--min-overlap 80 allows 1.2 s), and 256 KiB chunks give each
# 1 s sample several chunks. Which verdict comes stays the emulator's timing:
# the host checks that one is given, not which. Every run is recorded into
# $VLAB_OUT/record (nbw-results; the default directory is on the guest's
# read-only /), its SQLite index on the guest's own /tmp: the record's share
# is 9p, whose server grants every lock.
export RDMA_NETDEV=$VLAB_NETDEV SINK_DISKS=$1 SRC_DISKS=$1 DRAM=64M THREADS=1 WARMUP=2 \
	DURATION=6 CHUNK=256K NET_TIMEOUT=20 SINK_WAIT=120 VERIFY=full \
	SINK_ARGS="--min-overlap 80 --max-cv 100" \
	RESULTS=$VLAB_OUT/record NBW_RESULTS_INDEX=/tmp/nbw-results.index.sqlite

# submit NAME SECS SBATCH_ARGS...: sbatch --wait, at most SECS; NAME.id,
# NAME.rc, NAME.secs, NAME.out (the job's output), NAME.job (scontrol show job).
submit() {
	local name=$1 secs=$2 t0 id
	shift 2
	t0=$(date +%s)
	timeout "$secs" sbatch --wait --parsable --output="$name-%j.out" "$@" >"$name.id" 2>"$name.err"
	echo $? >"$name.rc"
	echo $(($(date +%s) - t0)) >"$name.secs"
	id=$(head -n1 "$name.id")
	# Out of time: the job goes too, or the next one would wait for its nodes.
	[ "$(cat "$name.rc")" != 124 ] || scancel "$id"
	cp "$name-$id.out" "$name.out" 2>/dev/null
	scontrol show job -o "$id" >"$name.job" 2>&1
	echo "== $name: job $id, exit $(cat "$name.rc"), $(cat "$name.secs") s"
	cat "$name.out" "$name.err"
}

# The bounds: on a host whose 2 cores run other work too, one aggregate job
# took 5 minutes (a 1 minute batch start and the sink's address step, 85 s of
# inventory steps, 1 minute of tools, 1 minute of teardown and recording).
submit few 120 --nodes=1 "$D/aggregate.sbatch"
submit agg 600 "$D/aggregate.sbatch"
submit fan 600 "$D/fanin.sbatch"
# The fleet sweep as one job over two nodes, kept short (one round: 2 probes and
# reads, 2 transfers from memory, 2 drives -> remote DRAM, 6 s windows): into
# fleet-JOBID/ here, recorded as above. The threshold as tests/lab/fleet.sh's
# (the emulated pairs spread to 0.39 of their median) and --floor none as its (the
# emulated parts say nothing of what their links and ports carry): nothing named on a
# clean lab. FLEET_DRAIN=1: with no suspect, no node drained (every node idle at
# the end). VERIFY as in tests/lab/fleet.sh's sweeps (run_bench.sh's default, canary).
VERIFY=canary FLEET_DRAIN=1 FLEET_ARGS="--duration 6 --warmup 2 --threshold 0.25 --floor none" \
	submit fleet 900 --nodes=2 "$D/fleet.sbatch"

# Cancelled while the sink and the source run (a 120 s window). Neither
# recorded (RESULTS=none: no inventory steps) nor an address step (SINK_ADDR):
# what is tested here is the end.
RESULTS=none SINK_ADDR=$VLAB_ADDR DURATION=120 \
	sbatch --parsable --output="cancel-%j.out" "$D/aggregate.sbatch" >cancel.id
id=$(cat cancel.id)
end=$(($(date +%s) + 300))
# The sink, the source's step and the batch step running: 3 steps or more
# (the sink's address step ended before).
until [ "$(squeue -h -s -j "$id" -o '%i %N' 2>/dev/null | grep -c "^$id\.[0-9]")" -ge 2 ] &&
	grep -q 'source on .* (try 1)' "cancel-$id.out" 2>/dev/null; do
	[ "$(date +%s)" -lt "$end" ] || { echo "cancel: the source never started"; break; }
	sleep 1
done
sleep 5
squeue -s -j "$id" -o '%i %N %M' >cancel.steps
cat cancel.steps
t0=$(date +%s)
scancel "$id"
until [ -z "$(squeue -h -j "$id" 2>/dev/null)" ] || [ "$(date +%s)" -ge $((t0 + 90)) ]; do sleep 1; done
echo $(($(date +%s) - t0)) >cancel.secs
scontrol show job -o "$id" >cancel.job 2>&1
cp "cancel-$id.out" cancel.out
echo "== cancel: job $id gone after $(cat cancel.secs) s"
cat cancel.out
# Any tool process left, on every node: one step per node, each printing its
# host name and how many tool processes it sees (pgrep -c: 0 and exit 1 when
# none; the line itself proves the step ran there).
timeout 150 srun --nodes="$VLAB_NODES" --ntasks-per-node=1 sh -c \
	'echo "$(hostname) $(pgrep -c -f "(^|/)nvme_(write_bw_remote|read_bw|link_probe)( |$)")"' \
	>left.txt 2>left.err
echo $? >left.rc
echo "== left: exit $(cat left.rc)"
cat left.txt left.err
# The nodes' states at the end (every node idle: none was set DOWN), once the
# last job's nodes have completed (at most 60 s).
for _ in $(seq 60); do
	sinfo -h -N -o '%N %t' >nodes.txt 2>&1
	grep -qv ' idle$' nodes.txt || break
	sleep 1
done
echo "== nodes: $(tr '\n' ' ' <nodes.txt)"
cp /run/slurm-lab/jobcomp.txt jobcomp.txt 2>/dev/null
exit 0
