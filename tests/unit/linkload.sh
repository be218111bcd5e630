#!/bin/bash
# tests/unit/linkload.sh: the PCIe links and AER counts of devices during a window
# (common/pci/linkload.c) on the tree tests/fixtures/sysfs/mklinks.py writes at test
# time (a FIFO and links do not survive `make dist`): tests/unit/test_linkload rewrites
# the drive's link and AER files between samples and checks what was kept.
. "$(dirname "$0")/../lib.sh"

"$PYTHON3" "$FIXTURES/sysfs/mklinks.py" "$TMPD/links" || fail "mklinks.py exited $?"
out=$(timeout 20 "$abs_top_builddir/tests/unit/test_linkload" "$TMPD/links" 2>&1)
rc=$?
echo "$out"
check_eq "test_linkload on the fixture tree: exit" 0 "$rc"
check_match "test_linkload: its checks ran, none failed" "^test_linkload: [1-9][0-9]* checks, 0 failed$" "$out"
finish
