#!/bin/bash
# counters.sh: an RDMA port's sysfs counters and their deltas (fabric/counters.c) on
# trees laid out as mlx5 and Soft-RoCE keep them, written at test time by
# tests/fixtures/sysfs/mkcounters.py (FIFOs and links do not survive `make dist`):
# tests/fabric/test_counters checks the values.
. "$(dirname "$0")/../lib.sh"

"$PYTHON3" "$FIXTURES/sysfs/mkcounters.py" "$TMPD/ctr" || fail "mkcounters.py exited $?"
out=$(timeout 20 "$abs_top_builddir/tests/fabric/test_counters" "$TMPD/ctr" 2>&1)
rc=$?
echo "$out"
check_eq "test_counters on the mlx5 and rxe trees: exit" 0 "$rc"
check_match "test_counters: its checks ran, none failed" "^test_counters: [1-9][0-9]* checks, 0 failed$" "$out"
finish
