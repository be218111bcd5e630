#!/bin/bash
# Guest side of timeout.sh: announce, then hang until killed. At the
# SIGTERM of the script's timeout, "ran" gets how long the script lived, on the
# guest's clock: from its process's start (/proc/self/stat field 22, the fork
# by timeout(1)) to the signal. The shared files' times on the host said 3 s
# and 4.4 s under load (their writes reach the host late), so they are not used.
start=$(awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", $22 / hz }' /proc/$$/stat)
# shellcheck disable=SC2154 # up: read by the handler itself
trap 'read -r up _ </proc/uptime; echo "$up - $start" | bc >"$VLAB_OUT/ran"; exit 143' TERM
echo "timeout_guest: started"
: >"$VLAB_OUT/started"
sleep 100000 &
wait $!
