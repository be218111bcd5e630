#!/bin/bash
# nbw-fleet judge at 4096 nodes x 8 rails x 8 drives (make check-slow: generating the
# sweep takes minutes): a sweep from tests/py/fleetgen.py as nbw-fleet run writes it
# with the defaults (the ring and 4 random partners), every sink document carrying its
# ports' counters as the tool's do (about 37000 files, 400 MB: a real sweep's size),
# one drive and one rail slowed, one node dead. judge (its text) answers in under 30 s
# of processor time and under 1 GiB, names exactly the two slowed parts and
# the dead node as NOT MEASURED; the page stays under 5 MB; the JUnit XML is valid
# against tests/fixtures/junit.xsd. The processor seconds are held, not the wall time:
# on a 2-core machine shared with other builds the wall time says more of the others.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"
export PYTHONDONTWRITEBYTECODE=1
S=$TMPD/sweep
PYTHONPATH="$abs_top_srcdir/python:$abs_top_srcdir/tests/py" "$PYTHON3" -c '
import sys
from fleetgen import Fleet
Fleet(4096, 8, 8, pairs="auto", seed=3, counters=True,
      slow_drives=[("node1365", 5, 0.5)], slow_rails=[("node2730", 2, 0.5)],
      dead=["node4095"]).write(sys.argv[1])' "$S"
check_eq "generated" 0 $?
echo "# the sweep: $(find "$S" -type f | wc -l) files, $(du -sm "$S" | cut -f1) MB"
"$PYTHON3" - "$abs_top_srcdir/scripts/nbw-fleet" "$S" "$TMPD" >"$TMPD/cost" <<'EOF'
import resource, subprocess, sys, time
prog, sweep, tmp = sys.argv[1:]
t = time.monotonic()
with open(tmp + "/judge.txt", "w") as out:
    rc = subprocess.call([sys.executable, prog, "judge", sweep], stdout=out)
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print(rc, "%.1f" % (ru.ru_utime + ru.ru_stime), ru.ru_maxrss // 1024,
      "%.1f" % (time.monotonic() - t))
EOF
read -r rc cpu mib wall <"$TMPD/cost"
echo "# judge: $cpu s of processor time, $mib MiB at most, $wall s of wall time (load $(cut -d' ' -f1 /proc/loadavg))"
check_eq "judge: exit" 0 "$rc"
check_eq "under 30 s of processor time" yes "$(awk -v c="$cpu" 'BEGIN { print c < 30 ? "yes" : "no: " c }')"
check_eq "under 1 GiB" yes "$([ "$mib" -lt 1024 ] && echo yes || echo "no: $mib MiB")"
# node1484's only drive->remote partner is the dead node: that kind of its parts has no
# figure, so it is not measured too.
check_eq "the verdicts: 4092 PASS, 2 SUSPECT, 2 NOT MEASURED" \
	"nbw-fleet judge: 4096 nodes: 4092 PASS, 2 SUSPECT, 2 NOT MEASURED" \
	"$(head -n1 "$TMPD/judge.txt" | cut -d';' -f1)"
check_match "the slowed rail named" "^  node2730 +SUSPECT: rail 2 \\(mlx5_2\\)" "$(cat "$TMPD/judge.txt")"
check_match "the slowed drive named" "^  node1365 +SUSPECT: drive nvme5n1" "$(cat "$TMPD/judge.txt")"
check_match "the dead node not measured, with why" "^  node4095 +NOT MEASURED: unreachable: " "$(cat "$TMPD/judge.txt")"
check_match "its partner's drive->remote not measured, because of it" \
	"^  node1484 +NOT MEASURED: drive->remote: its partner node4095 did not answer" "$(cat "$TMPD/judge.txt")"
"$PYTHON3" "$abs_top_srcdir/scripts/nbw-fleet" judge --html "$TMPD/page.html" --junit "$TMPD/junit.xml" \
	"$S" >/dev/null
size=$(wc -c <"$TMPD/page.html")
echo "# the page: $size bytes"
check_eq "the page under 5 MB" yes "$([ "$size" -lt 5000000 ] && echo yes || echo "no: $size")"
if command -v xmllint >/dev/null; then
	xmllint --noout --schema "$abs_top_srcdir/tests/fixtures/junit.xsd" "$TMPD/junit.xml" 2>"$TMPD/xmllint"
	check_eq "the JUnit XML valid against its schema" 0 $?
fi
finish
