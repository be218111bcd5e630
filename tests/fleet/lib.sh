# tests/fleet/lib.sh: sourced by the nbw-fleet run tests after tests/lib.sh: nbw-fleet as FLEET, the
# ssh stand-in first on PATH, the fake tools of tests/fleet/fakes (steered by files in
# $FAKE_DIR), short windows, and none of the caller's settings of the tools, launchers
# or Slurm.
# shellcheck shell=bash disable=SC2034 # FLEET is the tests'
export PYTHONDONTWRITEBYTECODE=1
FLEET=("$PYTHON3" "$abs_top_srcdir/scripts/nbw-fleet")
FAKES=$abs_top_srcdir/tests/fleet/fakes
mkdir -p "$TMPD/bin" "$TMPD/fake" "$TMPD/nodetmp"
cp "$FAKES/ssh" "$TMPD/bin/ssh"
export PATH=$TMPD/bin:$PATH TOOL_DIR=$FAKES FAKE_DIR=$TMPD/fake LAUNCHER=ssh RESULTS=none
export THREADS=1 NET_TIMEOUT=5 TMPDIR=$TMPD/nodetmp
unset SINK_NODE SRC_NODE NODES LAUNCHER_QUOTE SINK_DISKS SRC_DISKS RDMA_DEV SLURM_JOB_NODELIST \
	SLURM_JOB_ID SLURM_JOB_END_TIME SINK_ARGS SRC_ARGS SINK_ADDR SRC_ADDR REMOTE_ARGS READ_ARGS \
	QPS NBW_SRUN FAKE_SCALE
