#!/bin/bash
# run_bench.sh rsync on loopback, this machine posing as both nodes (n1 the sink, n2 the
# source, through the srun stand-in): the daemon rungs (1 and 8 streams) and, with an
# sshd of the test's own (tests/lab/ssh_lab.sh, on 127.0.0.1), rsync over ssh beside
# ssh's ceiling, each figure above zero in its JSON and in ladder.json; the skips (RSYNC=none,
# no rsync, no ssh, SSH=none) one line each; nothing left (no daemon, no tmpfs, no
# directory) after success, a failed stream, a daemon that cannot bind its port and SIGTERM.
# shellcheck disable=SC2010,SC2012 # ls lists the files this test made
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
command -v rsync >/dev/null || skip "rsync is not installed (apt-get install rsync)"
[ "$(id -u)" = 0 ] || [ "$(stat -f -c %T /tmp)" = tmpfs ] || skip "needs root (a tmpfs mount) or a tmpfs /tmp"
real_ssh=$(command -v ssh) # before the fakes' ssh stand-in is on PATH
make_fakes
export PATH=$TMPD/bin:$PATH RESULTS_DIR=$TMPD/results
unset NODES LAUNCHER_QUOTE CMD_TIMEOUT SRC_ADDR SSH_OPTS RSYNC SSH RSYNC_PORT
free_port() { "$PYTHON3" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
PORT=$(free_port)
export SINK_NODE=n1 SRC_NODE=n2 SINK_ADDR=127.0.0.1 LAUNCHER="fake-srun -N1 -w" PORT
export RSYNC_FILES=12 RSYNC_FILE_SIZE=1M
# what a run of ours may leave: the daemon, the ends' tmpfs and directories
left() {
	{
		pgrep -af 'nbw-rsync\.' | grep -v pgrep
		grep ' /tmp/nbw-rsync\.' /proc/mounts
		ls -d /tmp/nbw-rsync.* 2>/dev/null
		leftovers
	} | grep -v -e "^$$ " || true
}
check_eq "nothing of ours before the test" "" "$(left)"
# rung DIR NAME EXPR: EXPR of that rung in DIR's ladder.json (mode rsync prints the ladder;
# ladder_report writes it)
rung() {
	[ -e "$1/ladder.json" ] || "$abs_top_srcdir/scripts/ladder_report" "$1" >/dev/null
	json_get "$1/ladder.json" "[r for r in d['rungs'] if r['name'] == '$2'][0]$3"
}

# --- usage -----------------------------------------------------------------------
expect_exit 2 'RSYNC_FILES=0: a positive integer' env RSYNC_FILES=0 "$RUN_BENCH" check rsync
expect_exit 2 'RSYNC_FILE_SIZE=lots: not a size' env RSYNC_FILE_SIZE=lots "$RUN_BENCH" check rsync
expect_exit 2 'RSYNC_PORT=70000: not a port' env RSYNC_PORT=70000 "$RUN_BENCH" check ladder
expect_exit 2 'SSH_OPTS=.*letters, digits' env SSH_OPTS='-o ProxyCommand=$(id)' "$RUN_BENCH" check rsync

# --- the skips ---------------------------------------------------------------------
RUN_NAME=none RSYNC=none "$RUN_BENCH" rsync >/dev/null 2>"$TMPD/err"
check_eq "RSYNC=none: one line" "run_bench.sh: RSYNC=none: the rsync rungs are skipped" "$(grep 'rsync rungs' "$TMPD/err")"
RUN_NAME=norsync RSYNC=/nonexistent/rsync "$RUN_BENCH" rsync >/dev/null 2>"$TMPD/err"
check_eq "no rsync on a node: one line naming the package" \
	"run_bench.sh: /nonexistent/rsync is not installed on n1: the rsync rungs are skipped (apt-get install rsync)" \
	"$(grep 'rsync rungs' "$TMPD/err")"

# --- the daemon rungs; the ssh rung skipped (no ssh client) ------------------------------
RUN_NAME=d SSH=/nonexistent/ssh timeout 300 "$RUN_BENCH" rsync >"$TMPD/out" 2>"$TMPD/err"
check_eq "rsync: exit status" 0 $?
check_eq "no ssh: one line naming the package" \
	"run_bench.sh: /nonexistent/ssh is not installed on n2: the rsync over ssh rung is skipped (apt-get install openssh-client)" \
	"$(grep 'over ssh rung' "$TMPD/err")"
D=$RESULTS_DIR/d
check_match "the daemon: the fabric address only, the source's address only" \
	'daemon on n1 at 127\.0\.0\.1:[0-9]+ \(use chroot = no, hosts allow = 127\.0\.0\.1' "$(cat "$TMPD/err")"
check_eq "the daemon's port: PORT + 3" "$((PORT + 3))" "$(sed -n 's/.*daemon on n1 at 127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$TMPD/err")"
check_eq "the 8-stream rung: 8 rsync processes, all 12 files, their bytes" "8 12 12582912 True" \
	"$(json_get "$D/rsync_d8-n2.json" '"%d %d %d %s" % (d["streams"], d["files"], d["bytes"], d["ok"])')"
check_eq "the 8-stream rung: 8 --stats reports" 8 "$(grep -c '^Total bytes sent' "$D/rsync_d8-n2.txt")"
for r in "rsync daemon (1 stream)" "rsync daemon (8 streams)"; do
	check_eq "$r: GB/s, sender and receiver CPU above zero" "True True True rsync" \
		"$(rung "$D" "$r" '' | "$PYTHON3" -c 'import ast,sys; r=ast.literal_eval(sys.stdin.read())
print(r["measured_gb_per_s"] > 0, r["sender_cpu_s_per_gib"] > 0, r["receiver_cpu_s_per_gib"] is not None and r["receiver_cpu_s_per_gib"] >= 0, r["kind"])')"
done
check_match "the ladder text: the rungs" 'rsync daemon \(8 streams\) +n2 +[0-9.]+' "$(cat "$TMPD/out")"
check_match "the daemon's own log kept" 'rsync_d8' "$(cat "$D/rsyncd-n1.log")"
check_eq "nothing left after success" "" "$(left)"

# --- one of the 8 streams fails: the rung failed (no figure), rsync's own error said ------------
cat >"$TMPD/bin/rsync-flaky" <<'SH'
#!/bin/bash
# rsync, but the fourth stream of the 8 fails as a partial transfer does
case "$*" in *rsync_d8-s3/*) echo "rsync error: some files/attrs were not transferred (code 23)" >&2; exit 23 ;; esac
exec rsync "$@"
SH
chmod +x "$TMPD/bin/rsync-flaky"
RUN_NAME=flaky RSYNC=$TMPD/bin/rsync-flaky SSH=none timeout 300 "$RUN_BENCH" rsync >"$TMPD/out" 2>"$TMPD/err"
check_eq "a failed stream: exit status" 1 $?
check_match "a failed stream: rsync's error said" 'rsync_d8 on n2 failed \(exit 23\): rsync error: some files' "$(cat "$TMPD/err")"
check_eq "a failed stream: the 1-stream rung measured, the 8-stream one failed without a figure" "True True None" \
	"$(rung "$RESULTS_DIR/flaky" "rsync daemon (1 stream)" '["measured_gb_per_s"] > 0') $(rung "$RESULTS_DIR/flaky" "rsync daemon (8 streams)" '["failed"]') $(rung "$RESULTS_DIR/flaky" "rsync daemon (8 streams)" '["measured_gb_per_s"]')"
check_eq "nothing left after a failed stream" "" "$(left)"

# --- a daemon that cannot bind its port: the mode fails, nothing left ------------------------
busy=$(free_port)
"$PYTHON3" -c 'import socket,sys,time; s=socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(); time.sleep(60)' "$busy" &
holder=$!
t_cleanup_hooks+=("kill $holder 2>/dev/null")
sleep 0.5
RUN_NAME=busy RSYNC_PORT=$busy SSH=none timeout 300 "$RUN_BENCH" rsync >"$TMPD/out" 2>"$TMPD/err"
check_eq "port taken: exit status" 1 $?
check_match "port taken: said" 'rsync daemon on n1 .*failed' "$(cat "$TMPD/err")"
kill "$holder" 2>/dev/null
check_eq "nothing left after the failure" "" "$(left)"

# --- SIGTERM mid-transfer: exit 143, nothing left -----------------------------------------
RUN_NAME=term RSYNC_FILES=64 RSYNC_FILE_SIZE=8M SSH=none setsid "$RUN_BENCH" rsync >"$TMPD/out" 2>"$TMPD/err" &
pid=$!
for ((i = 0; i < 300; i++)); do grep -q 'rsync_d1 on n2' "$TMPD/err" && break; sleep 0.1; done
sleep 0.3
kill -TERM "$pid"
wait "$pid"
check_eq "SIGTERM: exit status" 143 $?
check_match "SIGTERM: said" 'interrupted: stopping' "$(cat "$TMPD/err")"
sleep 1
check_eq "nothing left after SIGTERM" "" "$(left)"

# --- rsync over ssh, with an sshd of the test's own --------------------------------------
if [ "$(id -u)" = 0 ] && command -v sshd >/dev/null && [ -n "$real_ssh" ]; then
	sp=$(free_port)
	t_cleanup_hooks+=("'$abs_top_srcdir/tests/lab/ssh_lab.sh' down '$TMPD/ssh'")
	if opts=$("$abs_top_srcdir/tests/lab/ssh_lab.sh" up "$TMPD/ssh" 127.0.0.1 "$sp" 2>"$TMPD/sshd.err"); then
		RUN_NAME=ssh SSH=$real_ssh SSH_OPTS=$opts timeout 300 "$RUN_BENCH" rsync >"$TMPD/out" 2>"$TMPD/err"
		check_eq "rsync with ssh: exit status" 0 $?
		D=$RESULTS_DIR/ssh
		check_eq "rsync over ssh: figure, cipher ceiling above zero; the ceiling is ssh's" \
			"True True ssh (one stream) True" \
			"$(rung "$D" "rsync over ssh" '' | "$PYTHON3" -c 'import ast,sys; r=ast.literal_eval(sys.stdin.read())
print(r["measured_gb_per_s"] > 0, r["ssh_cipher_gb_per_s"] > 0, r["ceiling_rung"], r["ceiling_gb_per_s"] == r["ssh_cipher_gb_per_s"])')"
		check_match "the negotiated cipher, from ssh -v" '^[a-z0-9@.-]+$' "$(rung "$D" "rsync over ssh" '["ssh_cipher"]')"
		"$abs_top_srcdir/tests/lab/ssh_lab.sh" down "$TMPD/ssh"
		check_eq "nothing left after the ssh rung" "" "$(left)"
	else
		echo "note: no sshd of our own ($(tail -n1 "$TMPD/sshd.err")): the ssh rung is not tested here"
	fi
fi
# ssh that cannot reach the sink: the ssh rung skipped with one line, the others measured
RUN_NAME=nossh SSH=${real_ssh:-ssh} SSH_OPTS="-p $(free_port)" timeout 300 "$RUN_BENCH" rsync >"$TMPD/out" 2>"$TMPD/err"
check_eq "ssh refused: exit status" 0 $?
check_match "ssh refused: one line, the rung skipped" '^run_bench.sh: ssh from n2 to 127\.0\.0\.1 failed .*: the rsync over ssh rung is skipped' \
	"$(grep 'over ssh rung' "$TMPD/err")"
check_eq "nothing left" "" "$(left)"
finish
