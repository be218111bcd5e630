#!/bin/bash
# run_bench.sh tcp on loopback with the real iperf3: this machine as both nodes
# (sink "localhost", source its host name: neither through a launcher), the sink's
# address 127.0.0.1, 1 and 2 streams for 1 s. Each TCP rung is measured above
# zero: 1 and 2 streams zero-copy, the copy and the reverse at 2, the one stream
# from a file in the source's /dev/shm; the directions named; with an iperf3 older
# than 3.16, 2 streams run as 2 processes (servers on consecutive ports) and the
# ladder says so; the NIC evidence of lo is said missing, not guessed; no iperf3
# and no tmpfs file are left. Then an iperf3 saying 3.16: one process of -P 2.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
# The version as run_bench.sh reads it from a node (untrusted: only its digits).
# shellcheck source=../../scripts/bench_tcp.sh
. "$abs_top_srcdir/scripts/bench_tcp.sh"
for v in 'iperf 3.12 (cJSON 1.7.15)|3012' 'iperf 3.16.1|3016' 'iperf 3.08|3008' 'iperf 3.9999|' \
	'iperf3 3.16|' 'iperf 3.16$(touch x)|3016' 'iperf 3|' "iperf 4.1;reboot|4001" '|'; do
	check_eq "iperf3 --version '${v%|*}' read as" "${v#*|}" "$(printf '%s\nLinux x 6.1\n' "${v%|*}" | iperf3_version_num)"
done
command -v iperf3 >/dev/null || skip "iperf3 is not installed (apt-get install iperf3)"
[ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] || skip "/dev/shm is not a tmpfs"
port=$("$PYTHON3" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
[ "$port" -lt 65000 ] || skip "the free port $port leaves no room for a second server"
ver=$(iperf3 --version 2>/dev/null | sed -n '1s/^iperf \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
procs=2
[ -n "$ver" ] && [ $((10#${ver% *} * 1000 + 10#${ver#* })) -ge 3016 ] && procs=1
me=$(hostname)
export RESULTS_DIR=$TMPD/results RUN_NAME=lo SINK_NODE=localhost SRC_NODE=$me SINK_ADDR=127.0.0.1
export TCP_PORT=$port TCP_STREAMS="1 2" DURATION=1 WARMUP=0 TCP_FILE_SIZE=8M PING=none IPERF3=iperf3
timeout 120 "$RUN_BENCH" tcp >"$TMPD/out" 2>"$TMPD/err"
check_eq "tcp on loopback: exit status" 0 $?
# Mode tcp prints the ladder; ladder_report writes its ladder.json.
"$abs_top_srcdir/scripts/ladder_report" "$RESULTS_DIR/lo" >/dev/null
L=$RESULTS_DIR/lo/ladder.json
check_eq "the rungs, in the ladder's order" \
	"tcp (1 stream)|tcp (2 streams)|tcp copy (2 streams)|tcp reverse (2 streams)|tcp from file (sendfile)" \
	"$(json_get "$L" '"|".join(r["name"] for r in d["rungs"] if r["kind"] == "tcp")')"
check_eq "every TCP rung measured above zero, with the receiver's CPU" True \
	"$(json_get "$L" 'all(r["measured_gb_per_s"] > 0 and r["receiver_cpu_s_per_gib"] is not None for r in d["rungs"] if r["kind"] == "tcp")')"
check_eq "directions, zero-copy, streams" \
	"$me -> localhost True 1|$me -> localhost True 2|$me -> localhost False 2|localhost -> $me True 2|$me -> localhost True 1" \
	"$(json_get "$L" '"|".join("%s %s %d" % (r["direction"], r["zero_copy"], r["streams"]) for r in d["rungs"] if r["kind"] == "tcp")')"
check_eq "processes of the 2-stream rungs (iperf3 ${ver/ /.}: $procs)" "$procs $procs $procs" \
	"$(json_get "$L" '" ".join(str(r["processes"]) for r in d["rungs"] if r["kind"] == "tcp" and r["streams"] == 2)')"
if [ "$procs" = 2 ]; then
	check_match "the ladder says the streams ran as processes" "^iperf3 ${ver/ /\\.} < 3\\.16: 2 streams as 2 processes" "$(cat "$TMPD/out")"
	check_eq "the second server on the next port (2 streams, copy, reverse)" 3 "$(grep -c -- "-p $((port + 1)) -J" "$TMPD/err")"
fi
check_eq "lo has no link speed: no line rate, no % of line" "None None" \
	"$(json_get "$L" '"%s %s" % (d["rungs"][0]["line_rate_gb_per_s"], d["rungs"][0]["pct_of_line"])')"
check_match "lo's pause counters said missing" "^NIC counters missing on $me \\(not guessed\\): .*pause_tx" "$(cat "$TMPD/out")"
check_eq "no iperf3 left on the test's ports" "" "$(pgrep -f -- "iperf3 -s -1 -p ($port|$((port + 1))) " || true)"
check_eq "the sendfile rung's file removed" "" "$(ls /dev/shm/nbw-tcpfile.lo.* 2>/dev/null)"

# An iperf3 that says it is 3.16 (a wrapper of the real one): 2 streams from one
# process (-P 2), processes 1, nothing said about processes.
mkdir -p "$TMPD/new"
printf '#!/bin/sh\n[ "$1" = --version ] && { echo "iperf 3.16.1 (cJSON 1.7.15)"; exit 0; }\nexec iperf3 "$@"\n' >"$TMPD/new/iperf3"
chmod +x "$TMPD/new/iperf3"
RUN_NAME=lo316 IPERF3=$TMPD/new/iperf3 TCP_STREAMS=2 timeout 120 "$RUN_BENCH" tcp >"$TMPD/out" 2>"$TMPD/err"
check_eq "iperf3 3.16: exit status" 0 $?
"$abs_top_srcdir/scripts/ladder_report" "$RESULTS_DIR/lo316" >/dev/null
check_eq "iperf3 3.16: the 2-stream rungs in one process each, above zero" "1 1 1 True" \
	"$(json_get "$RESULTS_DIR/lo316/ladder.json" '" ".join(str(r["processes"]) for r in d["rungs"] if r["streams"] == 2) + " " + str(all(r["measured_gb_per_s"] > 0 for r in d["rungs"]))')"
check_match "iperf3 3.16: one client of -P 2" 'tcp2: iperf3 client 1/1 on .* -P 2 -Z ' "$(cat "$TMPD/err")"
check_eq "iperf3 3.16: nothing said about processes" "" "$(grep 'as processes\|< 3.16' "$TMPD/out" "$TMPD/err")"
check_eq "no iperf3 left on the test's ports" "" "$(pgrep -f -- "iperf3 -s -1 -p ($port|$((port + 1))) " || true)"
finish
