#!/bin/bash
# Lab soak (make check-slow, or alone: NBW_SOAK_ROUNDS=N bash tests/lab/soak.sh): two
# nodes, many short nvme_write_bw_remote runs in one boot (a sink on a, a source on b;
# every other source 1 s late), each bounded by the clock. A run that hangs fails the
# soak and both nodes print their Soft-RoCE state (rdma res, rxe counters, the link,
# the kernel's last lines). At the end: the rounds done, each run's time, and every
# kernel line of either node that names a lockup, a hung task, an oops or rxe. Made to
# reproduce the lab's Soft-RoCE stall on purpose (run it with load beside it) and to
# compare guest kernels side by side (VLAB_KERNEL=/boot/vmlinuz-...).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lab-lib.sh"

rounds=${NBW_SOAK_ROUNDS:-12}
case $rounds in '' | *[!0-9]* | 0) fail "NBW_SOAK_ROUNDS: a positive integer" ;; esac
# Node b's script takes no arguments from vlab: a two-line one gives it the count.
printf '#!/bin/bash\nexec bash "$VLAB_SRCDIR/tests/lab/soak_b.sh" %d\n' "$rounds" >"$WORK/soak_b"
run_lab --nodes 2 --drives 1 --drive-size 64M --timeout $((60 + rounds * 45)) \
	--on-b "$WORK/soak_b" "$srcdir/tests/lab/soak_a.sh" "$rounds"
A=$WORK/a/out B=$WORK/b/out
for n in a b; do
	note "node $n kernel lines: $(head -c 3000 "$WORK/$n/out/kernel.txt" 2>/dev/null)"
done
done_a=$(grep -c '^round ' "$A/rounds.txt" 2>/dev/null)
done_b=$(grep -c '^round ' "$B/rounds.txt" 2>/dev/null)
note "sink runs: $(tr '\n' ' ' <"$A/rounds.txt" 2>/dev/null)"
note "source runs: $(tr '\n' ' ' <"$B/rounds.txt" 2>/dev/null)"
[ "$vlab_rc" = 0 ] || fail "vlab returned $vlab_rc after $done_b of $rounds source runs"
if [ "${done_a:-0}" != "$rounds" ] || [ "${done_b:-0}" != "$rounds" ]; then
	fail "runs done: sink $done_a, source $done_b of $rounds"
fi
bad=$(grep -v ' exit 0 ' "$A/rounds.txt" "$B/rounds.txt")
[ -z "$bad" ] || fail "runs that failed: $bad"
grep -qE 'soft lockup|hung task|blocked for more|Oops|BUG:|Kernel panic|double fault' "$WORK"/[ab]/out/kernel.txt 2>/dev/null &&
	fail "kernel trouble: $(grep -hE 'soft lockup|hung task|blocked for more|Oops|BUG:|Kernel panic|double fault' "$WORK"/[ab]/out/kernel.txt | head -5)"
echo "soak: $rounds rounds clean; $("$VLAB" check)"
