#!/bin/bash
# scripts/fresh-check without building anything: the apt lines the new rootfs
# gets are the host's (sources.list, *.list and deb822 *.sources), only
# bookworm, bookworm-updates and bookworm-security, deb-src and disabled
# stanzas dropped, each line once; usage errors exit 2 with one line.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"
F=$abs_top_srcdir/scripts/fresh-check

want='deb http://mirror.example/debian bookworm main contrib
deb http://deb.example/debian bookworm main
deb http://other.example/debian bookworm-updates main
deb http://deb.example/debian bookworm main non-free-firmware
deb http://deb.example/debian bookworm-updates main non-free-firmware
deb http://deb.example/debian-security bookworm-security main'
check_eq "--sources: the host's bookworm lines" "$want" \
	"$(FRESH_APT_ETC=$FIXTURES/apt "$F" --sources)"
mkdir -p "$TMPD/apt/sources.list.d"
check_eq "--sources: no sources, nothing" "" "$(FRESH_APT_ETC=$TMPD/apt "$F" --sources)"
printf 'Types: deb\nURIs: http://x.example/debian\nSuites: bookworm\n' >"$TMPD/apt/sources.list.d/x.sources"
check_eq "--sources: deb822 without Components: main, last stanza without a blank line" \
	"deb http://x.example/debian bookworm main" "$(FRESH_APT_ETC=$TMPD/apt "$F" --sources)"

expect_exit 2 "^fresh-check: unknown argument '--frob'$" "$F" --frob
expect_exit 2 '^fresh-check: option --tests needs a value$' "$F" --tests
expect_exit 2 "^fresh-check: --ref: no commit 'no/such/ref' in " "$F" --ref no/such/ref
expect_exit 2 "^fresh-check: NBW_LAB_LOCK=lab.lock: not a file in a directory below / \(absolute\)$" \
	env NBW_LAB_LOCK=lab.lock "$F"
expect_exit 2 "^fresh-check: NBW_LAB_LOCK=/lab.lock: not a file in a directory below /" env NBW_LAB_LOCK=/lab.lock "$F"
expect_exit 2 "^fresh-check: NBW_LAB_LOCK=$TMPD/none/lab.lock: no directory $TMPD/none$" \
	env NBW_LAB_LOCK="$TMPD/none/lab.lock" "$F"
finish
