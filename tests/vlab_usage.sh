#!/bin/bash
# scripts/vlab's command line, without booting anything (options are checked
# before the lab is): bad values of --nodes, --nics, --nic-link and the other
# options exit 2 with one line on stderr; --help names the new options;
# `vlab pattern` works.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"
VLAB=$abs_top_srcdir/scripts/vlab
S=$TMPD/script.sh
echo 'exit 0' >"$S"

expect_exit 2 '^vlab: --nodes: 1\.\.4$' "$VLAB" run --nodes 0 "$S"
expect_exit 2 '^vlab: --nodes: 1\.\.4$' "$VLAB" run --nodes 5 "$S"
expect_exit 2 '^vlab: --nodes: 1\.\.4$' "$VLAB" run --nodes two "$S"
expect_exit 2 '^vlab: --nics: 1\.\.4$' "$VLAB" run --nics 0 "$S"
expect_exit 2 '^vlab: --nics: 1\.\.4$' "$VLAB" run --nics 9 "$S"
expect_exit 2 '^vlab: --nics: 1\.\.4$' "$VLAB" run --nics -1 "$S"
expect_exit 2 "^vlab: bad link '8:3'" "$VLAB" run --nics 2 --nic-link 16:16,8:3 "$S"
expect_exit 2 "^vlab: bad link '3:4'" "$VLAB" run --links 8:4,3:4 "$S"
expect_exit 2 '^vlab: option --on-c needs a value$' "$VLAB" run --on-c
expect_exit 2 '^vlab: cannot read /nonexistent/c\.sh$' "$VLAB" run --on-c /nonexistent/c.sh "$S"
expect_exit 2 '^vlab: run: SCRIPT missing$' "$VLAB" run --nodes 3
expect_exit 2 '^vlab: unknown option --node$' "$VLAB" run --node 2 "$S"
expect_exit 2 '^vlab: --drives: 1\.\.16$' "$VLAB" run --drives 17 "$S"
expect_exit 2 '^vlab: --lbs: 512 or 4096$' "$VLAB" run --lbs 1024 "$S"
expect_exit 2 '^vlab: --drive-size: a multiple of 1M$' "$VLAB" run --drive-size 1500K "$S"
expect_exit 2 '^vlab: --timeout: a positive integer$' "$VLAB" run --timeout 0 "$S"
expect_exit 2 '^vlab: unknown command frob$' "$VLAB" frob
expect_exit 2 '' "$VLAB"

help=$("$VLAB" --help)
check_eq "--help: exit 0" 0 $?
for opt in --nodes --nics --nic-link --on-b --on-c --on-d --boot-timeout; do
	check_match "--help names $opt" "  $opt " "$help"
done
check_match "--help names \$VLAB_CPU and its default" 'VLAB_CPU the guests. CPU model \(default max\)' "$(echo $help)"
check_match "--help names \$VLAB_CABLE" 'VLAB_CABLE: stream, the default' "$(echo $help)"
check_match "--help names \$VLAB_SPARE_CPU" 'VLAB_SPARE_CPU=0 drops the spare' "$(echo $help)"
VLAB_CABLE=bogus expect_exit 2 "^vlab: VLAB_CABLE: stream, socket, hub, not 'bogus'\$" "$VLAB" run "$S"
VLAB_CABLE=bogus expect_exit 2 "^vlab: VLAB_CABLE: stream, socket, hub, not 'bogus'\$" "$VLAB" check
check_eq "--version" "vlab 1" "$("$VLAB" --version)"
"$VLAB" pattern write "$TMPD/p.img" 1048576 64 && "$VLAB" pattern check "$TMPD/p.img" 64
check_eq "vlab pattern write/check" 0 $?
# The lab's default kernel: the newest 6.1 by version (not by spelling), else the newest.
pick() { vlab_py 'print(vlab.pick_kernel(sys.argv[3:]))' "$@"; }
check_eq "kernel: the newest 6.1" 6.1.0-57-amd64 "$(pick 6.12.117+deb12-amd64 6.1.0-9-amd64 6.1.0-57-amd64 5.10.0-30-amd64)"
check_eq "kernel: without a 6.1, the newest by version" 6.12.117+deb12-amd64 "$(pick 6.9.0-1-amd64 6.12.117+deb12-amd64 5.10.0-30-amd64)"
check_eq "kernel: none" None "$(pick)"
finish
