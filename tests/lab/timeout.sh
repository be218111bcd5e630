#!/bin/bash
# Lab test: vlab's hard limits and cleanup. A script that hangs is killed at
# --timeout (exit 124); a vlab killed by SIGTERM mid-run exits 143. Either way
# no qemu survives.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lab_lib.sh"

t0=$SECONDS
run_lab --drives 1 --drive-size 4M --timeout 5 "$srcdir/tests/lab/timeout_guest.sh"
[ "$vlab_rc" = 124 ] || fail "hanging script: vlab returned $vlab_rc, wanted 124"
[ -e "$WORK/a/out/started" ] || fail "the script never started"
# From the script's start to the timeout's SIGTERM, on the guest's clock (timeout_guest.sh):
# the 5 s limit, boot time aside.
[ -s "$WORK/a/out/ran" ] || fail "the script saw no SIGTERM"
ran=$(awk '{ printf "%.2f", $1 }' "$WORK/a/out/ran")
[ "$(cat "$WORK/a/rc")" = 124 ] || fail "guest recorded status $(cat "$WORK/a/rc")"
[ "$(echo "$ran >= 4.9 && $ran <= 30" | bc)" = 1 ] || fail "script killed after ${ran}s, --timeout 5"
assert_no_qemu
note "hanging script stopped by --timeout after ${ran}s (vlab total $((SECONDS - t0))s)"

# SIGTERM while the script runs: vlab stops the lab and exits 143.
rm -rf "$WORK/a"
"$VLAB" run --builddir "$builddir" --workdir "$WORK" --drives 1 --drive-size 4M \
	--timeout 300 "$srcdir/tests/lab/timeout_guest.sh" &
pid=$!
for ((i = 0; i < 1200; i++)); do
	[ -e "$WORK/a/out/started" ] && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
[ -e "$WORK/a/out/started" ] || { kill "$pid"; fail "second boot: script never started"; }
kill -TERM "$pid"
wait "$pid"
rc=$?
[ "$rc" = 143 ] || fail "vlab killed by SIGTERM returned $rc, wanted 143"
assert_no_qemu
note "SIGTERM: vlab exit 143, no qemu left"
echo "PASS: $test_name"
