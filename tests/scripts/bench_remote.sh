#!/bin/bash
# scripts/bench_remote.sh run as the lab runs it, a copy of the script under another name
# (the guest's /run/vlab/script) with the source tree in VLAB_SRCDIR: it finds its library
# there and reaches its own argument checks (usage: one line, exit 2). Without the source
# tree it says what is missing, exit 1. The settings (SIZE, ROUNDS, ONLY...) travel from
# the host's environment to the guest's copy as NAME=VALUE arguments after --lab; the copy
# takes those and refuses anything else.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"
mkdir -p "$TMPD/run/vlab"
cp "$abs_top_srcdir/scripts/bench_remote.sh" "$TMPD/run/vlab/script"
S=$TMPD/run/vlab/script

expect_exit 2 '^usage: .* --here DEV ADDR DRIVE$' env VLAB_SRCDIR="$abs_top_srcdir" bash "$S" --here rxe0
expect_exit 2 '^usage: .*DEVS=' env VLAB_SRCDIR="$abs_top_srcdir" bash "$S" --bogus
expect_exit 1 'bench_lib\.sh: No such file' env VLAB_SRCDIR="$TMPD/none" bash "$S" --here rxe0
expect_exit 2 "^bench_remote.sh: --lab: not a setting: 'BOGUS=1'" env VLAB_SRCDIR="$abs_top_srcdir" bash "$S" --lab ROUNDS=2 BOGUS=1
expect_exit 2 "^bench_remote.sh: --lab: not a setting: 'ROUNDS'" env VLAB_SRCDIR="$abs_top_srcdir" bash "$S" --lab ROUNDS
# Settings taken: the copy goes on to the lab's own variables (none here).
expect_exit 1 'VLAB_RDMA_DEV: unbound variable' env VLAB_SRCDIR="$abs_top_srcdir" bash "$S" --lab ROUNDS=2 SMALL_SIZES=

# The host's side: a tree with a stand-in vlab that records its arguments.
mkdir -p "$TMPD/s"
cp "$abs_top_srcdir/scripts/bench_remote.sh" "$abs_top_srcdir/scripts/bench_lib.sh" "$TMPD/s/"
printf '#!/bin/sh\nprintf "%%s\\n" "$@" >"%s"\n' "$TMPD/vlab-args" >"$TMPD/s/vlab"
chmod +x "$TMPD/s/vlab"
env -u DEVS -u ADDRS ROUNDS=7 ONLY=small SMALL_SIZES= bash "$TMPD/s/bench_remote.sh"
args=$(tr '\n' ' ' <"$TMPD/vlab-args")
check_match "host: the lab runs the script with --lab" " $TMPD/s/bench_remote.sh --lab " " $args"
check_match "host: the settings given" " ROUNDS=7 .*ONLY=small " " $args"
check_match "host: an empty setting kept (SMALL_SIZES= means no small rows)" " SMALL_SIZES= " " $args"
check_match "host: the defaults given too" " SIZE=1M QPS=2 DEPTH=4 " " $args"
check_eq "host: unset rails left to the lab" "" "$(grep -E '^(DEVS|ADDRS)=' "$TMPD/vlab-args")"

# From the tree itself nothing changes.
expect_exit 2 '^usage: .* --here DEV ADDR DRIVE$' bash "$abs_top_srcdir/scripts/bench_remote.sh" --here rxe0
finish
