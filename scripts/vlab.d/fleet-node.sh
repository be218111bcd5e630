#!/bin/bash
# vlab fleet, nodes b, c, d: serve node a's launcher (the lab's stand-in for
# ssh/srun), so that nbw-fleet run on node a runs this node's parts here. It ends
# when node a sends "launch --stop NODE", or when vlab's --timeout does.
set -u
exec "$VLAB_SRCDIR/scripts/vlab.d/launch-agent" --lifetime "${FLEET_AGENT_LIFETIME:-3600}"
