#!/bin/bash
# tests/options/table.sh: an option table is the one source of a tool's command line. A tiny
# tool with its own table (tests/options/options_demo.c) shows each kind of row parsed as
# the row says (bounds, default, alias, keyword, answer, note, role, contradiction), and
# its twin with one row more (--frobnicate) shows the new row in --help, in the bash
# completion and in the man-page check, which reports it missing from the page.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
X=$abs_top_builddir/tests/options/options_demo
X2=$abs_top_builddir/tests/options/options_demo_extra
PAGE=$abs_top_srcdir/tests/fixtures/options/options_demo.1
[ -x "$X" ] && [ -x "$X2" ] || fail "options_demo not built"

# The parser, row by row: ARGS | EXIT | what stdout (exit 0) or stderr says.
while IFS='|' read -r args code want; do
	[ -n "$args" ] || continue
	# shellcheck disable=SC2086
	"$X2" $args >"$TMPD/out" 2>"$TMPD/err"
	rc=$?
	got=$(cat "$TMPD/out" "$TMPD/err")
	check_eq "options_demo $args: exit" "$code" "$rc"
	check_match "options_demo $args: says it" "$want" "$got"
done <<'CASES'
--loud|0|^level=5 size=4096 colour=red name=- loud=1 quiet=0 frob=0 json=0$
-l 9 -s 1M -c blue --name x B|0|^level=9 size=1048576 colour=blue name=x
--volume 7|0|^level=7 
--volume=3 --level 4|0|^level=4 
--level 10|2|invalid level '10': out of range
-l x|2|invalid level 'x': malformed
-s 256|2|invalid size '256': out of range
-s 2M|2|invalid size '2M': out of range
-c green|2|colour 'green' was not built \(not in this build\)
-c pink|2|unknown colour 'pink' \(red, green or blue\)
--old-level 3|2|options_demo_extra: --old-level: use -l/--level N
-F|0|-F: always fast
--fast -l 2|0|level=2 
--name x|2|--name is a B option
--volume 2 --name x|2|--name is a B option
-c blue --quiet|2|--colour blue and --quiet cannot be combined: blue is loud
-c red --quiet|0|colour=red name=- loud=0 quiet=1
--quiet --loud|2|--loud and --quiet cannot be combined$
--json|0|json=1$
--frobnicate 2|0|frob=2 json=0$
--frobnicate 4|2|invalid frobnication '4': out of range
--bogus|2|unrecognized option '--bogus'
CASES
expect_exit 2 "unrecognized option '--frobnicate'" "$X" --frobnicate 2
check_eq "--options-table: a keyword row, its letter and words" "--colour required -c red,green,blue" \
	"$("$X" --options-table | grep -- '^--colour ')"
check_eq "--options-table: an answer takes no value" "--old-level none -" \
	"$("$X" --options-table | grep -- '^--old-level ')"
check_eq "--options-table is not a row of its own" "" "$("$X" --options-table | grep -- 'options-table')"

# --help: headings, letters, the default and the alias on their row, the unbuilt word.
"$X" --help >"$TMPD/help"
check_eq "--help exit" 0 $?
check_eq "--help: the level row" "  -l, --level N          how much (default 5); --volume too" \
	"$(grep -- '-l, --level N' "$TMPD/help")"
check_eq "--help: the keyword row" "  -c, --colour COLOUR    red, green or blue (not built) (default red)" \
	"$(grep -- '--colour' "$TMPD/help")"
check_eq "--help: the headings" "Settings: Other tools' options:" "$(grep -E ':$' "$TMPD/help" | tr '\n' ' ' | sed 's/ $//')"
check_eq "--help: no line for the listing" "" "$(grep -- 'options-table' "$TMPD/help")"

# The added row: in --help, in completion, and missing from the man page.
check_eq "the added row is not in the first tool's --help" "" "$(grep -- '--frobnicate' "$TMPD/help")"
check_eq "the added row in --help" "      --frobnicate N     the row a test adds" \
	"$("$X2" --help | grep -- '--frobnicate')"
BC=/usr/share/bash-completion/bash_completion
if [ -r "$BC" ]; then
	# shellcheck disable=SC1090
	. "$BC"
	# shellcheck disable=SC1090
	. "$abs_top_srcdir/completions/nvme_read_bw"
	compopt() { :; }
	check_eq "completion: --fro<TAB>, without the row" "" "$(words "$X --fro")"
	check_eq "completion: --fro<TAB>, with the row" "--frobnicate" "$(words "$X2 --fro")"
	check_eq "completion: --colour <TAB> (the row's words)" "blue green red" "$(words "$X2 --colour ")"
	check_eq "completion: -c <TAB> (the letter)" "blue green red" "$(words "$X2 -c ")"
	check_eq "completion: --frobnicate <TAB> (a value: nothing)" "" "$(words "$X2 --frobnicate ")"
	check_eq "completion: every row from --" "$(opts_table "$X2" | tr '\n' ' ' | sed 's/ $//')" \
		"$(words "$X2 --" | tr ' ' '\n' | grep -v '=$' | tr '\n' ' ' | sed 's/ $//')"
else
	echo "note: completion part not run: bash-completion is not installed ($BC)"
fi
# The man-page check: the page documents the first tool's table, and misses the row.
man_check options_demo "$X" "$PAGE"
out=$(T_FAILS=0 T_CHECKS=0; man_check options_demo_extra "$X2" "$PAGE"; echo "failed=$T_FAILS")
check_match "the man-page check reports the added row missing" \
	"FAIL: options_demo_extra: --help options missing from the man page: expected '', got '--frobnicate '" "$out"
check_match "and only that" "failed=1$" "$out"
finish
