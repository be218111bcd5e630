# bash completion for run_bench.sh: shared with the other commands with verbs (nbw-results).
. "${BASH_SOURCE[0]%/*}/nbw-results"
