#!/bin/bash
# timed.sh: the automake harness's log compiler: run a test, then say in its
# log how long it took ("# time: 12.3 s", which quickstart's summary reads) and
# the processor time its processes used ("# cpu: 4.5 s user, 1.2 s system": of
# every process the test waited for, qemu included: this shell's cutime and
# cstime in /proc/PID/stat).
start=$(date +%s%N)
"$@"
rc=$?
echo "# time: $(( ($(date +%s%N) - start) / 100000000 ))" | sed -E 's/([0-9])$/.\1 s/; s/: \./: 0./'
read -r stat </proc/$$/stat
read -r -a st <<<"${stat##*) }"
hz=$(getconf CLK_TCK)
awk -v u="${st[13]}" -v s="${st[14]}" -v hz="$hz" \
	'BEGIN { printf "# cpu: %.1f s user, %.1f s system\n", u / hz, s / hz }'
exit $rc
