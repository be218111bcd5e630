#!/bin/bash
# completion_scripts.sh: the bash completion of the commands with verbs
# (completions/nbw-results: nbw-results, nbw-fleet, run_bench.sh) offers what their own
# parsers take, read from "COMMAND --options-table": for nbw-results and nbw-fleet the
# verbs and, per verb, exactly the long options of its --help (argparse); for
# run_bench.sh the modes its dispatch accepts, which its --help lists, and nothing it
# refuses; values: choices, files and directories as the parsers' metavars say. The
# stubs load the same function.
. "$(dirname "$0")/lib.sh"

BC=/usr/share/bash-completion/bash_completion
[ -r "$BC" ] || skip "bash-completion is not installed ($BC; Debian: bash-completion)"
COMPDIR="$abs_top_srcdir/completions"
export PYTHONDONTWRITEBYTECODE=1

# The commands as typed: first in PATH (the completion runs "$1 --options-table").
PATH="$abs_top_srcdir/scripts:$PATH"
# shellcheck disable=SC1090
. "$BC"
# shellcheck disable=SC1090
# shellcheck source=/dev/null # the completion under test, found at run time
. "$COMPDIR/nbw-results"
compopt() { :; }
. "$(dirname "$0")/options/lib.sh"

mkdir -p "$TMPD/d/sub" "$TMPD/d/sweep"
: >"$TMPD/d/a1.json"
: >"$TMPD/d/a2.json"

# help_opts COMMAND [VERB]: the long options of --help's option lines, sorted.
help_opts() {
	"$PYTHON3" "$abs_top_srcdir/scripts/$1" ${2:+"$2"} --help |
		grep -oE -- '^  (-[A-Za-z0-9], )?--[A-Za-z][A-Za-z0-9_-]+' | grep -oE -- '--.*' | LC_ALL=C sort -u | joined
}
# joined: lines sorted, as one line of words.
joined() { LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//'; }

for cmd in nbw-results nbw-fleet; do
	verbs=$(words "$cmd ")
	check_match "$cmd <TAB>: its verbs" "judge|record" "$verbs"
	# argparse's own list of the verbs (the subparsers' choices).
	want=$("$PYTHON3" -c 'import sys; sys.path.insert(0, sys.argv[1])
import importlib
m = importlib.import_module(sys.argv[2])
p = m.parser() if hasattr(m, "parser") else m.build_parser()[0]
sub = [a for a in p._actions if a.__class__.__name__ == "_SubParsersAction"][0]
print(" ".join(sorted(sub.choices)))' "$abs_top_srcdir/python" \
		"$([ "$cmd" = nbw-results ] && echo nbw.results.cli || echo nbw.fleet.cli)")
	check_eq "$cmd <TAB>: the verbs of its parser" "$want" "$verbs"
	check_eq "$cmd --<TAB>: the options of its --help" "$(help_opts "$cmd")" "$(words "$cmd --")"
	for v in $verbs; do
		check_eq "$cmd $v --<TAB>: the options of its --help" "$(help_opts "$cmd" "$v")" \
			"$(words "$cmd $v --")"
	done
done

# Values, from the parsers' choices and metavars.
check_eq "nbw-results reference <TAB> (choices)" "set" "$(words 'nbw-results reference ')"
check_eq "nbw-results reference set <TAB> (a run: nothing to offer)" "" "$(words 'nbw-results reference set ')"
check_eq "nbw-results export --timestamps <TAB>" "no yes" "$(words 'nbw-results export --timestamps ')"
check_eq "nbw-results export --timestamps=<TAB>" "no yes" "$(words 'nbw-results export --timestamps=')"
check_eq "nbw-results --db DIR/s<TAB> (directories)" "$TMPD/d/sub $TMPD/d/sweep" "$(words "nbw-results --db $TMPD/d/s")"
check_eq "nbw-results record DIR/a<TAB> (files)" "$TMPD/d/a1.json $TMPD/d/a2.json" "$(words "nbw-results record $TMPD/d/a")"
check_eq "nbw-results record FILE DIR/a<TAB> (more files)" "$TMPD/d/a1.json $TMPD/d/a2.json" \
	"$(words "nbw-results record $TMPD/d/a1.json $TMPD/d/a")"
check_eq "nbw-results record --note TEXT DIR/a<TAB> (the note's value skipped)" \
	"$TMPD/d/a1.json $TMPD/d/a2.json" "$(words "nbw-results record --note x $TMPD/d/a")"
check_eq "nbw-results --db DIR trend --node <TAB> (a name: nothing)" "" "$(words "nbw-results --db $TMPD trend --node ")"
check_eq "nbw-results trend --fig<TAB>" "--figure" "$(words 'nbw-results trend --fig')"
check_eq "nbw-fleet judge --nodes-shown <TAB>" "all none problems" "$(words 'nbw-fleet judge --nodes-shown ')"
check_eq "nbw-fleet judge DIR/sw<TAB> (the sweep: a directory)" "$TMPD/d/sweep" "$(words "nbw-fleet judge $TMPD/d/sw")"
check_eq "nbw-fleet run --launcher <TAB>" "srun ssh" "$(words 'nbw-fleet run --launcher ')"
check_eq "nbw-fleet run --out DIR/s<TAB>" "$TMPD/d/sub $TMPD/d/sweep" "$(words "nbw-fleet run --out $TMPD/d/s")"
check_eq "the table is hidden from --help" "" "$("$PYTHON3" "$abs_top_srcdir/scripts/nbw-results" --help | grep -c -- --options-table | grep -v '^0$')"

# run_bench.sh: the modes it accepts, no more, no fewer.
RB="$abs_top_srcdir/scripts/run_bench.sh"
modes=$(words 'run_bench.sh ')
check_eq "run_bench.sh <TAB>: its modes, summary and check" \
	"aggregate baseline check ladder local nfs rsync summary tcp transfer" "$modes"
check_eq "run_bench.sh --<TAB>" "--help" "$(words 'run_bench.sh --')"
check_eq "run_bench.sh check <TAB>: the modes" "aggregate baseline ladder local nfs rsync tcp transfer" "$(words 'run_bench.sh check ')"
check_eq "run_bench.sh summary DIR/s<TAB> (a run directory)" "$TMPD/d/sub $TMPD/d/sweep" "$(words "run_bench.sh summary $TMPD/d/s")"
check_eq "scripts/run_bench.sh <TAB> (by its path)" "$modes" "$(words "$RB ")"
helped=$(bash "$RB" --help | sed -n 's/^Usage: run_bench.sh \([a-z|]*\) .*/\1/p' | tr '|' '\n' | joined)
check_eq "run_bench.sh --help's usage line: the modes completed" "$(words 'run_bench.sh check ')" "$helped"
listed=$(bash "$RB" --help | sed -n '/^Modes:/,/^$/p' | grep -oE '^  [a-z]+ ' | awk '{ print $1 }' | joined)
check_eq "run_bench.sh --help's Modes: the modes completed" "$(words 'run_bench.sh check ')" "$listed"
for m in $(words 'run_bench.sh check '); do
	err=$(env -u SINK_NODE -u SRC_NODE -u SRC_NODES bash "$RB" check "$m" 2>&1)
	case $err in *"unknown mode"* | *"which mode"*) fail "run_bench.sh check $m: refused ($err)" ;; *) ok "run_bench.sh check $m: a mode it takes" ;; esac
done
expect_exit 2 "unknown mode 'sweep'" bash "$RB" sweep
check_eq "a word not completed is refused" "" "$(words 'run_bench.sh sweep')"

# The stubs: each name, loaded on its own as bash-completion would, gets the function.
for cmd in nbw-fleet run_bench.sh; do
	spec=$(bash -c '. "$1"; . "$2"; complete -p "$3"' _ "$BC" "$COMPDIR/$cmd" "$cmd" 2>&1)
	check_eq "completions/$cmd registers" "complete -F _nbw_cmd $cmd" "$spec"
done
finish
