#!/bin/bash
# nbw-fleet judge for CI: on a generated sweep of 16 nodes (a slow drive, a drive low once
# and normal again, a node that answers nothing) --junit writes JUnit XML that xmllint
# validates against tests/fixtures/junit.xsd and that a real consumer, Debian's
# python3-junitparser, reads: a testsuite per kind of part, a testcase per node in each,
# the suspect a failure with its evidence, the node not measured skipped with the
# reason; --fail-on's exit statuses (3 a suspect, 4 only not measured, 0 otherwise).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"
export PYTHONDONTWRITEBYTECODE=1
FLEET=("$PYTHON3" "$abs_top_srcdir/scripts/nbw-fleet")
XSD=$abs_top_srcdir/tests/fixtures/junit.xsd
command -v xmllint >/dev/null || skip "xmllint is not installed (libxml2-utils; scripts/quickstart installs it)"
# junitparser from Debian (python3-junitparser) is the system Python's.
JP=
for py in "$PYTHON3" /usr/bin/python3; do
	"$py" -c 'import junitparser' 2>/dev/null && { JP=$py; break; }
done
[ -n "$JP" ] || skip "python3-junitparser is not installed (scripts/quickstart installs it)"
gen() {
	PYTHONPATH="$abs_top_srcdir/python:$abs_top_srcdir/tests/py" "$PYTHON3" -c '
import sys
from fleetgen import Fleet
kw = dict(slow_drives=[("node005", 1, 0.5)], unsteady_drives=[("node007", 0, 0.6)],
          dead=["node011"]) if sys.argv[2] == "faults" else {}
Fleet(16, 2, 2, pairs="all", seed=3, **kw).write(sys.argv[1])' "$@"
}
gen "$TMPD/s" faults && gen "$TMPD/clean" clean || fail "generating the sweeps"

"${FLEET[@]}" judge "$TMPD/s" --junit "$TMPD/j.xml" >"$TMPD/out"
check_eq "judge --junit: exit 0 without --fail-on" 0 $?
check_eq "xmllint: the XML is valid against junit.xsd" "$TMPD/j.xml validates" \
	"$(xmllint --noout --schema "$XSD" "$TMPD/j.xml" 2>&1 | tail -n1)"
# The schema is not an empty one: a testcase without a name fails it.
sed 's/<testcase name="node000"/<testcase/' "$TMPD/j.xml" >"$TMPD/bad.xml"
check_match "xmllint: a testcase without a name is refused" "attribute 'name' is required" \
	"$(xmllint --noout --schema "$XSD" "$TMPD/bad.xml" 2>&1)"
"$JP" - "$TMPD/j.xml" >"$TMPD/read" <<'PY'
import sys
from junitparser import Failure, JUnitXml, Skipped
xml = JUnitXml.fromfile(sys.argv[1])
print("suites", sorted(s.name for s in xml))
print("totals", xml.tests, xml.failures, xml.skipped, xml.errors)
for suite in xml:
    for case in suite:
        for r in case.result:
            if isinstance(r, Failure):
                print("failure", suite.name, case.name, r.message, "|", r.text.split(":")[0])
            elif isinstance(r, Skipped):
                print("skipped", suite.name, case.name, r.message.split(":")[0])
PY
check_eq "junitparser: the suites" "suites ['nbw-fleet.drive-remote', 'nbw-fleet.drives', 'nbw-fleet.links', 'nbw-fleet.rails']" \
	"$(grep '^suites' "$TMPD/read")"
check_eq "junitparser: 64 testcases (16 nodes x 4 kinds), 1 failure, 5 skipped, 0 errors" \
	"totals 64 1 5 0" "$(grep '^totals' "$TMPD/read")"
check_match "junitparser: the failure is the slow drive, with its evidence" \
	'^failure nbw-fleet.drives node005 drive nvme1n1 [45][0-9]% \(below its peers and its floor\) \| drive node005 nvme1n1$' "$(grep '^failure' "$TMPD/read")"
check_eq "junitparser: node011 skipped in every kind, its partner of drive->remote in one" \
	"4 1" "$(grep -c '^skipped nbw-fleet.[a-z-]* node011 not measured$' "$TMPD/read") $(grep '^skipped' "$TMPD/read" | grep -vc node011)"

expect_exit 3 '' "${FLEET[@]}" judge "$TMPD/s" --fail-on suspect
expect_exit 3 '' "${FLEET[@]}" judge "$TMPD/s" --fail-on suspect,unmeasured
expect_exit 0 '' "${FLEET[@]}" judge "$TMPD/clean" --fail-on suspect,unsteady,unmeasured
rm -f "$TMPD/s/nodes/node005/read.json" "$TMPD/s/isolate/nodes/node005/read.json"
"${FLEET[@]}" judge "$TMPD/s" --fail-on suspect,unmeasured >"$TMPD/out2"
check_eq "the suspect's files gone: not measured, exit 4" 4 $?
check_match "... and said on its node's line" '^  node005 +NOT MEASURED: drives: no file' "$(cat "$TMPD/out2")"
expect_exit 2 "^nbw-fleet judge: argument --fail-on: suspects: suspect, unsteady or unmeasured" \
	"${FLEET[@]}" judge "$TMPD/s" --fail-on suspects
expect_exit 1 "^nbw-fleet: $TMPD/nodir/j.xml: No such file or directory" \
	"${FLEET[@]}" judge "$TMPD/s" --junit "$TMPD/nodir/j.xml"
finish
