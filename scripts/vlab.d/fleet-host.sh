#!/bin/bash
# vlab fleet, on the host once the lab is down: the sweep (DIR, the copy of node
# a's sweep that vlab kept) judged again here, as nbw-fleet judge runs it anywhere:
# judge.txt, judge.json and report.html (the heat map beside it as report.html.png
# when gnuplot is installed); then the sweep goes into the host's record of runs
# (nbw-results record: $NBW_RESULTS, else ~/.local/share/nbw-results, on the
# host's own disk) as one fleet run, with a note that says it is the virtual lab.
# The last lines name the judgement, the record, the judge's HTML page and, last,
# the sweep's directory, all host paths.
#
#   fleet-host.sh DIR
#
# Exit status: 0, or 1 when the sweep could not be judged or recorded (said, with
# the command that records it later).
set -u
dir=$1
here=$(cd "$(dirname "$0")/.." && pwd)
fleet=$here/nbw-fleet nr=$here/nbw-results
py=${PYTHON3:-python3}
rc=0
if "$py" "$fleet" judge --html "$dir/report.html" "$dir" >"$dir/judge.txt" 2>"$dir/judge.log" &&
	"$py" "$fleet" judge --json "$dir" >"$dir/judge.json" 2>>"$dir/judge.log"; then
	cat "$dir/judge.txt"
	report=$dir/report.html
else
	echo "fleet: the sweep was not judged: $(tail -n1 "$dir/judge.log")"
	report="not made: $(tail -n1 "$dir/judge.log")"
	rc=1
fi
if "$py" "$nr" record --note "vlab fleet: virtual lab (qemu TCG), not hardware figures" \
	"$dir" >"$dir/record.txt" 2>"$dir/record.log"; then
	# "recorded UUID: N figures, ... in RECORD" (or "recorded UUID as FAILED (...)")
	read -r _ uuid _ <"$dir/record.txt"
	uuid=${uuid%:}
	record=$(sed -n 's/.*, in \(.*\)$/\1/p' "$dir/record.txt")
	failed=$(sed -n 's/^recorded [^ ]* as FAILED (\(.*\)): its .*/\1/p' "$dir/record.txt")
	record="run $uuid${failed:+, recorded as FAILED ($failed),}${record:+ in $record} ($nr show $uuid)"
else
	record="not recorded: $(tail -n1 "$dir/record.log") (later: $nr record $dir)"
	rc=1
fi
for f in "$dir/judge.log" "$dir/record.log"; do [ -s "$f" ] || rm -f "$f"; done
echo
echo "fleet: the judgement: $dir/judge.txt (judge.json beside it)"
echo "fleet: the record: $record"
echo "fleet: the report: $report"
echo "fleet: the sweep: $dir"
exit "$rc"
