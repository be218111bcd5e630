#!/bin/bash
# tests/py/run.sh: the unit tests of the suite's Python package (python/nbw), one module
# of tests per module with logic (tests/py/test_*.py), run by unittest: one line per
# test, and the status of any failure or error is this test's.
. "$(dirname "$0")/../lib.sh"

PYTHONDONTWRITEBYTECODE=1 "$PYTHON3" -m unittest discover -v \
	-s "$abs_top_srcdir/tests/py" -t "$abs_top_srcdir/tests/py" -p 'test_*.py' 2>&1
