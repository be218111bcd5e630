#!/bin/bash
# Nodes b and c of slurm_jobs.sh: slurmd of the lab's Slurm until node a's
# slurmctld is gone (scripts/vlab.d/slurm-up.sh).
set -u
up=$VLAB_SRCDIR/scripts/vlab.d/slurm-up.sh
"$up" start 150 || { "$up" stop; exit 1; }
"$up" wait-down 560
