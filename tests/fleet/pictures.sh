#!/bin/bash
# The fleet's pictures at 64 nodes, read through the gnuplot scripts that draw them (a
# $GNUPLOT stand-in keeps each script and its data files, then runs gnuplot when
# installed): the judge's
# pair matrix names every node on both axes, in the PNG as in the page's SVG; the trend
# of a rung measured on 64 drives draws each run's spread (min, median, max: three
# series in the legend), not a line per drive.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"
export PYTHONDONTWRITEBYTECODE=1

# The stand-in: the script (a file argument or stdin) kept in $TMPD/gp.N, then drawn by
# the real gnuplot, or a PNG's signature written where the script says when there is none;
# a probe of the terminals (gnuplot -e) goes straight to gnuplot.
mkdir -p "$TMPD/bin"
real=$(command -v gnuplot || echo false)
cat >"$TMPD/bin/gnuplot" <<EOF
#!/bin/bash
if [ "\${1:-}" = -e ]; then exec "$real" "\$@"; fi
n=\$(ls "$TMPD"/gp.* 2>/dev/null | wc -l)
cat "\${1:--}" >"$TMPD/gp.\$n"
# the data files beside the script (the series' titles are their headers)
[ -z "\${1:-}" ] || cp -r "\$(dirname "\$1")" "$TMPD/gp.\$n.d"
if [ "$real" != false ]; then exec "$real" "$TMPD/gp.\$n"; fi
out=\$(grep -o "set output '[^']*'" "$TMPD/gp.\$n" | head -n1 | cut -d"'" -f2)
[ -z "\$out" ] || printf '\\x89PNG\\r\\n\\x1a\\n' >"\$out"
EOF
chmod +x "$TMPD/bin/gnuplot"
export GNUPLOT="$TMPD/bin/gnuplot"

gen() {
	PYTHONPATH="$abs_top_srcdir/python:$abs_top_srcdir/tests/py" "$PYTHON3" -c '
import sys
from fleetgen import Fleet
Fleet(64, 1, 1, pairs=4, seed=3,
      slow_drives=[("node005", 0, 0.5)] if sys.argv[2] == "slow" else []).write(sys.argv[1])' "$@"
}
gen "$TMPD/s1" healthy && gen "$TMPD/s2" slow
check_eq "two sweeps of 64 nodes generated" 0 $?

# The pair matrix.
"$PYTHON3" "$abs_top_srcdir/scripts/nbw-fleet" judge "$TMPD/s2" --html "$TMPD/page.html" >/dev/null
check_eq "judge --html: the heat map's PNG beside the page" 89504e47 \
	"$(head -c 4 "$TMPD/page.html.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')"
names() { for i in $(seq 0 63); do printf "'node%03d' %d\n" "$i" "$i"; done; }
for axis in x y; do
	check_eq "the PNG's $axis axis: the 64 nodes by name, each at its row" "$(names)" \
		"$(grep -o "set ${axis}tics ([^)]*)" "$TMPD/gp.0" | sed 's/^set .tics (//; s/)$//' |
			tr ',' '\n' | sed 's/^ //')"
done
check_eq "the page's SVG: the 64 nodes on each axis" 128 \
	"$(grep -o '<text[^>]*>node0[0-9][0-9]</text>' "$TMPD/page.html" | wc -l)"

# The trend of 64 drives.
NR=("$PYTHON3" "$abs_top_srcdir/scripts/nbw-results" --db "$TMPD/db")
"${NR[@]}" record "$TMPD/s1" >/dev/null && "${NR[@]}" record "$TMPD/s2" >/dev/null
check_eq "record both sweeps" 0 $?
rm -f "$TMPD"/gp.*
"${NR[@]}" trend "fleet drive" --out "$TMPD/trend.png" >"$TMPD/trend.txt"
check_eq "trend --out of 64 drives: exit" 0 $?
check_match "trend: each run's spread over its 64 drives" \
	"fleet drive: 64 nodes and drives per run at most, each run's spread" "$(cat "$TMPD/trend.txt")"
# Recorded words are never in the script: each series' title is its data file's header.
check_eq "trend --out: one plot of three series (min, median, max), not 64" '3 "max" "median" "min"' \
	"$(grep '^plot ' "$TMPD/gp.0" | grep -o 'title columnheader(1)' | wc -l) $(for f in "$TMPD"/gp.0.d/s*; do head -n1 "$f" | cut -d' ' -f1; done | sort | tr '\n' ' ' | sed 's/ $//')"
check_eq "trend: a spread for each of the two runs" 2 \
	"$(json_get <("${NR[@]}" trend "fleet drive" --json) 'len(d["spread"])')"
finish
