#!/bin/bash
# Both nodes of remote_pair.sh: one two-node lab, the parts one after the
# other. Node a leads: before each part (its arguments, in order) it names the
# part to node b (remote_pair_sync.py, port 18600) and both run their script of it,
# with VLAB_OUT=$VLAB_OUT/PART; then it names "end". Node b runs what it is
# told. Each part's exit status goes to PART/script.rc; a node that does not
# hear from the other within 300 s says so and exits 1.
set -u
D=$VLAB_SRCDIR/tests/lab
SYNC="python3 $D/remote_pair_sync.py"
PORT=18600 WAIT=300

# part_script PART: this node's script of PART.
part_script() {
	case $1/$VLAB_NODE in
	access/a | two_node/a | evidence/a) echo "$D/remote_${1}_a.sh" ;;
	access/b | two_node/b | evidence/b) echo "$D/remote_${1}_b.sh" ;;
	bidir/*) echo "$D/remote_bidir_guest.sh" ;;
	bounds/*) echo "$D/remote_bounds_guest.sh" ;;
	*) return 1 ;;
	esac
}

# run_part PART: run this node's script of PART; one line on how it ended.
run_part() {
	local s o=$VLAB_OUT/$1 t0 rc
	s=$(part_script "$1") || { echo "node $VLAB_NODE: no part '$1'"; return 1; }
	mkdir -p "$o"
	t0=$(date +%s)
	VLAB_OUT=$o bash "$s"
	rc=$?
	echo $rc >"$o/script.rc"
	echo "node $VLAB_NODE: part $1: exit $rc after $(($(date +%s) - t0)) s"
}

if [ "$VLAB_NODE" = a ]; then
	for p in "$@" end; do
		$SYNC lead "$VLAB_ADDR" $PORT $WAIT "$p" || exit 1
		[ "$p" = end ] || run_part "$p" || exit 1
	done
else
	while p=$($SYNC follow "$VLAB_PEER" $PORT $WAIT) && [ "$p" != end ]; do
		run_part "$p" || exit 1
	done
	[ "$p" = end ] || exit 1
fi
exit 0
