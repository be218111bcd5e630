# scripts/bench_transfer.sh: the user's own transfer as the ladder's last rung, sourced by
# run_bench.sh (its settings, bench_node.sh's start_bg, bench_lib.sh's say, die_usage and
# nbw_py). TRANSFER_CMD runs on SRC_NODE through the launcher (a shell command line, the
# user's own), "{sink}" in it replaced by the sink's fabric address (SINK_ADDR, checked to
# be a host name or address), timed on the source by its own clock, bounded by
# TRANSFER_TIMEOUT. Its bytes: TRANSFER_BYTES, else the command's own rsync --stats.
# nbw.ladder.transfer writes transfer-NODE.json from what it left (transfer-NODE.out, its
# stdout; transfer-NODE.log, its stderr); nbw.ladder.why sets it against every rung.
# run_bench.sh's variables used here: run_dir, mode, bg_pid (start_bg's), started.
# shellcheck shell=bash disable=SC2154,SC2034 # run_bench.sh's variables; started: its

# On the source: the command under sh, the source's clock before and after it, said on
# stderr's last line (nbw.ladder.transfer reads it and keeps it out of "stderr's last
# line"); the command's exit status is the wrapper's.
transfer_wrapper='s=$(date +%s.%N); sh -c "$1"; rc=$?; e=$(date +%s.%N)
printf "\nnbw-transfer: rc=%d start=%s end=%s\n" "$rc" "$s" "$e" >&2; exit "$rc"'

# The transfer's settings (check_settings has checked the node names and SINK_ADDR).
check_transfer_settings() {
	local addr=${SINK_ADDR:-${SINK_NODE:-}}
	if [ -z "${TRANSFER_CMD:-}" ]; then
		[ "$mode" != transfer ] || die_usage "TRANSFER_CMD is not set (mode transfer times it)"
		return 0
	fi
	shopt -s nocasematch
	[ -z "${TRANSFER_BYTES:-}" ] || [[ $TRANSFER_BYTES =~ ^[1-9][0-9]*([kmgt](i?b)?)?$ ]] ||
		{ shopt -u nocasematch; die_usage "TRANSFER_BYTES=$TRANSFER_BYTES: not a size (e.g. 64M, 2500G, 1000000)"; }
	shopt -u nocasematch
	duration_s "${TRANSFER_TIMEOUT:-1h}" >/dev/null ||
		die_usage "TRANSFER_TIMEOUT=$TRANSFER_TIMEOUT: not a duration (e.g. 600, 30m, 2h)"
	[ "$(duration_s "${TRANSFER_TIMEOUT:-1h}")" -gt 0 ] || die_usage "TRANSFER_TIMEOUT=$TRANSFER_TIMEOUT: more than 0 s"
	# Only a host name or an address ever replaces {sink}: letters, digits and ._:%-.
	if [[ $TRANSFER_CMD == *"{sink}"* ]] && ! [[ $addr =~ ^[A-Za-z0-9:][A-Za-z0-9._:%-]*$ ]]; then
		die_usage "SINK_ADDR=$addr: not a host name or address for TRANSFER_CMD's {sink}"
	fi
}

# run_transfer: TRANSFER_CMD on SRC_NODE, timed there: transfer-SRC_NODE.json. 1 when it
# gives no figure (it failed, ran out of time, or its bytes are unknown).
run_transfer() {
	local addr=${SINK_ADDR:-$SINK_NODE} cmd bytes='' limit rc out=$run_dir/transfer-$SRC_NODE line
	cmd=${TRANSFER_CMD//"{sink}"/"$addr"}
	[ -z "${TRANSFER_BYTES:-}" ] || bytes=$(size_bytes "$TRANSFER_BYTES")
	limit=$(duration_s "${TRANSFER_TIMEOUT:-1h}")
	say "transfer on $SRC_NODE (at most $limit s): $cmd"
	start_bg "$out.out" "$out.log" "$SRC_NODE" "$limit" transfer sh -c "$transfer_wrapper" sh "$cmd"
	wait "$bg_pid"
	rc=$?
	started=()
	line=$(nbw_py ladder.transfer make "$out.json" "$SRC_NODE" "$TRANSFER_CMD" "$bytes" \
		"$out.out" "$out.log" "$rc")
	rc=$?
	[ -z "$line" ] || say "$line"
	[ "$rc" = 0 ]
}
