#!/bin/bash
# timed.sh: the automake harness's log compiler: run a test, then say in its
# log how long it took ("# time: 12.3 s"), which quickstart's summary reads.
start=$(date +%s%N)
"$@"
rc=$?
echo "# time: $(( ($(date +%s%N) - start) / 100000000 ))" | sed -E 's/([0-9])$/.\1 s/; s/: \./: 0./'
exit $rc
