"""nbw-results check --junit: the check as JUnit XML, the form CI servers read (the
Ant/Jenkins layout, the one of nbw-fleet judge's: testsuites > testsuite > testcase >
failure | skipped | system-out). One testsuite for the run, one testcase per figure with
a reference, named "RUNG on NODE, DRIVE: FIGURE": outside its bounds a failure whose
text says by how much (outside and better too, as check's exit status counts it, the
message saying "better"), within them a pass with its line in system-out, not
comparable or without a reference skipped with why (a check never passes what it
did not check)."""
import socket
import time

from ..xmltext import attr, text


def case_name(x):
    return "%s%s%s: %s" % (x["rung"], " on " + x["node"] if x["node"] else "",
                           ", " + x["drive"] if x["drive"] else "", x["figure"])


def said(x):
    """One figure's line: value, reference, accepted change, all in its unit."""
    lo, hi = x["accepted_change"]
    bound = lambda v: "none" if v is None else "%+g" % v
    return "%s: %.6g %s against the reference %.6g %s (run %s), accepted change %s..%s" % (
        x["verdict"], x["value"] if x["value"] is not None else float("nan"), x["unit"],
        x["ref"], x["unit"], (x["reference_run"] or "?")[:8], bound(lo), bound(hi))


def _case(x):
    head = '    <testcase name=%s classname="nbw-results.check" time="0"' % attr(
        case_name(x))
    if x["verdict"] in ("not comparable", "no reference"):
        return head + ">\n      <skipped message=%s/>\n    </testcase>\n" % attr(
            x.get("reason") or "not comparable: other parameters than the reference's"), \
            "skipped"
    if x["verdict"] in ("below", "above"):
        return head + ">\n      <failure message=%s type=\"outside\">%s</failure>\n" \
            "    </testcase>\n" % (attr("%s (%s)" % (
                x["verdict"], "worse" if x["worse"] else "better")), text(said(x))), "failure"
    return head + ">\n      <system-out>%s</system-out>\n    </testcase>\n" % text(
        said(x)), None


def write(run, rows, out, stamp=None):
    """The check of run (its uuid) with its rows (verbs.check_row's) as JUnit XML."""
    stamp = stamp or time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())
    cases, fails, skips = [], 0, 0
    for x in rows:
        xml, what = _case(x)
        cases.append(xml)
        fails += what == "failure"
        skips += what == "skipped"
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n'
              '<testsuites name="nbw-results" tests="%d" failures="%d" errors="0" '
              'skipped="%d" time="0">\n'
              '  <testsuite name="nbw-results.check" tests="%d" failures="%d" errors="0" '
              'skipped="%d" time="0" timestamp=%s hostname=%s>\n    <properties>\n'
              '      <property name="run" value=%s/>\n    </properties>\n%s'
              '  </testsuite>\n</testsuites>\n' % (
                  len(cases), fails, skips, len(cases), fails, skips, attr(stamp),
                  attr(socket.gethostname()), attr(run), "".join(cases)))
    return {"tests": len(cases), "failures": fails, "skipped": skips}
