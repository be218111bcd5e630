#!/bin/bash
# vlab fleet, on the host once the lab is down: the sweep (DIR, the copy of node
# a's sweep that vlab kept) judged again here, as nbw-fleet judge runs it anywhere:
# judge.txt, judge.json and report.html (the heat map beside it as report.html.png
# when gnuplot is installed). The last line names the sweep's directory.
#
#   fleet-host.sh DIR
#
# Exit status: 0, or 1 when the sweep could not be judged (said).
set -u
dir=$1
fleet=$(cd "$(dirname "$0")/.." && pwd)/nbw-fleet
py=${PYTHON3:-python3}
rc=0
if "$py" "$fleet" judge --html "$dir/report.html" "$dir" >"$dir/judge.txt" 2>"$dir/judge.log" &&
	"$py" "$fleet" judge --json "$dir" >"$dir/judge.json" 2>>"$dir/judge.log"; then
	rm -f "$dir/judge.log"
	cat "$dir/judge.txt"
else
	echo "fleet: the sweep was not judged: $(tail -n1 "$dir/judge.log")"
	rc=1
fi
echo
echo "fleet: the judgement: $dir/judge.txt (judge.json, report.html beside it)"
echo "fleet: the sweep: $dir"
exit "$rc"
