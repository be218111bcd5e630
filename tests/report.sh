#!/bin/bash
# report.sh: common/base/report.c's JSON parses with a real parser and holds the values handed
# over; its text mode renders the same calls with the text formats (and nothing else;
# a value it has not is a dash in the format's width, and the rest of the format follows).
. "$(dirname "$0")/lib.sh"
demo="$abs_top_builddir/tests/unit/report_demo"

"$demo" --json >"$TMPD/r.json" || fail "report_demo --json exited $?"
if json_valid "$TMPD/r.json"; then ok "JSON parses"; else fail "invalid JSON: $(cat "$TMPD/r.json")"; fi
check_eq tool report_demo "$(json_get "$TMPD/r.json" 'd["tool"]')"
check_eq "escaped string round-trips" "True" \
	"$(json_get "$TMPD/r.json" 'd["tricky"] == "q\"b\\s/\n\t\x01 é"')"
check_eq "NULL string is null" None "$(json_get "$TMPD/r.json" 'd["missing"]')"
check_eq "u64 max" 18446744073709551615 "$(json_get "$TMPD/r.json" 'd["big"]')"
check_eq "negative" -42 "$(json_get "$TMPD/r.json" 'd["neg"]')"
check_eq "double" 3.14159 "$(json_get "$TMPD/r.json" 'd["pi"]')"
check_eq "NAN is null" None "$(json_get "$TMPD/r.json" 'd["nan"]')"
check_eq "bool" True "$(json_get "$TMPD/r.json" 'd["yes"]')"
check_eq "bandwidth key is 10^9 bytes/s" 3.57 "$(json_get "$TMPD/r.json" 'd["gb_per_s"]')"
check_eq "empty array" "[]" "$(json_get "$TMPD/r.json" 'd["empty"]')"
check_eq "empty object" "{}" "$(json_get "$TMPD/r.json" 'd["empty_obj"]')"
check_eq "nested rows" "[0, 0, 0.5, 1.5, 1, 3]" \
	"$(json_get "$TMPD/r.json" '[x for r in d["rows"] for x in r["v"]]')"
check_eq "text-only output absent from JSON" 0 "$(grep -c 'unit=' "$TMPD/r.json")"
check_eq "keyless value in an object is text-only" 16 "$(json_get "$TMPD/r.json" 'len(d)')"

"$demo" >"$TMPD/r.txt"
cat >"$TMPD/want.txt" <<'TXT'
tool=report_demo
missing=-|
[-     ]
big=18446744073709551615
neg=-42
pi=3.142
nan=[     -%]
yes=yes
bw=3.57
small=[ 0.0042] GB/s
tenth=0.10
unit=GB/s
textonly=7
row 0 0
row 1 0.5
row 2 1
TXT
# The tricky string in text: control bytes escaped (a peer's string can carry a
# terminal escape sequence), UTF-8 as it is; JSON keeps it exact (checked above).
check_eq "text string, control bytes escaped" 'tricky=q"b\s/\x0a\x09\x01 é' "$(grep -a '^tricky=' "$TMPD/r.txt")"
if diff <(grep -av -e '^tricky=' "$TMPD/r.txt") "$TMPD/want.txt" >"$TMPD/diff"; then
	ok "text rendering"
else
	fail "text rendering differs: $(cat "$TMPD/diff")"
fi
check_eq "gbits text" "bw=28.56" "$("$demo" --gbits | grep '^bw=')"
check_eq "gbits text: a small figure keeps two digits" "small=[  0.034] GB/s" "$("$demo" --gbits | grep '^small=')"
check_eq "JSON: a small figure as it is" 0.0042 "$(json_get "$TMPD/r.json" 'd["small_gb_per_s"]')"
check_eq "gbits JSON stays GB/s" 3.57 "$("$demo" --json --gbits >"$TMPD/g.json"; json_get "$TMPD/g.json" 'd["gb_per_s"]')"
finish
