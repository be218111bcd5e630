#!/bin/bash
# Nodes b and c of slurm_jobs.sh: slurmd of the lab's Slurm until node a's
# stop shuts every slurmd down (scripts/vlab.d/slurm-up.sh wait-down), at most
# until 2380 s after this script's start: before vlab's --timeout 2400 ends it.
set -u
up=$VLAB_SRCDIR/scripts/vlab.d/slurm-up.sh
"$up" start 150 || { "$up" stop; exit 1; }
"$up" wait-down $((2380 - SECONDS))
