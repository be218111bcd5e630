#!/bin/bash
# Node b of tests/lab/scripts_bench.sh: serves node a's launcher (the lab's
# stand-in for srun/pdsh) until node a sends "launch --stop b". vlab passes
# arguments to node a's script only: the test runs this one through a
# one-line wrapper that passes the source tree.
set -u
exec "$1/scripts/vlab.d/launch-agent" --lifetime "${2:-290}"
