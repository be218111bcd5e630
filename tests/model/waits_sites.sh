#!/bin/bash
# waits_sites.sh: every wait of the remote tool is a row of its one table
# (nvme_write_bw_remote/model/waits.c, checked by tests/model/test_waits): no
# file of the tool reads --timeout (o->timeout) but the table, the option's
# check (main.c) and the header that prints it (print/rows.c), and no control
# message is sent or awaited with a number of milliseconds of its own.
. "$(dirname "$0")/../lib.sh"

src=$abs_top_srcdir/nvme_write_bw_remote
cd "$src" || exit 1
# --timeout read outside the table: a wait of its own (2 * o->timeout, o->timeout / 2, ...).
stray=$(grep -nE '\bo->timeout\b' -- *.c */*.c |
	grep -vE '^(model/waits\.c|print/rows\.c):' |
	grep -vE '^main\.c:[0-9]+:.*(MAX_TIMEOUT_S|CLI_AT\(O, timeout\))')
check_eq "--timeout read outside model/waits.c" "" "$stray"
# A control message's wait as a literal number (ctrl_send_free(..., 1000)).
lit=$(awk '/(ctrl_send_free|ctrl_expect|ctrl_expect_end|source_send|source_await|session_expect)\(/ { call = 1 }
	call && /(, |^[ \t]*)[0-9]+\);/ { print FILENAME ":" FNR ": " $0 }
	/;/ { call = 0 }' ./*/*.c)
check_eq "a control message's wait not from the table" "" "$lit"
# The old helper is gone: every wait says which row it is.
check_eq "remote_timeout_ms() used" "" "$(grep -n 'remote_timeout_ms' -- *.c */*.c */*.h)"
# And the table is used: each row's id at one site at least, outside the table.
unused=
while read -r id; do
	grep -lw "$id" -- *.c */*.c | grep -vq '^model/waits\.c$' || unused="$unused $id"
done < <(sed -n '/^enum wait_id/,/WAIT_COUNT/s/^\t\(WAIT_[A-Z_]*\),.*/\1/p' model/waits.h)
check_eq "rows of the table used nowhere else" "" "$unused"
finish
