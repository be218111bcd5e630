"""nbw.fleet: the fleet sweep (nbw-fleet): which node, rail, drive or link is below its
peers, and why.

  plan   the rounds of disjoint pairs and the sweep's duration
  judge  the judgement of a sweep's directory (a pure function of its files)
  health a suspect drive's own evidence: its health log and its window's shape
  report the judgement as text, JSON and one HTML page
  run    the sweep itself, through the suite's launchers
  cli    the command line
"""

FORMAT = 1  # the sweep directory's layout (sweep.json "format")
