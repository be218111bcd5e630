#!/bin/bash
# scripts/bench_remote.sh run as the lab runs it, a copy of the script under another name
# (the guest's /run/vlab/script) with the source tree in VLAB_SRCDIR: it finds its library
# there and reaches its own argument checks (usage: one line, exit 2). Without the source
# tree it says what is missing, exit 1.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"
mkdir -p "$TMPD/run/vlab"
cp "$abs_top_srcdir/scripts/bench_remote.sh" "$TMPD/run/vlab/script"
S=$TMPD/run/vlab/script

expect_exit 2 '^usage: .* --here DEV ADDR DRIVE$' env VLAB_SRCDIR="$abs_top_srcdir" bash "$S" --here rxe0
expect_exit 2 '^usage: .*DEVS=' env VLAB_SRCDIR="$abs_top_srcdir" bash "$S" --bogus
expect_exit 1 'bench_lib\.sh: No such file' env VLAB_SRCDIR="$TMPD/none" bash "$S" --here rxe0
# From the tree itself nothing changes.
expect_exit 2 '^usage: .* --here DEV ADDR DRIVE$' bash "$abs_top_srcdir/scripts/bench_remote.sh" --here rxe0
finish
