#!/bin/bash
# Node b of tests/lab/scripts_bench.sh: serves node a's launcher (the lab's
# stand-in for srun/pdsh) until node a sends "launch --stop b" (at its exit); its
# lifetime, the lab's timeout, is only the backstop: node a's steps take 260-300 s on a
# quiet host and more beside a build.
set -u
exec "$VLAB_SRCDIR/scripts/vlab.d/launch-agent" --lifetime 600
