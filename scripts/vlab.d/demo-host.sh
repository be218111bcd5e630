#!/bin/bash
# vlab demo, on the host once the lab is down: the ladder is made again from the
# demo's run (DEMO_DIR, the copy of node a's run directory that vlab kept), so
# that ladder.txt and ladder.json name the host's directory, not the guest's
# path (ib_write_bw's line under the ladder kept); the run goes into the host's record of runs
# (nbw-results record: $NBW_RESULTS, else ~/.local/share/nbw-results, on the
# host's own disk), with a note that says it is the virtual lab, and an HTML
# report is made from the record (DEMO_DIR/report.html). The last lines name
# the ladder, the record and the report, all host paths.
#
#   demo-host.sh DEMO_DIR
#
# Exit status: 0, or 1 when the run could not be recorded or reported (said).
set -u
dir=$1
nr=$(cd "$(dirname "$0")/.." && pwd)/nbw-results
py=${PYTHON3:-python3}
rc=0

say() { printf 'demo: %s\n' "$*"; }

# remake_ladder DIR: ladder.txt, ladder.json (and ladder.png with gnuplot) from
# the tools' JSON in DIR, on the host; the guest's ladder stays when it fails.
remake_ladder() {
	local ib png=()
	ib=$(grep '^fabric rung beside ib_write_bw' "$1/ladder.txt" 2>/dev/null)
	command -v "${GNUPLOT:-gnuplot}" >/dev/null && png=(--png "$1/ladder.png")
	if "$py" "$(dirname "$nr")/ladder_report" "${png[@]}" "$1" >/dev/null 2>"$1/ladder.log"; then
		[ -z "$ib" ] || printf '%s\n' "$ib" >>"$1/ladder.txt"
		rm -f "$1/ladder.log"
	else
		say "the ladder was not made again on the host: $(tail -n1 "$1/ladder.log")"
	fi
}

[ -e "$dir/ladder.txt" ] && remake_ladder "$dir"

if "$py" "$nr" record --note "vlab demo: virtual lab (qemu TCG), not hardware figures" \
	"$dir" >"$dir/record.txt" 2>"$dir/record.log"; then
	# "recorded UUID: N figures, inventory of a, b, in RECORD"
	read -r _ uuid _ <"$dir/record.txt"
	uuid=${uuid%:}
	record=$(sed -n 's/.*, in \(.*\)$/\1/p' "$dir/record.txt")
	if "$py" "$nr" report "$uuid" --out "$dir/report.html" >/dev/null 2>"$dir/report.log"; then
		report=$dir/report.html
	else
		report="not made: $(tail -n1 "$dir/report.log")"
		rc=1
	fi
else
	record="not recorded: $(tail -n1 "$dir/record.log") (later: nbw-results record $dir)"
	uuid='' report="not made (no record)"
	rc=1
fi
for f in "$dir/ladder.log" "$dir/record.log" "$dir/report.log"; do [ -s "$f" ] || rm -f "$f"; done
echo
say "the ladder: $dir/ladder.txt$([ -e "$dir/ladder.png" ] && echo " (drawn: ladder.png beside it)")"
say "the record: ${uuid:+run $uuid in }$record${uuid:+ ($nr show $uuid)}"
say "the report: $report"
exit "$rc"
