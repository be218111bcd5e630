#!/bin/bash
# tests/lab/ladder_upper.sh (make check-slow): tests/lab/ladder.sh with the
# ladder's upper rungs on: TCP (iperf3, 1 and 8 streams) and NFS over RDMA and
# over TCP between the two lab nodes, nothing left behind on either.
LADDER_UPPER=1 exec bash "$(dirname "$0")/ladder.sh" "$@"
