#!/bin/bash
# overview_page.sh: nvme-bw-suite(7) lints clean, refers to the three tools' pages (each
# of which exists), and carries the reference result and the Gen3 x4 arithmetic.
. "$(dirname "$0")/lib.sh"

page="$abs_top_srcdir/man/nvme-bw-suite.7"
[ -f "$page" ] || { fail "$page missing"; finish; }
if command -v mandoc >/dev/null; then
	check_eq "mandoc -T lint" "" "$(mandoc -T lint "$page" 2>&1)"
fi
check_eq "groff -ww -man" "" "$(groff -ww -man -Tutf8 "$page" 2>&1 >/dev/null)"

# The page as text, one long line per paragraph (no hyphenation, no overstrikes).
text=$(groff -man -Tascii -P-cbou -rLL=2000n -rHY=0 "$page" 2>/dev/null | tr -s ' ')
# has WHAT REGEX: the text holds REGEX (extended).
has() {
	T_CHECKS=$((T_CHECKS + 1))
	if printf '%s\n' "$text" | grep -Eq -- "$2"; then ok "$1"; else fail "$1: /$2/ not in the page"; fi
}
see_also=$(printf '%s\n' "$text" | sed -n '/^SEE ALSO/,$p' | tr -s ' \n' ' ')
for tool in nvme_link_probe nvme_read_bw nvme_write_bw_remote; do
	check_match "SEE ALSO $tool(1)" "$tool\(1\)" "$see_also"
	[ -f "$abs_top_srcdir/man/$tool.1" ] || fail "man/$tool.1, named in SEE ALSO, does not exist"
done

# The reference result and its arithmetic, as DESIGN.md states them:
# 8 GT/s x 4 x 128/130 / 8 bits = 3.94 GB/s raw; 6 drives x 3.57 = 21.4 GB/s.
raw=$(awk 'BEGIN { printf "%.2f", 8e9 * 4 * 128 / 130 / 8 / 1e9 }')
has "raw Gen3 x4 ceiling $raw GB/s" "= $raw GB/s raw"
has "per-drive 3.57 GB/s" "3\.57 GB/s"
has "aggregate 21.41 GB/s" "21\.41 GB/s"
has "100.0% of ideal" "100\.0% of ideal"
has "six Gen3 x4 drives" "six PCIe Gen3 x4"
finish
