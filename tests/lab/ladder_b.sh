#!/bin/bash
# Node b of tests/lab/ladder.sh: serves node a's launcher until node a sends
# "launch --stop b", for at most 890 s: two ladders (ladder.sh, 700 s) or one
# with its upper rungs (ladder_upper.sh, 900 s) outlast scripts_bench_b.sh's
# 290 s on a busy host.
set -u
exec "$VLAB_SRCDIR/scripts/vlab.d/launch-agent" --lifetime 890
