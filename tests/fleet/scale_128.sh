#!/bin/bash
# tests/fleet/scale.sh over 128 fake nodes (make check-slow): the whole sweep, a rail and
# a drive slowed at random and named exactly, in under 5 minutes on a 2-core machine.
FLEET_SCALE_NODES=128 exec bash "$(dirname "$0")/scale.sh" "$@"
