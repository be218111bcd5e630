#!/bin/bash
# fake_crowd.sh: a crowd of strangers at the sink's door while the real source comes, over
# the fake fabric (no RDMA device). tests/remote/crowd holds a connection open from each
# of 240 loopback addresses (127.0.0.10 and up) and dials again each one the door closes;
# the real source connects from 127.0.1.2 meanwhile. Every address then holds one pending
# handshake, the case where the door gave up its first place, again and again, whoever
# held it: the real source too, through all its retries. In 5 trials without a key and 5 with
# one (the crowd then sends an AUTH that claims a key and never proves it), the real source
# completes every time (sink and source exit 0, verify pass), and the sink's stderr stays
# short: the drops are counted and said at most once a second, not a line per connection.
. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/remote/fake_lib.sh"

CROWD=$abs_top_builddir/tests/remote/crowd
[ -x "$CROWD" ] || skip "$CROWD not built"
TRIALS=${TRIALS:-5}
printf 'a key of thirty-two bytes or so.\n' >"$TMPD/key"
chmod 600 "$TMPD/key"

# trial NAME [auth]: a sink, the crowd at its door, then the real source; the results in
# $TMPD/NAME.sum as "SINK_RC SRC_RC VERIFY LINES".
trial() {
	local n=$1 mode=$2 key=() crowd lines
	[ -z "$mode" ] || key=(--psk-file "$TMPD/key")
	# shellcheck disable=SC2086
	sink "$n-sink" $RUN --no-local --dram 4M --json --wait 20 "${key[@]}"
	"$CROWD" 127.0.1.1 "$PORT" 240 1 5 ${mode:+"$mode"} >"$TMPD/$n.crowd" 2>&1 &
	crowd=$!
	sleep 1 # the door full of strangers before the source comes
	# shellcheck disable=SC2086
	src "$n-src" $RUN --source mem "${key[@]}"
	sink_status
	wait "$crowd"
	jv "$n-sink" 'd["verify"]'
	lines=$(wc -l <"$TMPD/$n-sink.err")
	echo "$SINK_RC $SRC_RC ${J[0]} $lines" >"$TMPD/$n.sum"
	[ "$SINK_RC $SRC_RC" = "0 0" ] ||
		echo "# $n: sink: $(tail -n 2 "$TMPD/$n-sink.err" | tr '\n' ' ')| source: $(tail -n 2 "$TMPD/$n-src.err" | tr '\n' ' ')"
}

for mode in "" auth; do
	ok=0 long=0 worst=0
	for t in $(seq "$TRIALS"); do
		trial "crowd${mode:+-$mode}-$t" "$mode"
		read -r s r v l <"$TMPD/crowd${mode:+-$mode}-$t.sum"
		[ "$s $r $v" = "0 0 pass" ] && ok=$((ok + 1))
		[ "$l" -gt "$worst" ] && worst=$l
		[ "$l" -le 25 ] || long=$((long + 1))
		echo "# trial $t${mode:+ ($mode)}: sink $s, source $r, verify $v, $l sink lines," \
			"$(cat "$TMPD/crowd${mode:+-$mode}-$t.crowd") stranger connections"
	done
	check_eq "crowd${mode:+ with a key}: the real source completed in every trial" "$TRIALS" "$ok"
	check_eq "crowd${mode:+ with a key}: the sink's stderr at most 25 lines (worst $worst)" 0 "$long"
done
# What the sink said of the crowd: a count, once a second at most.
check_match "crowd: the drops are counted" "and [0-9]+ others: connection dropped" "$(cat "$TMPD"/crowd-*-sink.err)"
finish
