#!/bin/bash
# fake_attrib.sh: the attribution in words over the fake fabric, on the paths that print it
# (the fake's ports run far below their 100 Gb/s line rate, so a memory source's one rail is
# always low against it):
# - a pair whose sink ports keep loss and congestion counters that never move (":still",
#   a port slowed by a shaper): "the rate itself is limited", with the packets and bytes
#   the port moved; the same pair with a lossy port says loss, not the new words; on ports
#   that keep no retransmission count it says "not kept", not the new words;
# - --sources 2: the total's attribution and each source's, in text and JSON;
# - --bidir: each direction's, on both sides.
. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/remote/fake_lib.sh"

# sinkports FLAGS0 [FLAGS1]: the sink's two ports, fake0's flags, fake1's (default fake0's).
sinkports() {
	echo "fake0:1:eth:127.0.1.1/24:100$1,fake1:1:eth:127.0.2.1/24:100${2-$1}"
}
RAIL='[a for a in d["attribution"] if a["hop"] == "rail"]'

# 1. The pair, one rail (one QP) of a memory source, against its line rate.
SINK_FAKE_PORTS=$(sinkports :still) pair shaped "--no-local --dram 4M --json" "--source mem -q 1 --json"
check_eq "shaped: exits" "0 0" "$SINK_RC $SRC_RC"
jv shaped-sink "len($RAIL)" "${RAIL}[0]['counters_still']" "${RAIL}[0]['rules']" \
	"${RAIL}[0]['below_line_rate_pct'] >= 10" "${RAIL}[0]['packets_moved'] > 0" \
	"${RAIL}[0]['bytes_moved'] >= d['rdma']['bytes'] > 0" "${RAIL}[0]['counters_not_kept']" \
	"${RAIL}[0]['text']"
check_eq "shaped: its one rail named" 1 "${J[0]}"
check_eq "shaped: counters kept and still: the rate is limited" "rate_limited" "${J[1]}"
check_eq "shaped: no rule fired" "[]" "${J[2]}"
check_eq "shaped: below its line rate" True "${J[3]}"
check_eq "shaped: the packets its port moved" True "${J[4]}"
check_eq "shaped: the bytes it moved hold the figure" True "${J[5]}"
check_eq "shaped: what the port does not keep" "['out_of_sequence', 'rnr', 'link_downed']" "${J[6]}"
check_match "shaped: in words" \
	"^rail fake0:1: [0-9]+% below its line rate; no retransmission, CNP or ECN mark, xmit wait \(pause\) or link error counted on this end in the window \(not kept here: out-of-sequence packets, RNR NAKs and buffer overruns and link downs\): the rate itself is limited \(a shaper or policer, the port's speed, a slower path, too few WRITEs in flight\), not loss or congestion; its port moved [0-9,]+ packets and [0-9,]+ bytes$" \
	"${J[7]}"
SINK_FAKE_PORTS=$(sinkports :still) pair shaped-text "--no-local --dram 4M" "--source mem -q 1"
check_match "shaped: the text says it under the counters" \
	"Attribution +: +rail fake0:1: [0-9]+% below its line rate; no retransmission.*the rate itself is limited" \
	"$(tr '\n' ' ' <"$TMPD/shaped-text-sink.out")"

# Congested: retransmissions moved: the old words, not the new.
SINK_FAKE_PORTS=$(sinkports :lossy) pair lossy "--no-local --dram 4M --json" "--source mem -q 1 --json"
jv lossy-sink "[(a['device'], [x['rule'] for x in a['rules']], a['counters_still']) for a in $RAIL]" \
	"any('rate itself' in a['text'] for a in d['attribution'])"
check_eq "lossy: loss said, not judged still" "[('fake0', ['loss'], None)]" "${J[0]}"
check_eq "lossy: not the new words" False "${J[1]}"

# No retransmission count kept (the fake's plain ports): "not kept", not the new words.
pair plain "--no-local --dram 4M --json" "--source mem -q 1 --json"
jv plain-sink "[(a['device'], a['counters_still']) for a in $RAIL]" \
	"any('rate itself' in a['text'] for a in d['attribution'])" "${RAIL}[0]['text']"
check_eq "not kept: said so" "[('fake0', 'not_kept')]" "${J[0]}"
check_eq "not kept: not the new words" False "${J[1]}"
check_match "not kept: in words" "retransmissions not kept on its port \(never read as 0\)" "${J[2]}"

# 2. Fan-in: the total's attribution and each source's (the sink's fake0 lossy and ECN).
SRC3_PORTS="fake0:1:eth:127.0.1.3/24:100,fake1:1:eth:127.0.2.3/24:100"
fanin() {
	# shellcheck disable=SC2086
	SINK_FAKE_PORTS=$(sinkports "$2" "$3") sink "$1" $RUN --sources 2 --no-local --dram 8M \
		--max-cv 100 --min-overlap 10 ${4:-}
	# shellcheck disable=SC2086
	src "$1-a" $RUN --source mem -q 2 ${4:-} &
	# shellcheck disable=SC2086
	SRC_FAKE_PORTS=$SRC3_PORTS src "$1-b" $RUN --source mem -q 1 ${4:-}
	wait $! || true
	sink_status
}
fanin fan :lossy:ecn "" --json
check_eq "fan-in: sink exit" 0 "$SINK_RC"
P='[(a["device"], [x["rule"] for x in a["rules"]]) for a in %s if a["rules"]]'
# shellcheck disable=SC2059
jv fan "$(printf "$P" 'd["attribution"]')" \
	"[$(printf "$P" 's["attribution"]') for s in d['sources']]" \
	"[any(r['local_dev'] == 'fake0' for r in s['rails']) for s in d['sources']]"
check_eq "fan-in: the total names the sink's congested port" "[('fake0', ['congestion'])]" "${J[0]}"
case ${J[2]} in
"[True, True]") want="[[('fake0', ['congestion'])], [('fake0', ['congestion'])]]" ;;
"[True, False]") want="[[('fake0', ['congestion'])], []]" ;;
*) want="[[('fake0', ['congestion'])], [('fake0', ['congestion'])]]" ;;
esac
check_eq "fan-in: each source whose rails ran over it names it, only those" "$want" "${J[1]}"
fanin fantext :lossy:ecn ""
check_eq "fan-in text: sink exit" 0 "$SINK_RC"
check_eq "fan-in text: the total's and the sources' attributions" True \
	"$([ "$(grep -c '^ Attribution' "$TMPD/fantext.out")" -ge 2 ] && echo True)"
check_match "fan-in text: in words" \
	"fake0:1:( [0-9]+% below its [a-z ]+;)? [0-9,]+ retransmissions and [0-9,]+ CNPs and ECN marks in the window: congestion on that path" \
	"$(cat "$TMPD/fantext.out")"
# A source of one rail is never held against the line rate of a port the sources share.
fanin fanstill :still :still --json
jv fanstill "[[a['hop'] for a in s.get('attribution', [])] for s in d['sources'] if len(s['rails']) == 1]"
check_eq "fan-in: a one-rail source not named against a shared port's line rate" "[[]]" "${J[0]}"

# 3. --bidir: each direction's attribution, on both sides (side A's fake0 lossy and ECN).
bidir() {
	PORT=$((20000 + RANDOM % 40000))
	# shellcheck disable=SC2086
	NBW_FAKE_PORTS=$(sinkports "$2" "") timeout 60 "$FAKE" -p "$PORT" --bidir $RUN --dram 4M \
		--source mem --json --min-overlap 10 127.0.1.2 >"$TMPD/$1-a.out" 2>"$TMPD/$1-a.err" &
	SINK_PID=$!
	SRC_RC=0
	# shellcheck disable=SC2086
	NBW_FAKE_PORTS=$SRC_PORTS timeout 60 "$FAKE" -p "$PORT" --bidir $RUN --dram 4M \
		--source mem --json --min-overlap 10 127.0.1.1 >"$TMPD/$1-b.out" 2>"$TMPD/$1-b.err" ||
		SRC_RC=$?
	sink_status
}
bidir bi :lossy:ecn
check_eq "bidir: exits" "0 0" "$SINK_RC $SRC_RC"
# shellcheck disable=SC2059
jv bi-a "$(printf "$P" 'd["receive"]["attribution"]')" "$(printf "$P" 'd["send"]["attribution"]')"
check_eq "bidir A: receive names its congested port" "[('fake0', ['congestion'])]" "${J[0]}"
check_eq "bidir A: send too (the same port)" "[('fake0', ['congestion'])]" "${J[1]}"
jv bi-b "sorted({a['counters_still'] for k in ('receive', 'send') for a in d[k].get('attribution', []) if a['hop'] == 'rail'})" \
	"[a for k in ('receive', 'send') for a in d[k].get('attribution', []) if a['rules']]"
check_eq "bidir B: its rails named, its ports keep no retransmission count" "['not_kept']" "${J[0]}"
check_eq "bidir B: no rule fired" "[]" "${J[1]}"
finish
