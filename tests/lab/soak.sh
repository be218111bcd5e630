#!/bin/bash
# Lab soak (make check-slow, or alone: NBW_SOAK_ROUNDS=N bash tests/lab/soak.sh): two
# nodes, many short nvme_write_bw_remote runs in one boot (a sink on a, a source on b;
# every other source 1 s late), each bounded by the clock. A run that hangs fails the
# soak and both nodes print their Soft-RoCE state (rdma res, rxe counters, the link,
# the kernel's last lines). At the end: the rounds done, each run's time, and every
# kernel line of either node that names a lockup, a hung task, an oops or rxe. Made to
# reproduce the lab's Soft-RoCE stall on purpose (run it with load beside it) and to
# compare guest kernels or settings side by side (VLAB_KERNEL=/boot/vmlinuz-...,
# VLAB_APPEND=...). NBW_SOAK_MODE=bidir: both nodes run --bidir each round (a sink and
# a source each, fully verified; the lab's stall hit that shape on a quiet machine).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lab_lib.sh"

rounds=${NBW_SOAK_ROUNDS:-12}
mode=${NBW_SOAK_MODE:-one-way}
case $rounds in '' | *[!0-9]* | 0) fail "NBW_SOAK_ROUNDS: a positive integer" ;; esac
case $mode in one-way | bidir) ;; *) fail "NBW_SOAK_MODE: one-way or bidir, not '$mode'" ;; esac
# Node b's script takes no arguments from vlab: a two-line one gives it the count.
printf '#!/bin/bash\nexec bash "$VLAB_SRCDIR/tests/lab/soak_b.sh" %d %s\n' "$rounds" "$mode" >"$WORK/soak_b"
run_lab --nodes 2 --drives 1 --drive-size 64M --timeout $((60 + rounds * 80)) \
	--on-b "$WORK/soak_b" "$srcdir/tests/lab/soak_a.sh" "$rounds" "$mode"
A=$WORK/a/out B=$WORK/b/out
for n in a b; do
	note "node $n kernel lines: $(head -c 3000 "$WORK/$n/out/kernel.txt" 2>/dev/null)"
done
done_a=$(grep -c '^round ' "$A/rounds.txt" 2>/dev/null)
done_b=$(grep -c '^round ' "$B/rounds.txt" 2>/dev/null)
note "node a runs: $(tr '\n' ' ' <"$A/rounds.txt" 2>/dev/null)"
note "node b runs: $(tr '\n' ' ' <"$B/rounds.txt" 2>/dev/null)"
[ "$vlab_rc" = 0 ] || fail "vlab returned $vlab_rc after $done_b of $rounds node b runs"
if [ "${done_a:-0}" != "$rounds" ] || [ "${done_b:-0}" != "$rounds" ]; then
	fail "runs done: node a $done_a, node b $done_b of $rounds"
fi
bad=$(grep -v ' exit 0 ' "$A/rounds.txt" "$B/rounds.txt")
[ -z "$bad" ] || fail "runs that failed: $bad"
trouble=$(grep -hE 'soft lockup|hung task|blocked for more|Oops|BUG:|Kernel panic|double fault|NETDEV WATCHDOG|TX timeout' \
	"$WORK"/[ab]/out/kernel.txt 2>/dev/null | head -5)
[ -z "$trouble" ] || fail "kernel trouble: $trouble"
echo "soak: $rounds $mode rounds clean; $("$VLAB" check)"
