"""nbw.fleet: the fleet sweep (nbw-fleet): which node, rail, drive or link is below its
peers, and why.

  plan     the rounds of disjoint pairs, the defaults by fleet size, the sweep's duration
  sweepdir the sweep's directory read into measurements
  judge    the judgement of a sweep's directory (a pure function of its files)
  judge_pairs   the rule over a channel's pairs: a part low with its partners, or a link
  judge_retest  what the isolate phase measures again, from the screening
  topology which leaf each port hangs off (hostfile, ibnetdiscover), the uplink rule,
           the rounds that cross every uplink
  verdict  one verdict per node, what was not measured and why, a summary per kind
  health   a suspect drive's own evidence: its health log and its window's shape
  report   the judgement as text, JSON and one HTML page
  junit    the judgement as JUnit XML for CI
  tasks    what a node runs in a step (one sh -c script) and what comes back
  launch   how a step reaches its nodes: one srun step, or LAUNCHER --fanout at once
  nodes    which nodes a sweep runs over, the launcher that reaches them
  run      the sweep itself, in steps (isolate: judge_retest's work), within its deadline
  liveness nodes that fail to start, die or hang: dropped at their first failure, their
           partners re-paired; the sweep's time per phase beside the plan's
  act      what a site does with the verdict: --fail-on, --junit, --drain, --max-time
  cli      the command line
"""

PROG = "nbw-fleet"
FORMAT = 2  # the sweep directory's layout (sweep.json "format"; 2: a pair's --bidir run)
