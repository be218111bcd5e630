# scripts/bench_xfer.sh: the ladder's rsync rungs, sourced by run_bench.sh (its failure
# and settings, bench_node.sh's node_cmd, start_bg and stop_on_node, bench_upper.sh's
# have_on, bench_lib.sh's say): an rsync daemon started on the sink (bound to SINK_ADDR,
# open to the source's address only, use chroot = no, its config and module in a tmpfs
# of its own) fed by 1 and by 8 rsync processes on the source, and one rsync through ssh
# beside ssh's own one-stream ceiling (the source's files through cat into ssh SINK
# 'cat >/dev/null'). The files live in a tmpfs on each end: no drive is written. Every
# step is bounded; the daemon and both tmpfs are removed at the end, on failure and on a
# signal (xfer_teardown).
# run_bench.sh's variables used here: prog, run_dir, run_id, bg_pid, started.
# shellcheck shell=bash disable=SC2154

# xfer_dir sink|src: each end's directory (apart, should both ends be one machine).
xfer_dir() { printf '/tmp/nbw-rsync.%s.%s' "$run_id" "$1"; }

# Both ends, run there with sh: xfer_sh ACT DIR ARGS...
#  up DIR SIZE: DIR a tmpfs of SIZE bytes (mounted when root; else DIR must sit on one).
#  conf DIR BIND PORT ALLOW: DIR/rsyncd.conf, module "nbw" = DIR/data, writable, for
#   ALLOW only (an address; a name is matched by reverse lookup).
#  files DIR N BYTES STREAMS: N files of BYTES in DIR/files/sI (dealt to STREAMS dirs).
#  cpu DIR: the daemon's CPU seconds so far (its own and its reaped children's).
#  send DIR STREAMS DEST RSYNC [RSH]: STREAMS RSYNC processes at once, stream I sending
#   DIR/files/sI (or all of DIR/files with one stream) to DEST-sI/ (DEST/ with one),
#   through ssh RSH when given; their --stats, then "nbw: seconds= cpu_s= rc=".
#  ceiling DIR SSH...: the files through cat into SSH... 'cat >/dev/null' (with -v):
#   "nbw: seconds= rc= cipher=".
#  clear DIR SUB: DIR/data/SUB* removed.  down DIR: the daemon stopped, its log
#   printed, DIR unmounted and removed.
# shellcheck disable=SC2016
xfer_sh='PATH=$PATH:/usr/sbin:/sbin
act=$1 dir=$2
err() { echo "rsync: $*" >&2; }
now() { date +%s.%N; }
ticks() { sed "s/.*) //" "/proc/$1/stat" | awk -v t="$(getconf CLK_TCK)" "{ printf \"%.3f\n\", (\$12 + \$13 + \$14 + \$15) / t }"; }
dpid() { p=$(cat "$dir/rsyncd.pid" 2>/dev/null); case $p in "" | *[!0-9]*) return 1 ;; esac; echo "$p"; }
case $act in
up)
	mkdir -p "$dir" || { err "cannot create $dir"; exit 1; }
	if [ "$(id -u)" = 0 ]; then
		mount -t tmpfs -o "size=$(($3 + 16777216)),mode=0700" nbw-rsync "$dir" ||
			{ rmdir "$dir"; err "cannot mount a tmpfs on $dir"; exit 1; }
	elif [ "$(stat -f -c %T "$dir")" != tmpfs ]; then
		rmdir "$dir"; err "$dir is not in a tmpfs and mounting one needs root"; exit 1
	fi
	mkdir -p "$dir/data" ;;
conf)
	# a name in hosts allow matches through its reverse lookup only
	case $5 in *[!0-9A-Fa-f.:]*) rl=yes ;; *) rl=no ;; esac
	printf "%s\n" "pid file = $dir/rsyncd.pid" "lock file = $dir/rsyncd.lock" \
		"log file = $dir/rsyncd.log" "use chroot = no" "reverse lookup = $rl" \
		"address = $3" "port = $4" "[nbw]" "path = $dir/data" "read only = no" \
		"hosts allow = $5" "hosts deny = *" "uid = $(id -u)" "gid = $(id -g)" >"$dir/rsyncd.conf" ;;
files)
	n=$3 size=$4 k=$5 i=0
	while [ "$i" -lt "$k" ]; do mkdir -p "$dir/files/s$i" || exit 1; i=$((i + 1)); done
	head -c "$size" /dev/urandom >"$dir/f0" || { err "cannot write $size bytes into $dir"; exit 1; }
	i=0
	while [ "$i" -lt "$n" ]; do
		cp "$dir/f0" "$dir/files/s$((i % k))/f$i" || { err "cannot write $dir/files"; exit 1; }
		i=$((i + 1))
	done
	rm -f "$dir/f0" ;;
cpu) p=$(dpid) && ticks "$p" ;;
send)
	k=$3 dest=$4 rs=$5 rsh=${6:-} i=0 rc=0
	c0=$(ticks $$) t0=$(now)
	if [ "$k" = 1 ]; then
		"$rs" -a --stats ${rsh:+-e "$rsh" --rsync-path="$rs"} "$dir/files/" "$dest/" >"$dir/out.0" 2>&1 || rc=$?
	else
		while [ "$i" -lt "$k" ]; do
			"$rs" -a --stats "$dir/files/s$i/" "$dest-s$i/" >"$dir/out.$i" 2>&1 &
			pids="${pids:-} $!" i=$((i + 1))
		done
		for p in $pids; do wait "$p" || rc=$?; done
	fi
	t1=$(now) c1=$(ticks $$)
	for f in "$dir"/out.*; do echo "== $f"; cat "$f"; done; rm -f "$dir"/out.*
	echo "nbw: seconds=$(awk -v a="$t0" -v b="$t1" "BEGIN { printf \"%.6f\", b - a }") cpu_s=$(awk -v a="$c0" -v b="$c1" "BEGIN { printf \"%.3f\", b - a }") rc=$rc" ;;
ceiling)
	shift 2
	rc=0 t0=$(now)
	find "$dir/files" -type f -exec cat {} + | "$@" "cat >/dev/null" 2>"$dir/ssh.err" || rc=$?
	t1=$(now)
	cat "$dir/ssh.err" >&2
	c=$(sed -n "s/.*kex: client->server cipher: \([^ ]*\).*/\1/p" "$dir/ssh.err" | head -n1)
	echo "nbw: seconds=$(awk -v a="$t0" -v b="$t1" "BEGIN { printf \"%.6f\", b - a }") rc=$rc cipher=${c:-unknown}" ;;
clear) rm -rf "$dir/data/$3" "$dir/data/$3"-s* ;;
down)
	[ -d "$dir" ] || exit 0
	if p=$(dpid); then
		kill "$p" 2>/dev/null
		for i in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$p" 2>/dev/null || break; sleep 0.5; done
	fi
	cat "$dir/rsyncd.log" 2>/dev/null
	if grep -q " $dir tmpfs " /proc/mounts; then umount "$dir" 2>/dev/null || umount -l "$dir"; fi
	rm -rf "$dir" ;;
esac'

# xfer_step NODE LIMIT TAG OUT ARGS...: one bounded step of xfer_sh on NODE, its
# stdout into OUT, its stderr kept in TAG-NODE.log; in the background, so that a
# signal stops it (on_signal), and waited for.
xfer_step() {
	local node=$1 limit=$2 tag=$3 out=$4 rc
	shift 4
	start_bg "$out" "$run_dir/$tag-$node.log" "$node" "$limit" "$tag" sh -c "$xfer_sh" sh "$@"
	wait "$bg_pid"
	rc=$?
	unset 'started[-1]'
	[ "$rc" = 0 ] || failure "$tag on $node" "$rc" "$run_dir/$tag-$node.log"
	return "$rc"
}

# Undo both ends (the daemon, the tmpfs); on_signal calls it too.
xfer_teardown() {
	[ -n "${xfer_pending:-}" ] || return 0
	xfer_pending=
	say "rsync: stopping the daemon on $SINK_NODE, removing both ends' tmpfs"
	[ -z "${xfer_srv:-}" ] || kill -TERM "$xfer_srv" 2>/dev/null
	xfer_step "$SINK_NODE" 60 rsync-down "$run_dir/rsyncd-$SINK_NODE.log" down "$(xfer_dir sink)"
	xfer_step "$SRC_NODE" 60 rsync-down /dev/null down "$(xfer_dir src)"
	[ -z "${xfer_srv:-}" ] || { stop_on_node "$SINK_NODE" rsyncd; wait "$xfer_srv" 2>/dev/null; }
	xfer_srv=
	# shellcheck disable=SC2034 # run_bench.sh's list of what runs in the background
	started=()
}

# xfer_json NAME STREAMS RAW SINK_CPU0 SINK_CPU1 [CEILING_RAW]: the rung's small JSON
# (NAME-SRC.json) from the source's raw output, written by nbw.ladder.xfer.
xfer_json() {
	nbw_py ladder.xfer json "$run_dir/$1-$SRC_NODE.json" "$2" "$xfer_files" "$xfer_bytes" "$3" "$4" "$5" "${6:-}"
}

# xfer_send NAME STREAMS DEST [RSH]: one rung's transfer, timed on the source.
xfer_send() {
	local name=$1 n=$2 dest=$3 rsh=${4:-} c0='' c1='' rc raw=$run_dir/$1-$SRC_NODE.txt
	[ -n "$rsh" ] || c0=$(xfer_cpu)
	say "$name on $SRC_NODE: $n rsync process(es) to $dest${rsh:+ (-e '$rsh')}"
	xfer_step "$SRC_NODE" "$xfer_limit" "$name" "$raw" send "$(xfer_dir src)" "$n" "$dest" "$xfer_rsync" ${rsh:+"$rsh"}
	rc=$(sed -n 's/^nbw: .* rc=\([0-9]*\).*/\1/p' "$raw")
	if [ "${rc:-1}" != 0 ]; then
		# rsync's own complaint, not the timing line
		grep -Ei 'error|fail|refused|denied|unknown|no such|@ERROR' "$raw" >"$run_dir/$name-$SRC_NODE.err"
		failure "$name on $SRC_NODE" "${rc:-1}" "$run_dir/$name-$SRC_NODE.err"
		rc=1
	fi
	[ -n "$rsh" ] || { sleep 0.5; c1=$(xfer_cpu); }
	xfer_json "$name" "$n" "$raw" "$c0" "$c1" "${5:-}" || rc=1
	xfer_step "$SINK_NODE" 60 rsync-clear /dev/null clear "$(xfer_dir sink)" "$name"
	[ "$rc" = 0 ]
}

xfer_cpu() {
	local run_cmd
	node_cmd "$SINK_NODE" 30 rsync-cpu sh -c "$xfer_sh" sh cpu "$(xfer_dir sink)"
	"${run_cmd[@]}" </dev/null 2>/dev/null | grep -E '^[0-9]+(\.[0-9]+)?$'
}

# The source's address as the sink sees it (its route to SINK_ADDR), else SRC_ADDR.
xfer_src_addr() {
	local run_cmd a
	node_cmd "$SRC_NODE" 30 rsync-route sh -c 'PATH=$PATH:/usr/sbin:/sbin; ip -o route get "$1"' sh "$xfer_addr"
	a=$("${run_cmd[@]}" </dev/null 2>/dev/null | sed -n 's/.* src \([^ ]*\).*/\1/p' | head -n1)
	[[ $a =~ ^[0-9A-Fa-f.:]+$ ]] || a=${SRC_ADDR:-$SRC_NODE}
	printf '%s' "$a"
}

# The rsync daemon on the sink (started in the background, listening once rsync://
# lists its module from the source).
xfer_daemon() {
	local allow port=${RSYNC_PORT:-$((PORT + 3))} run_cmd i
	allow=$(xfer_src_addr)
	say "rsync: daemon on $SINK_NODE at $xfer_addr:$port (use chroot = no, hosts allow = $allow, module in a tmpfs)"
	xfer_step "$SINK_NODE" 60 rsync-conf /dev/null conf "$(xfer_dir sink)" "$xfer_addr" "$port" "$allow" || return 1
	# it serves every rung and the ssh ceiling in between: four steps' time and some
	start_bg "$run_dir/rsyncd-$SINK_NODE.out" "$run_dir/rsyncd-$SINK_NODE.err" "$SINK_NODE" \
		$((4 * xfer_limit + 300)) rsyncd \
		"$xfer_rsync" --daemon --no-detach --config="$(xfer_dir sink)/rsyncd.conf"
	xfer_srv=$bg_pid
	node_cmd "$SRC_NODE" 10 rsync-list "$xfer_rsync" --contimeout=5 --timeout=5 "rsync://$xfer_addr:$port/"
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		"${run_cmd[@]}" </dev/null 2>/dev/null | grep -q '^nbw' && { xfer_url=rsync://$xfer_addr:$port/nbw; return 0; }
		kill -0 "$xfer_srv" 2>/dev/null || break
		sleep 0.5
	done
	failure "rsync daemon on $SINK_NODE (not listed from $SRC_NODE after $i tries)" 1 "$run_dir/rsyncd-$SINK_NODE.err"
	return 1
}

# The ssh rung: one rsync stream through ssh, then ssh's own ceiling.
xfer_ssh() {
	local ssh=${SSH:-ssh} opts run_cmd rsh
	[ "$ssh" = none ] && { say "SSH=none: the rsync over ssh rung is skipped"; return 0; }
	have_on "$SRC_NODE" "$ssh" ||
		{ say "$ssh is not installed on $SRC_NODE: the rsync over ssh rung is skipped (apt-get install openssh-client)"; return 0; }
	read -ra opts <<<"-o BatchMode=yes -o ConnectTimeout=${SSH_TIMEOUT:-10} ${SSH_OPTS:-}"
	node_cmd "$SRC_NODE" 60 ssh-check "$ssh" "${opts[@]}" "$xfer_addr" true
	if ! "${run_cmd[@]}" </dev/null >/dev/null 2>"$run_dir/ssh-check-$SRC_NODE.log"; then
		say "ssh from $SRC_NODE to $xfer_addr failed ($(tail -n1 "$run_dir/ssh-check-$SRC_NODE.log")): the rsync over ssh rung is skipped (the sink needs an ssh server, apt-get install openssh-server, that trusts the source's key; SSH_OPTS)"
		return 0
	fi
	say "rsync over ssh: ssh's one-stream ceiling first: the files into $ssh $xfer_addr 'cat >/dev/null'"
	xfer_step "$SRC_NODE" "$xfer_limit" ssh-ceiling "$run_dir/ssh_ceiling-$SRC_NODE.txt" ceiling "$(xfer_dir src)" \
		"$ssh" -v "${opts[@]}" "$xfer_addr" || return 1
	rsh="$ssh ${opts[*]}"
	xfer_send rsync_ssh 1 "$xfer_addr:$(xfer_dir sink)/data/rsync_ssh" "$rsh" "$run_dir/ssh_ceiling-$SRC_NODE.txt"
}

# The rsync rungs (mode rsync, the ladder): skipped with one line when a node has no
# rsync or RSYNC=none; the ssh rung too when SSH=none or ssh does not reach the sink.
run_rsync() {
	local node fails=0 size
	xfer_rsync=${RSYNC:-rsync} xfer_addr=${SINK_ADDR:-$SINK_NODE}
	[ "$xfer_rsync" = none ] && { say "RSYNC=none: the rsync rungs are skipped"; return 0; }
	for node in "$SINK_NODE" "$SRC_NODE"; do
		have_on "$node" "$xfer_rsync" ||
			{ say "$xfer_rsync is not installed on $node: the rsync rungs are skipped (apt-get install rsync)"; return 0; }
	done
	xfer_files=${RSYNC_FILES:-64} xfer_bytes=$(size_bytes "${RSYNC_FILE_SIZE:-16M}")
	size=$((xfer_files * xfer_bytes))
	xfer_limit=${CMD_TIMEOUT:-$((120 + size / 10000000))}
	xfer_pending=1
	say "rsync: $xfer_files files of ${RSYNC_FILE_SIZE:-16M} in a tmpfs on $SRC_NODE, a tmpfs on $SINK_NODE"
	xfer_step "$SINK_NODE" 60 rsync-up /dev/null up "$(xfer_dir sink)" "$size" &&
		xfer_step "$SRC_NODE" 60 rsync-up /dev/null up "$(xfer_dir src)" "$size" &&
		xfer_step "$SRC_NODE" $((60 + size / 50000000)) rsync-files /dev/null files "$(xfer_dir src)" \
			"$xfer_files" "$xfer_bytes" $((xfer_files < 8 ? xfer_files : 8)) || { xfer_teardown; return 1; }
	if xfer_daemon; then
		xfer_send rsync_d1 1 "$xfer_url/rsync_d1" || fails=$((fails + 1))
		xfer_send rsync_d8 $((xfer_files < 8 ? xfer_files : 8)) "$xfer_url/rsync_d8" || fails=$((fails + 1))
	else
		fails=$((fails + 1))
	fi
	xfer_ssh || fails=$((fails + 1))
	xfer_teardown
	[ "$fails" = 0 ]
}

# The rsync rungs' settings (run_bench.sh's check_settings does the rest).
check_xfer_settings() {
	[ -z "${RSYNC_PORT:-}" ] || { [[ $RSYNC_PORT =~ ^[1-9][0-9]*$ ]] && [ "$RSYNC_PORT" -le 65535 ]; } ||
		die_usage "RSYNC_PORT=$RSYNC_PORT: not a port"
	[[ ${RSYNC_FILES:-64} =~ ^[1-9][0-9]{0,5}$ ]] || die_usage "RSYNC_FILES=$RSYNC_FILES: a positive integer (files)"
	shopt -s nocasematch
	[[ ${RSYNC_FILE_SIZE:-16M} =~ ^[1-9][0-9]*([kmg](i?b)?)?$ ]] ||
		die_usage "RSYNC_FILE_SIZE=$RSYNC_FILE_SIZE: not a size (e.g. 16M, 256K)"
	shopt -u nocasematch
	[[ ${SSH_OPTS:-} =~ ^[A-Za-z0-9._/=:@%,+\ -]*$ ]] ||
		die_usage "SSH_OPTS=\"$SSH_OPTS\": letters, digits, spaces and ._/=:@%,+- only"
	[[ ${SSH:-ssh} =~ ^[A-Za-z0-9._/+-]+$ && ${RSYNC:-rsync} =~ ^[A-Za-z0-9._/+-]+$ ]] ||
		die_usage "SSH, RSYNC: a command's name or path"
	[ -z "${SSH_TIMEOUT:-}" ] || [[ $SSH_TIMEOUT =~ ^[1-9][0-9]*$ ]] || die_usage "SSH_TIMEOUT=$SSH_TIMEOUT: seconds"
}
