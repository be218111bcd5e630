#!/bin/bash
# counters_table.sh: the attribution's groups of counters are one table, the remote
# tool's (nvme_write_bw_remote/print/attrib.c), listed by --counters-table; the Python
# package's copy (python/nbw/portcounters.py), the man page's ATTRIBUTION and the
# remote tool's schema must agree with it (tests/schema/counters_table.py), and a copy
# that differs is caught: a group's counter dropped from the listing, then one renamed.
. "$(dirname "$0")/../lib.sh"
CHECK=("$PYTHON3" "$abs_top_srcdir/tests/schema/counters_table.py")
ARGS=("$abs_top_srcdir/man/nvme_write_bw_remote.1" "$abs_top_srcdir/schema/nvme_write_bw_remote.schema.json")

"$NVME_WRITE_BW_REMOTE" --counters-table >"$TMPD/table" 2>"$TMPD/err"
check_eq "--counters-table: exit status" 0 $?
check_eq "--counters-table: nothing on stderr" "" "$(cat "$TMPD/err")"
check_eq "--counters-table: 7 groups, then their 28 counters" "7 28" \
	"$(grep -c '^group	' "$TMPD/table") $(grep -c '^counter	' "$TMPD/table")"
check_eq "--counters-table: every line of 4 (group) or 3 (counter) tab-separated fields" "" \
	"$(awk -F'\t' '!($1 == "group" && NF == 4) && !($1 == "counter" && NF == 3)' "$TMPD/table")"
check_eq "--counters-table: a row of the option table (--help)" 1 \
	"$("$NVME_WRITE_BW_REMOTE" --help | grep -c -- '--counters-table')"

"${CHECK[@]}" "$TMPD/table" "${ARGS[@]}" >"$TMPD/same" 2>&1
check_eq "the tool's table and Python's, the page's and the schema's agree" 0 $?
cat "$TMPD/same"

# Differences are caught: a counter the Python copy has and the tool lost; a rename.
grep -v '	out_of_seq_request$' "$TMPD/table" >"$TMPD/short"
"${CHECK[@]}" "$TMPD/short" "${ARGS[@]}" >"$TMPD/out" 2>&1
check_eq "a counter missing from one copy: caught" 1 $?
check_match "and named" "FAIL: group out_of_sequence: its counters" "$(cat "$TMPD/out")"
sed 's/	rnr	RNR NAKs and buffer overruns/	rnr	RNR NAKs/' "$TMPD/table" >"$TMPD/words"
"${CHECK[@]}" "$TMPD/words" "${ARGS[@]}" >"$TMPD/out" 2>&1
check_eq "a group's words differing: caught" 1 $?
check_match "and named" "FAIL: group rnr: its words" "$(cat "$TMPD/out")"
finish
