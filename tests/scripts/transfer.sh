#!/bin/bash
# scripts/run_bench.sh transfer (TRANSFER_CMD, bench_transfer.sh) without a lab, both
# nodes this host through the ssh stand-in (tests/scripts/lib.sh): a command of
# TRANSFER_BYTES gives a figure above zero, timed on the source; {sink} becomes SINK_ADDR
# and nothing else; rsync --stats output gives the bytes; no bytes known says to set
# TRANSFER_BYTES; a failing command gives its exit status and stderr's last line, never
# a figure; TRANSFER_TIMEOUT bounds it (exit 124); bad settings exit 2 with one line;
# ladder_report sets the transfer rung on a recorded ladder (the rung under it, its gap
# to the top synthetic rung, ladder.json's "why").
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
make_fakes
export PATH=$TMPD/bin:$PATH RESULTS_DIR=$TMPD/results LAUNCHER=ssh SINK_NODE=n1 SRC_NODE=n2
unset NODES SINK_ADDR RUN_NAME CMD_TIMEOUT TRANSFER_CMD TRANSFER_BYTES TRANSFER_TIMEOUT

# --- usage errors ------------------------------------------------------------------
expect_exit 2 'TRANSFER_CMD is not set' "$RUN_BENCH" transfer
expect_exit 2 'TRANSFER_BYTES=64X: not a size' env TRANSFER_CMD=true TRANSFER_BYTES=64X "$RUN_BENCH" check transfer
expect_exit 2 'TRANSFER_TIMEOUT=soon: not a duration' env TRANSFER_CMD=true TRANSFER_TIMEOUT=soon "$RUN_BENCH" check ladder
expect_exit 2 "SINK_ADDR=me@n1: not a host name or address for TRANSFER_CMD's {sink}" \
	env 'TRANSFER_CMD=rsync -a /d/ {sink}::m/' SINK_ADDR=me@n1 "$RUN_BENCH" check transfer
env TRANSFER_CMD='true' SINK_ADDR=me@n1 "$RUN_BENCH" check transfer >"$TMPD/out" 2>&1
check_eq "no {sink} in the command: SINK_ADDR is not substituted, not checked for it" "0:" "$?:$(cat "$TMPD/out")"

# --- a figure: 64 MiB from /dev/zero, TRANSFER_BYTES=64M ----------------------------
reset_fakes
RUN_NAME=dd TRANSFER_CMD='dd if=/dev/zero bs=1M count=64 of=/dev/null' TRANSFER_BYTES=64M \
	"$RUN_BENCH" transfer >"$TMPD/out" 2>"$TMPD/err"
check_eq "dd: exit status" 0 $?
J=$RESULTS_DIR/dd/transfer-n2.json
check_eq "dd: run on the source, through the launcher" n2 "$(nth_call ssh 1 | sed -n 1p)"
check_eq "dd: bytes from TRANSFER_BYTES, exit 0, ok" "67108864 TRANSFER_BYTES 0 True" \
	"$(json_get "$J" '"%s %s %s %s" % (d["bytes"], d["bytes_from"], d["exit_status"], d["ok"])')"
check_eq "dd: a figure above zero = bytes / seconds" True \
	"$(json_get "$J" 'd["gb_per_s"] > 0 and abs(d["gb_per_s"] - d["bytes"] / d["seconds"] / 1e9) < 1e-9')"
check_eq "dd: the command as given" 'dd if=/dev/zero bs=1M count=64 of=/dev/null' "$(json_get "$J" 'd["command"]')"
check_eq "dd: run.json records the settings" "dd if=/dev/zero bs=1M count=64 of=/dev/null 64M transfer" \
	"$(json_get "$RESULTS_DIR/dd/run.json" '"%s %s %s" % (d["settings"]["TRANSFER_CMD"], d["settings"]["TRANSFER_BYTES"], d["mode"])')"
check_match "dd: said" 'transfer on n2: [0-9.]+ GB/s \(67108864 bytes from TRANSFER_BYTES in' "$(cat "$TMPD/err")"
check_match "dd: the ladder table's transfer rung" '^transfer +n2 +[0-9]+\.[0-9]+ ' "$(cat "$TMPD/out")"

# --- {sink}: SINK_ADDR and nothing else; rsync --stats gives the bytes ----------------
reset_fakes
# shellcheck disable=SC2016 # the command is the source's to expand
RUN_NAME=stats SINK_ADDR=10.0.0.7 TRANSFER_CMD='echo "to {sink} {sink} $HOME"; printf "Total transferred file size: 2,000,000 bytes\n"' \
	"$RUN_BENCH" transfer >"$TMPD/out" 2>"$TMPD/err"
check_eq "stats: exit status" 0 $?
check_eq "stats: every {sink} replaced by SINK_ADDR, the rest the source's shell" "to 10.0.0.7 10.0.0.7 $HOME" \
	"$(head -n1 "$RESULTS_DIR/stats/transfer-n2.out")"
check_eq "stats: bytes from rsync --stats" "2000000 rsync --stats True" \
	"$(json_get "$RESULTS_DIR/stats/transfer-n2.json" '"%s %s %s" % (d["bytes"], d["bytes_from"], d["gb_per_s"] > 0)')"

# --- no bytes known: one line, no figure ----------------------------------------------
RUN_NAME=nobytes TRANSFER_CMD='echo done' "$RUN_BENCH" transfer >"$TMPD/out" 2>"$TMPD/err"
check_eq "no bytes: exit status 1" 1 $?
check_match "no bytes: set TRANSFER_BYTES" 'transfer on n2: no figure: its bytes are not known: set TRANSFER_BYTES' "$(cat "$TMPD/err")"
check_eq "no bytes: no figure" None "$(json_get "$RESULTS_DIR/nobytes/transfer-n2.json" 'd["gb_per_s"]')"

# --- a failing command: its exit status and stderr's last line, never a figure ----------
RUN_NAME=fail TRANSFER_BYTES=1G TRANSFER_CMD='echo partial; echo "rsync: connection refused" >&2; exit 12' \
	"$RUN_BENCH" transfer >"$TMPD/out" 2>"$TMPD/err"
check_eq "fail: exit status 1" 1 $?
check_match "fail: its status and stderr's last line" 'transfer on n2: no figure: the command failed \(exit 12\): rsync: connection refused$' "$(cat "$TMPD/err")"
check_eq "fail: the document" "12 None False" \
	"$(json_get "$RESULTS_DIR/fail/transfer-n2.json" '"%s %s %s" % (d["exit_status"], d["gb_per_s"], d["ok"])')"
check_match "fail: the table says FAILED, no figure" '^transfer \(FAILED\) +n2 +- ' "$(cat "$TMPD/out")"
check_match "fail: the sentence" '^the transfer gave no figure \(the command failed \(exit 12\)' "$(cat "$TMPD/out")"

RUN_NAME=esc TRANSFER_BYTES=1G TRANSFER_CMD='printf "bad \033[2J line\n" >&2; exit 4' "$RUN_BENCH" transfer >/dev/null 2>"$TMPD/err"
check_match "fail: a control character in its stderr is escaped, never sent" 'failed \(exit 4\): bad \\x1b\[2J line$' "$(cat "$TMPD/err")"

# --- TRANSFER_TIMEOUT ---------------------------------------------------------------
start=$SECONDS
RUN_NAME=slow TRANSFER_BYTES=1G TRANSFER_TIMEOUT=1 TRANSFER_CMD='sleep 20' "$RUN_BENCH" transfer >/dev/null 2>"$TMPD/err"
check_eq "timeout: exit status 1" 1 $?
check_eq "timeout: ended within its limit (+ the launcher's)" True "$([ $((SECONDS - start)) -lt 15 ] && echo True || echo False)"
check_match "timeout: said" 'no figure: no result within TRANSFER_TIMEOUT \(exit 124\)' "$(cat "$TMPD/err")"

# --- on a recorded ladder: the rung under it and its gap --------------------------------
L=$TMPD/ladder
mkdir -p "$L"
cp "$FIXTURES"/ladder/ref/* "$FIXTURES"/ladder/upper/* "$L"
cat >"$L/transfer-b.json" <<'EOF'
{"tool": "transfer", "node": "b", "command": "dd if=/dev/zero bs=1M | socat - TCP:{sink}:9",
 "exit_status": 0, "seconds": 10.0, "bytes": 20000000000, "bytes_from": "TRANSFER_BYTES",
 "gb_per_s": 2.0, "ok": true, "why_no_figure": null, "stderr_last": null}
EOF
"$abs_top_srcdir/scripts/ladder_report" "$L" >"$TMPD/out" 2>"$TMPD/err"
check_eq "ladder: exit status" 0 $?
check_eq "ladder: the transfer rung, last, under one TCP stream" "transfer b tcp (1 stream) 25 4.1" \
	"$(json_get "$L/ladder.json" '(lambda r: "%s %s %s %.0f %.1f" % (r["name"], r["node"], r["under_rung"], r["pct_of_under"], r["gap_pct_of_top"]))(d["rungs"][-1])')"
check_match "ladder: the headline gap" '^the transfer ran at 4% of the wire: 2\.00 GB/s against ib_write_bw.s 49\.06 GB/s, the top synthetic rung\.$' "$(cat "$TMPD/out")"
check_match "ladder: retransmits against the TCP rung's ceiling" '^tcp \(1 stream\) counted 12 retransmits at 16% of its ceiling \(50\.00 GB/s\): loss may hold it back' "$(cat "$TMPD/out")"
check_eq "ladder.json's why = the sentences printed" True \
	"$(json_get "$L/ladder.json" 'all(s + "." in open(sys.argv[1][:-5] + ".txt").read() for s in d["why"]) and len(d["why"]) >= 2')"

finish
