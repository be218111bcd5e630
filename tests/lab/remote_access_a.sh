#!/bin/bash
# Node a of remote_pair.sh's part access: the sink, with a pre-shared key and --allow for
# node b only, while strangers knock (from node b, and one from node a itself,
# outside --allow). Then Ctrl-C/SIGTERM during the waits, and a DRAM buffer
# that cannot be locked.
set -u
. "$VLAB_SRCDIR/tests/lab/guest_lib.sh"
O=$VLAB_OUT
umask 077
printf 'lab-access-key-0123456789abcdef\n' >/tmp/key
B=nvme_write_bw_remote
W=(--warmup 1 -D 6 -s 1M --depth 4 --timeout 10)

# 1. The sink; node b sends its strangers, then the real source.
$B --dram 64M --no-local "${W[@]}" --psk-file /tmp/key --allow "$VLAB_PEER/32" --wait 120 --json \
	>"$O/sink.json" 2>"$O/sink.err" &
sp=$!
sleep 2
# A stranger from here: outside --allow, closed before a byte is read.
python3 "$VLAB_SRCDIR/tests/lab/remote_access_stranger.py" "$VLAB_ADDR" 18515 hello-first >"$O/outside.json" 2>&1
wait $sp
echo $? >"$O/sink.rc"
# A failed run: this node's Soft-RoCE state (counters, link) on the test's log.
failed_state "$(cat "$O/sink.rc")" "sink"

# 2. Signals end every wait at once (the exit in under 2.5 s, see remote_access_check.sh): waiting for a source, and with an
# idle client holding a handshake open.
for sig in INT TERM; do
	$B --dram 64M --no-local "${W[@]}" --wait 0 2>"$O/sig$sig.err" &
	sp=$!
	sleep 2
	[ "$sig" = TERM ] && { python3 "$VLAB_SRCDIR/tests/lab/remote_access_stranger.py" "$VLAB_ADDR" 18515 silent \
		>/dev/null 2>&1 & sleep 1; }
	t0=$(date +%s.%N)
	kill -$sig $sp
	wait $sp
	echo $? >"$O/sig$sig.rc"
	echo "$(date +%s.%N) - $t0" | bc >"$O/sig$sig.secs"
done

# 3. A DRAM buffer over the memlock limit (no CAP_IPC_LOCK): fails at once,
# without faulting the buffer in first. Time and peak RSS from the outside.
python3 - "$O/memlock.json" <<'PY'
import json, resource, subprocess, sys, time
t0 = time.monotonic()
p = subprocess.run(["prlimit", "--memlock=8388608", "setpriv", "--bounding-set=-ipc_lock",
                    "--inh-caps=-ipc_lock", "nvme_write_bw_remote", "--dram", "512M",
                    "--no-local", "--wait", "5"], capture_output=True, text=True)
secs = time.monotonic() - t0
rss_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
json.dump({"rc": p.returncode, "secs": secs, "rss_kib": rss_kib, "err": p.stderr}, open(sys.argv[1], "w"))
PY
exit 0
