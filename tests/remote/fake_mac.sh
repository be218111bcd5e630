#!/bin/bash
# fake_mac.sh: the control channel after a keyed AUTH (proto/ctrl_mac.h), end to end over
# the fake fabric, with a host on the path (tests/remote/relay.py) between the source and
# the sink that relays both proofs as they are and then alters one message: a byte of the
# RESULT, of the VERIFY table's MAC or of the sink's DONE flipped, a heartbeat replayed or
# dropped; the source's last message sent again in the same write or in a write of its
# own at several delays (the sink reads until the source's end). Each ends the run on the
# side that received it with one line and exit 1 (the sink's JSON: not ok, the same
# reason; a VERIFY table that failed its MAC fails the verdict). Without the relay's
# change the keyed run passes, every message after AUTH in version 4 with its 32-byte MAC;
# without a key the wire holds version 3 messages and no trailer, as before.
. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/remote/fake_lib.sh"
command -v "$PYTHON3" >/dev/null || skip "$PYTHON3 not found"

printf 'a key of thirty-two bytes or so.\n' >"$TMPD/key"
chmod 600 "$TMPD/key"
RELAY_PID=
t_cleanup_hooks+=('[ -n "$RELAY_PID" ] && kill "$RELAY_PID" 2>/dev/null')

# relayed NAME "SINK AND SOURCE ARGS" [ACTION:TYPE]: a sink, the relay, a source through
# it; SINK_RC, SRC_RC; the relay's log of the wire in NAME.wire.
relayed() {
	local n=$1 args=$2 act=${3:-}
	# shellcheck disable=SC2086
	sink "$n-sink" $RUN --no-local --dram 4M --wait 8 --json $args
	RPORT=$((20000 + RANDOM % 40000))
	"$PYTHON3" "$abs_top_srcdir/tests/remote/relay.py" "$TMPD/$n.wire" 127.0.1.1 "$RPORT" \
		127.0.1.1 "$PORT" ${act:+"$act"} >"$TMPD/$n.relay" 2>&1 &
	RELAY_PID=$!
	for _ in $(seq 200); do
		grep -q listening "$TMPD/$n.relay" 2>/dev/null && break
		sleep 0.05
	done
	SRC_RC=0
	# shellcheck disable=SC2086
	NBW_FAKE_PORTS=$SRC_PORTS timeout 60 "$FAKE" -p "$RPORT" $RUN --source mem $args \
		127.0.1.1 >"$TMPD/$n-src.out" 2>"$TMPD/$n-src.err" || SRC_RC=$?
	sink_status
	wait "$RELAY_PID" 2>/dev/null
	RELAY_PID=
}

# wire NAME: the relay's lines, "direction version type trailer" one per message.
wire() { awk '{print $1, $2, $3, $5}' "$TMPD/$1.wire" | tr '\n' ';'; }

KEY="--psk-file $TMPD/key"

relayed good "$KEY --verify full"
check_eq "good: a keyed run through the relay passes" "0 0" "$SINK_RC $SRC_RC"
jv good-sink 'd["verify"]'
check_eq "good: verified" "pass" "${J[0]}"
check_match "good: AUTH plain, then every message v4 with a MAC, both ways" \
	"^s>k v3 AUTH 0;k>s v3 AUTH 0;s>k v3 AUTH 0;k>s v3 AUTH 0;s>k v4 HELLO 32;k>s v4 ACCEPT 32;.*s>k v4 RESULT 32;s>k v4 VERIFY 32;k>s v4 DONE 32;$" \
	"$(wire good)"
check_eq "good: nothing after AUTH without a MAC" "" "$(grep -v AUTH "$TMPD/good.wire" | grep -v ' v4 .* 32 ')"

relayed plain "--verify full"
check_eq "plain: without a key the run passes" "0 0" "$SINK_RC $SRC_RC"
check_match "plain: the wire as before: version 3, no trailer" \
	"^s>k v3 AUTH 0;k>s v3 AUTH 0;s>k v3 HELLO 0;k>s v3 ACCEPT 0;.*s>k v3 RESULT 0;s>k v3 VERIFY 0;k>s v3 DONE 0;$" \
	"$(wire plain)"
check_eq "plain: no message in version 4" "" "$(grep ' v4 ' "$TMPD/plain.wire")"
check_match "plain: the sink says it is open" "open: no pre-shared key" "$(cat "$TMPD/plain-sink.err")"

MAC_LINE="failed its MAC check \(altered, replayed, reordered or dropped on the way\)"
# sink_refused NAME WHAT: the sink ended the run on the altered message, one line.
sink_refused() {
	check_eq "$1: both sides exit 1" "1 1" "$SINK_RC $SRC_RC"
	check_eq "$1: the sink says it once" "1" "$(grep -cE "$MAC_LINE" "$TMPD/$1-sink.err")"
	check_match "$1: the line names the source" "127\.0\.0\.1.*$MAC_LINE" \
		"$(grep -E "$MAC_LINE" "$TMPD/$1-sink.err")"
	jv "$1-sink" 'd["ok"]' '"MAC check" in d["error"]'
	check_eq "$1: the run failed, the JSON says why" "False True" "${J[0]} ${J[1]}"
	check_eq "$1: $2 altered on the way" "1" "$(grep -cE " $2\$" "$TMPD/$1.wire")"
}

relayed result "$KEY" flip:RESULT
sink_refused result "RESULT.*flip"
relayed verify "$KEY --verify full" flipmac:VERIFY
sink_refused verify "VERIFY.*flipmac"
relayed replay "$KEY" replay:PROGRESS
sink_refused replay "PROGRESS.*replay"
relayed drop "$KEY" drop:PROGRESS
sink_refused drop "PROGRESS.*drop"

# The sink's verdict altered on its way to the source: the source refuses it.
relayed 'done' "$KEY" flip:DONE
check_eq "done: the source exits 1" "1" "$SRC_RC"
check_eq "done: the source says it once" "1" "$(grep -cE "$MAC_LINE" "$TMPD/done-src.err")"

# A direction's last message sent again after it: nothing more is due, so the side
# that receives it ends the session. The sink finds the source's after its verdict
# went out (the source was told pass and exits 0); its own run fails, one line.
# sink_refused_late NAME WHAT: so.
sink_refused_late() {
	check_eq "$1: the sink exits 1, the source 0 (told pass)" "1 0" "$SINK_RC $SRC_RC"
	check_eq "$1: the sink says it once" "1" "$(grep -cE "$MAC_LINE" "$TMPD/$1-sink.err")"
	check_match "$1: the line names the source and the bytes after its last message" \
		"127\.0\.0\.1.*bytes after its last message: .*$MAC_LINE" \
		"$(grep -E "$MAC_LINE" "$TMPD/$1-sink.err")"
	jv "$1-sink" 'd["ok"]' '"bytes after its last message" in d["error"]'
	check_eq "$1: the run failed, the JSON says why" "False True" "${J[0]} ${J[1]}"
	check_eq "$1: $2 sent twice on the way" "1" "$(grep -cE " $2\$" "$TMPD/$1.wire")"
}
relayed lastverify "$KEY --verify full" replay:VERIFY
sink_refused_late lastverify "VERIFY.*replay"
# The copy in a write of its own, right after the original or later: whatever arrives
# after the last message, until the channel closes, is read and judged.
for ms in 0 50 300 1000; do
	relayed "lastverify$ms" "$KEY --verify full" "replay:VERIFY:$ms"
	sink_refused_late "lastverify$ms" "VERIFY.*replay"
done
relayed lastresult "$KEY" replay:RESULT
sink_refused_late lastresult "RESULT.*replay"
relayed lastresult300 "$KEY" replay:RESULT:300
sink_refused_late lastresult300 "RESULT.*replay"
relayed lastdone "$KEY" replay:DONE
check_eq "lastdone: the source exits 1" "1" "$SRC_RC"
check_match "lastdone: the source names the bytes after the verdict" \
	"bytes after the sink's verdict: .*$MAC_LINE" "$(cat "$TMPD/lastdone-src.err")"
check_eq "lastdone: the sink's own run passed" "0" "$SINK_RC"
finish
