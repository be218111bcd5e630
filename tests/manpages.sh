#!/bin/bash
# manpages.sh: for each tool, every long option of its option table (the options --help
# prints) appears in its man page and every long option in the man page is in the table
# (tests/options/lib.sh); every page in man/ lints clean
# (mandoc -T lint, groff -ww) and fits 80 columns: `MANWIDTH=80 man --warnings -l` says
# nothing (a tbl table wider than the line, for one).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/options/lib.sh"

for tool in nvme_read_bw nvme_write_bw_remote nvme_link_probe; do
	bin="$abs_top_builddir/$tool/$tool"
	page="$abs_top_srcdir/man/$tool.1"
	[ -x "$bin" ] || { fail "$tool not built"; continue; }
	[ -f "$page" ] || { fail "$page missing"; continue; }
	man_check "$tool" "$bin" "$page"
done

# Every page, the overview (section 7) too. man and mandoc come with quickstart's
# packages (man-db, mandoc): missing, they are a failed install step, not a skip.
for page in "$abs_top_srcdir"/man/*.[1-8]; do
	name=${page##*/}
	if command -v mandoc >/dev/null; then
		check_eq "$name: mandoc -T lint" "" "$(mandoc -T lint "$page" 2>&1 | grep -v 'STYLE:')"
	else
		fail "mandoc not installed (apt-get install mandoc)"
	fi
	check_eq "$name: groff -ww" "" "$(groff -ww -man -Tutf8 "$page" 2>&1 >/dev/null)"
	if command -v man >/dev/null; then
		check_eq "$name: MANWIDTH=80 man --warnings -l" "" \
			"$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)"
	else
		fail "man not installed (apt-get install man-db)"
	fi
done
# nbw-results (Python): the options of every verb's --help, against its page.
nr=$abs_top_srcdir/scripts/nbw-results page=$abs_top_srcdir/man/nbw-results.1
nr_help() {
	local v
	for v in "" record list show compare trend reference check export report inventory note exclude; do
		"$PYTHON3" "$nr" $v --help
	done | grep -oE -- '--[a-z][a-z0-9_-]+' | LC_ALL=C sort -u
}
check_eq "nbw-results: --help options missing from the man page" "" "$(LC_ALL=C comm -23 <(nr_help) <(opts_man "$page") | tr '\n' ' ')"
check_eq "nbw-results: man page options unknown to --help" "" "$(LC_ALL=C comm -13 <(nr_help) <(opts_man "$page") | tr '\n' ' ')"
check_eq "nbw-results: groff -ww" "" "$(groff -ww -man -Tutf8 "$page" 2>&1 >/dev/null)"
if command -v mandoc >/dev/null; then
	check_eq "nbw-results: mandoc -T lint" "" "$(mandoc -T lint "$page" 2>&1 | grep -v 'STYLE:')"
fi
finish
