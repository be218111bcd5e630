#!/bin/bash
# vlab demo, node b: serves node a's launcher (the lab's stand-in for
# ssh/srun/pdsh), so that run_bench.sh ladder on node a runs b's half here:
# its link probe, its drives, the fabric's and the end-to-end source, the
# ib_write_bw client. It ends when node a sends "launch --stop b".
set -u
exec "$VLAB_SRCDIR/scripts/vlab.d/launch-agent" --lifetime 1190
