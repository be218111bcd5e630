#!/bin/bash
# keys.sh: every key the Python package reads from a tool's document is a key of that
# document's schema (tests/schema/keys.py, a static scan of python/nbw), and a key
# misspelled in a reader is caught (a misspelling planted in the scan, not in the tree).
. "$(dirname "$0")/../lib.sh"
KEYS=("$PYTHON3" "$abs_top_srcdir/tests/schema/keys.py")

"${KEYS[@]}" >"$TMPD/out" 2>&1
check_eq "the package's key reads are its schemas' keys" 0 $?
cat "$TMPD/out"
check_match "and there are many" "^[0-9]+ modules read tool documents, [0-9]{3,} key reads checked, 0 failed$" \
	"$(tail -n 1 "$TMPD/out")"

# plant MODULE:OLD:NEW REGEX: the scan with that misspelling fails and names it.
plant() {
	"${KEYS[@]}" --plant "$1" >"$TMPD/out" 2>&1
	check_eq "$1: caught" 1 $?
	check_match "$1: named" "$2" "$(grep FAIL "$TMPD/out")"
}
plant summary.py:gb_per_s:gb_per_sec "summary.py:[0-9]+: 'gb_per_sec' is not a key of 'local'"
plant ladder/model.py:total:totl "ladder/model.py:[0-9]+: 'totl' is a key of none of its schemas"
plant fleet/judge.py:bottleneck_bdf:bottleneck "fleet/judge.py:[0-9]+: 'bottleneck' is a key of none"
plant results/fleet.py:figure_gb_per_s:figure "results/fleet.py:[0-9]+: 'figure' is"
finish
