#!/bin/bash
# fake_setup_delay.sh: a source's set-up after START is absorbed by its warm-up, over the
# fake fabric. Two sources read a file each into a sink with --sources 2; B's drive's
# health log takes 1 s to read (tests/remote/fake_health.c, NBW_FAKE_HEALTH_MS: an
# emulated controller's admin queue, read between START and the window). Its window
# still opens when the sink's does: both sources' windows overlap the sink's, the sum
# is valid at --min-overlap 80 (a window timed from after the reading opened 1 s late:
# about 50% of the 2 s window).
. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/remote/fake_lib.sh"
SRC3_PORTS="fake0:1:eth:127.0.1.3/24:100,fake1:1:eth:127.0.2.3/24:100"
RUN="-s 64K -t 1 --warmup 1.5 -D 2 --timeout 4"
make_pattern "$TMPD/a.img" $((8 << 20)) 1
make_pattern "$TMPD/b.img" $((8 << 20)) 2

# shellcheck disable=SC2086
sink delay $RUN --sources 2 --no-local --dram 8M --json --max-cv 100 --min-overlap 80
# shellcheck disable=SC2086
src delay-a $RUN --disks "$TMPD/a.img" -q 1 --json &
# shellcheck disable=SC2086
NBW_FAKE_HEALTH_MS=1000 SRC_FAKE_PORTS=$SRC3_PORTS src delay-b $RUN --disks "$TMPD/b.img" -q 1 --json
B_RC=$SRC_RC
wait $! || true
sink_status
check_eq "delay: sink and B exit" "0 0" "$SINK_RC $B_RC"
jv delay-b 'd["ok"]'
check_eq "delay: B ok" True "${J[0]}"
jv delay 'sorted(s["overlap_pct"] >= 80 for s in d["sources"])' \
	'd["total_valid"], d.get("total_invalid_reason")' \
	'[round(s["start_offset_s"], 1) for s in d["sources"]]'
check_eq "delay: both sources' windows overlap the sink's (>= 80%)" "[True, True]" "${J[0]}"
check_eq "delay: the fan-in total is valid" "(True, None)" "${J[1]}"
check_eq "delay: each window opened within 0.5 s of the sink's (not 1 s late)" True \
	"$(json_get "$TMPD/delay.out" 'all(abs(s["start_offset_s"]) < 0.5 for s in d["sources"])')"
echo "# start offsets: ${J[2]}"
finish
