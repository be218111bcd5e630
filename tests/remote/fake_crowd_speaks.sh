#!/bin/bash
# fake_crowd_speaks.sh: a crowd that speaks at the sink's door while the real source comes,
# over the fake fabric. tests/remote/crowd holds 8 connections from each of 64 loopback
# addresses (127.0.0.10 and up), each of which says an AUTH at once and then nothing more:
# on an open sink an AUTH without a key (the door answers it, and a HELLO would be next),
# on a keyed sink one that claims the key (the door answers it, and the proof would be
# next). Every connection the door closes is dialled again at once. The real source, with
# its --timeout of 3 s, completes its handshake each time (sink and source exit 0, verify
# pass): a stranger that says AUTH holds a place no longer than the round trip its answer
# asks for (250 ms), not the whole 5 s handshake deadline (an open sink's crowd held every
# place for 5 s; a keyed one, 512 strong, kept the listen backlog full past --timeout).
. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/remote/fake_lib.sh"

CROWD=$abs_top_builddir/tests/remote/crowd
[ -x "$CROWD" ] || skip "$CROWD not built"
TRIALS=${TRIALS:-2}
printf 'a key of thirty-two bytes or so.\n' >"$TMPD/key"
chmod 600 "$TMPD/key"

# trial NAME open|auth: a sink (keyed for auth), the speaking crowd at its door, then the
# real source; "SINK_RC SRC_RC VERIFY" in $TMPD/NAME.sum.
trial() {
	local n=$1 mode=$2 key=() crowd t0
	[ "$mode" = open ] || key=(--psk-file "$TMPD/key")
	# shellcheck disable=SC2086
	sink "$n-sink" $RUN --no-local --dram 4M --json --wait 20 "${key[@]}"
	"$CROWD" 127.0.1.1 "$PORT" 64 "${PER:-8}" 4 "$mode" >"$TMPD/$n.crowd" 2>&1 &
	crowd=$!
	sleep 1 # the door full of strangers before the source comes
	t0=$(date +%s%N)
	# shellcheck disable=SC2086
	src "$n-src" $RUN --source mem "${key[@]}"
	echo "$((($(date +%s%N) - t0) / 1000000))" >"$TMPD/$n.ms"
	sink_status
	wait "$crowd"
	jv "$n-sink" 'd["verify"]'
	echo "$SINK_RC $SRC_RC ${J[0]}" >"$TMPD/$n.sum"
	[ "$SINK_RC $SRC_RC" = "0 0" ] ||
		echo "# $n: sink: $(tail -n 2 "$TMPD/$n-sink.err" | tr '\n' ' ')| source: $(tail -n 2 "$TMPD/$n-src.err" | tr '\n' ' ')"
}

for mode in ${MODES:-open auth}; do
	ok=0
	for t in $(seq "$TRIALS"); do
		trial "speak-$mode-$t" "$mode"
		read -r s r v <"$TMPD/speak-$mode-$t.sum"
		[ "$s $r $v" = "0 0 pass" ] && ok=$((ok + 1))
		echo "# trial $t ($mode): sink $s, source $r, verify $v, the source's run" \
			"$(cat "$TMPD/speak-$mode-$t.ms") ms (-D 1), $(cat "$TMPD/speak-$mode-$t.crowd")" \
			"stranger connections"
	done
	check_eq "a speaking crowd ($mode): the real source completed in every trial" "$TRIALS" "$ok"
done
finish
