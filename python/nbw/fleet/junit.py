"""nbw.fleet.junit: the judgement as JUnit XML, the form CI servers read (the Ant/Jenkins
layout: testsuites > testsuite > testcase > failure | skipped | system-out).

One testsuite per kind of part (links: the probe; drives; rails; drive->remote), one
testcase per node in each, named by the node: a suspect that stays low is a failure
whose text is its evidence, a kind of part not measured is skipped with the reason, a
part low once and normal again passes with a line in system-out. With a topology, a
suite "uplinks" holds a testcase per leaf and rail, a failure when its uplink is named
(nbw.fleet.topology). tests/fixtures/junit.xsd is the schema it is checked against.
"""

import socket
import time

from ..xmltext import attr, text
from .report import reason
from .verdict import NODE_KINDS, kind_of_suspect

SUITE_OF = {"links": "links", "drives": "drives", "rails": "rails",
            "drive->remote": "drive-remote"}


def _case(node, kind, entry, suspects):
    name = "nbw-fleet.%s" % SUITE_OF[kind]
    head = '    <testcase name=%s classname=%s time="0"' % (attr(node), attr(name))
    if entry is None:
        return head + "/>\n", None
    status = entry["status"]
    if status == "suspect":
        mine = [s for s in suspects if kind_of_suspect(s) == kind and s["state"] == "low"]
        body = "\n".join("%s %s %s: %s" % (s["kind"], s["node"], s["component"], reason(s))
                         for s in mine)
        return head + ">\n      <failure message=%s type=\"suspect\">%s</failure>\n" \
            "    </testcase>\n" % (attr(entry["what"]), text(body)), \
            "failure"
    if status == "not measured":
        return head + ">\n      <skipped message=%s/>\n    </testcase>\n" % attr(
            "not measured: " + entry["what"]), "skipped"
    if entry.get("what"):
        return head + ">\n      <system-out>%s</system-out>\n    </testcase>\n" % text(
            entry["what"]), None
    return head + "/>\n", None


def write(result, out, stamp=None):
    """The judgement (nbw.fleet.judge.judge's result) as one JUnit XML document."""
    stamp = stamp or time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())
    host = socket.gethostname()
    by_node = {}
    for s in result["suspects"]:
        for n in [s["node"]] + ([s["peer"]] if s.get("peer") else []):
            by_node.setdefault(n, []).append(s)
    suites, totals = [], [0, 0, 0]
    for kind in NODE_KINDS:
        cases, fails, skips = [], 0, 0
        for v in result.get("verdicts") or []:
            entry = (v.get("kinds") or {}).get(kind)
            if entry is None:
                continue
            xml, what = _case(v["node"], kind, entry, by_node.get(v["node"], []))
            cases.append(xml)
            fails += what == "failure"
            skips += what == "skipped"
        if not cases:
            continue
        suites.append(_suite(kind, cases, fails, skips, stamp, host, result))
        totals = [totals[0] + len(cases), totals[1] + fails, totals[2] + skips]
    cases, fails = _uplink_cases(result)
    if cases:
        suites.append(_suite("uplinks", cases, fails, 0, stamp, host, result))
        totals = [totals[0] + len(cases), totals[1] + fails, totals[2]]
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n'
              '<testsuites name="nbw-fleet" tests="%d" failures="%d" errors="0" skipped="%d" '
              'time="0">\n%s</testsuites>\n' % (totals[0], totals[1], totals[2], "".join(suites)))
    return {"tests": totals[0], "failures": totals[1], "skipped": totals[2]}


def _uplink_cases(result):
    """A testcase per leaf and rail judged with a topology, a failure when its uplink
    is named and stays low."""
    named = {(s["node"], s["evidence"].get("rail")): s for s in result["suspects"]
             if s["kind"] == "uplink" and s["state"] == "low"}
    cases, fails = [], 0
    for u in result.get("uplinks") or []:
        head = '    <testcase name=%s classname="nbw-fleet.uplinks" time="0"' % attr(
            "leaf %s rail %d" % (u["leaf"], u["rail"]))
        s = named.get((u["leaf"], u["rail"]))
        if s is None:
            cases.append(head + "/>\n")
            continue
        fails += 1
        cases.append(head + ">\n      <failure message=%s type=\"suspect\">%s</failure>\n"
                     "    </testcase>\n" % (attr(s["component"]), text(reason(s))))
    return cases, fails


def _suite(kind, cases, fails, skips, stamp, host, result):
    return ('  <testsuite name=%s tests="%d" failures="%d" errors="0" skipped="%d" time="0" '
            'timestamp=%s hostname=%s>\n    <properties>\n'
            '      <property name="threshold" value="%g"/>\n'
            '      <property name="suite_version" value=%s/>\n    </properties>\n%s'
            '  </testsuite>\n' % (attr("nbw-fleet.%s" % SUITE_OF.get(kind, kind)), len(cases),
                                 fails, skips, attr(stamp), attr(host), result["threshold"],
                                 attr(result.get("suite_version") or ""), "".join(cases)))
