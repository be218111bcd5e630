#!/bin/bash
# Node b of remote_pair.sh's part access: a silent stranger early (dropped by the sink's
# handshake deadline), then strangers (silent, garbage, a HELLO
# without the key exchange, a mismatched one, no key, a wrong key), all at
# once; then our source without a key and with another key; then, while the
# silent one still holds its connection, the real source with the right key.
set -u
. "$VLAB_SRCDIR/tests/lab/guest_lib.sh"
O=$VLAB_OUT
umask 077
printf 'lab-access-key-0123456789abcdef\n' >/tmp/key
S="python3 $VLAB_SRCDIR/tests/lab/remote_access_stranger.py $VLAB_PEER 18515"
for _ in $(seq 100); do
	timeout 2 bash -c "exec 3<>/dev/tcp/$VLAB_PEER/18515" 2>/dev/null && break
	sleep 0.2
done
sleep 1
# One that connects and says nothing, early: the sink's handshake deadline drops it.
$S silent >"$O/silent-early.json" 2>&1 &
early=$!
sleep 7
pids=("$early")
for m in silent garbage hello-first mismatch no-key wrong-key; do
	$S $m "/tmp/said.$m" >"$O/$m.json" 2>&1 &
	pids+=($!)
done
# The real source goes only once every stranger has said its piece (python
# starts slowly on one emulated CPU); the silent one still holds its connection.
for _ in $(seq 300); do
	said=(/tmp/said.*)
	[ ${#said[@]} = 6 ] && break
	sleep 0.1
done
sleep 0.5
# shellcheck disable=SC2086 # the drives' paths, a word each
set -- $VLAB_DRIVES
# Our own source without the key, then with another key: refused, and it says why.
printf 'lab-access-key-not-the-sinks-one\n' >/tmp/otherkey
for k in none other; do
	psk=()
	[ $k = other ] && psk=(--psk-file /tmp/otherkey)
	timeout 60 nvme_write_bw_remote --disks "$1" -q 1 --warmup 1 -D 2 --timeout 10 "${psk[@]}" \
		"$VLAB_PEER" >/dev/null 2>"$O/src-$k.err"
	echo $? >"$O/src-$k.rc"
done
t0=$(date +%s.%N)
timeout 120 nvme_write_bw_remote --disks "$1" -q 1 --warmup 1 -D 6 -s 1M --depth 4 --timeout 10 \
	--psk-file /tmp/key --json "$VLAB_PEER" >"$O/src.json" 2>"$O/src.err"
echo $? >"$O/src.rc"
echo "$(date +%s.%N) - $t0" | bc >"$O/src.secs"
failed_state "$(cat "$O/src.rc")" "source"
wait "${pids[@]}"
exit 0
