#!/bin/bash
# The unit tests of nbw-fleet's package (tests/py/test_fleet_*.py): the schedule of
# pairs at 512 nodes (every pair once, no node twice in a round, ring and K partners,
# a seed's determinism), the plan of 4096 nodes within a second of CPU, and the judge
# on generated fleets of 512 nodes x 8 rails x 8 drives with planted faults.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"
cd "$abs_top_srcdir/tests/py" || exit 1
mods=()
for f in test_fleet_*.py; do mods+=("${f%.py}"); done
PYTHONPATH="$abs_top_srcdir/scripts:$abs_top_srcdir/tests/py" PYTHONDONTWRITEBYTECODE=1 \
	"$PYTHON3" -m unittest -v "${mods[@]}" 2>&1
