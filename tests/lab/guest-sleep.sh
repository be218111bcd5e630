#!/bin/bash
# Guest side of lab-timeout.sh: announce, then hang until killed.
echo "guest-sleep: started"
: >"$VLAB_OUT/started"
sleep 100000
