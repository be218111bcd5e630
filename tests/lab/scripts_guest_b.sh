#!/bin/bash
# Node b of tests/lab/scripts_bench.sh: serves node a's launcher (the lab's
# stand-in for srun/pdsh) until node a sends "launch --stop b".
set -u
exec "$VLAB_SRCDIR/scripts/vlab.d/launch-agent" --lifetime 290
