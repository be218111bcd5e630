#!/bin/bash
# tests/read_bw/buffers.sh: the readers' buffers as the header and JSON state them (how
# many, locked or not, huge pages or not: what a trial buffer got), and a local read
# under a locked-memory limit too low for them: it runs unlocked and says so (O_DIRECT
# pins each read's pages), never fails after its header. As root the limit is tested
# as nobody (root's CAP_IPC_LOCK ignores it); as another user its own limit is lowered.
. "$(dirname "$0")/../lib.sh"

f="$TMPD/a.img"
make_pattern "$f" $((8 * 1024 * 1024)) 1
chmod 755 "$TMPD"
chmod 644 "$f"

# Unlimited here (or root): 2 threads x 1 MiB, locked, each rounded to a 2 MiB huge page.
"$NVME_READ_BW" --disks "$f" -t 2 --warmup 0 -D 0.2 --json >"$TMPD/a.json" 2>"$TMPD/err" ||
	fail "exit $?: $(cat "$TMPD/err")"
json_valid "$TMPD/a.json" || fail "invalid JSON"
check_eq "buffers: count, size, bytes to lock" "2 1048576 4194304" \
	"$(json_get "$TMPD/a.json" 'd["params"]["buffers"]["count"], d["params"]["buffers"]["bytes_each"], d["params"]["buffers"]["lock_needed_bytes"]' | tr -d '(),')"
check_eq "huge pages: a bool with its bytes" True \
	"$(json_get "$TMPD/a.json" 'isinstance(d["params"]["buffers"]["huge_pages"], bool) and d["params"]["buffers"]["huge_pages"] == (d["params"]["buffers"]["huge_page_bytes"] >= 2097152)')"
"$NVME_READ_BW" --disks "$f" -t 2 --warmup 0 -D 0.2 >"$TMPD/a.txt" 2>&1 || fail "text: exit $?"
check_match "header: the buffer kind" "^ Buffers +: 2 x 1MiB, (locked|not locked), (huge pages \(THP\)|partly huge pages \(THP\)|4 KiB pages \(no THP\))$" \
	"$(grep '^ Buffers' "$TMPD/a.txt")"

# An 8 MiB limit against 12 x 1 MiB (24 MiB once rounded to huge pages).
low() {
	if [ "$(id -u)" = 0 ]; then
		command -v setpriv >/dev/null || skip "no setpriv to drop root"
		id nobody >/dev/null 2>&1 || skip "no user nobody"
		setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
			test -x "$NVME_READ_BW" -a -r "$f" || skip "nobody cannot reach the build or $f"
		setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
			bash -c 'ulimit -l 8192 && exec "$@"' low "$@"
	else
		bash -c 'ulimit -S -l 8192 && exec "$@"' low "$@"
	fi
}
low "$NVME_READ_BW" --disks "$f" -t 12 --warmup 0 -D 0.2 --json >"$TMPD/l.json" 2>"$TMPD/lerr"
check_eq "low limit: the read runs" 0 "$?"
check_eq "low limit: not locked, needed and limit" "False 25165824 8388608" \
	"$(json_get "$TMPD/l.json" 'd["params"]["buffers"]["locked"], d["params"]["buffers"]["lock_needed_bytes"], d["params"]["buffers"]["lock_limit_bytes"]' | tr -d '(),')"
check_eq "low limit: bytes read" True "$(json_get "$TMPD/l.json" 'd["total"]["bytes"] > 0')"
low "$NVME_READ_BW" --disks "$f" -t 12 --warmup 0 -D 0.2 >"$TMPD/l.txt" 2>&1
check_eq "low limit: text run" 0 "$?"
check_match "low limit: one note" "note: buffers not locked: they need 24MiB and RLIMIT_MEMLOCK is 8MiB \(ulimit -l\)" \
	"$(cat "$TMPD/l.txt")"
finish
