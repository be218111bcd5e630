#!/bin/bash
# Node b of tests/lab/ladder.sh: serves node a's launcher until node a sends
# "launch --stop b", for at most 530 s: the ladder with its upper rungs
# (ladder_upper.sh) outlasts scripts_guest_b.sh's 290 s on a busy host.
set -u
exec "$VLAB_SRCDIR/scripts/vlab.d/launch-agent" --lifetime 530
