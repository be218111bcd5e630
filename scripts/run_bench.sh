#!/bin/bash
# scripts/run_bench.sh: two-node orchestration of the suite from either node's
# shell (or a login node): starts the tools on the nodes through ssh or a
# cluster launcher, saves every tool's JSON per run and prints a summary table
# from the saved JSON. Run with --help for the modes and the environment.
set -u
prog=run_bench.sh
# shellcheck source=bench_lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/bench_lib.sh" || exit 1
# shellcheck source=bench_results.sh source-path=SCRIPTDIR
. "$(dirname "$0")/bench_results.sh" || exit 1
# shellcheck source=bench_upper.sh source-path=SCRIPTDIR
. "$(dirname "$0")/bench_upper.sh" || exit 1
# shellcheck source=bench_tcp.sh source-path=SCRIPTDIR
. "$(dirname "$0")/bench_tcp.sh" || exit 1
# shellcheck source=bench_xfer.sh source-path=SCRIPTDIR
. "$(dirname "$0")/bench_xfer.sh" || exit 1
# shellcheck source=bench_node.sh source-path=SCRIPTDIR
. "$(dirname "$0")/bench_node.sh" || exit 1
# shellcheck source=bench_transfer.sh source-path=SCRIPTDIR
. "$(dirname "$0")/bench_transfer.sh" || exit 1

# The modes, one list: the dispatch, --help's usage line and --options-table (what the
# bash completion offers, completions/run_bench.sh) all read it.
MODES=(aggregate local baseline ladder tcp nfs rsync transfer)
is_mode() {
	local m
	for m in "${MODES[@]}"; do [ "$1" = "$m" ] && return 0; done
	return 1
}
# modes_said [LAST...]: the modes and LAST as a sentence's list ("a, b or c").
modes_said() {
	local s
	s=$(printf '%s, ' "${MODES[@]}" "$@")
	s=${s%, }
	printf '%s or %s' "${s%, *}" "${s##*, }"
}
# options_table: what the command line takes, one line per option, verb and argument, in
# the format of nbw-results --options-table (completions/nbw-results explains it).
options_table() {
	echo "- --help none -h -"
	printf -- '- %s verb - -\n' "${MODES[@]}"
	printf -- '- summary verb - -\nsummary - positional - dir\n'
	printf -- '- check verb - -\ncheck - positional - - %s\n' "$(IFS=,; echo "${MODES[*]}")"
}

usage() {
	printf 'Usage: run_bench.sh %s   (settings from the environment)\n' "$(IFS='|'; echo "${MODES[*]}")"
	cat <<'EOF'
       run_bench.sh summary RUN_DIR              print the table of a saved run
       run_bench.sh check MODE                   check the settings for MODE, run nothing

Modes:
  aggregate  every drive of both nodes into the sink's DRAM: nvme_write_bw_remote
             on SINK_NODE as the sink (reading its own drives meanwhile), then on
             SRC_NODE as the source, connecting to SINK_ADDR; with BIDIR=1 both
             directions at once (--bidir on both nodes, each naming the other);
             with SRC_NODES several sources at once (the sink's --sources N)
  local      nvme_read_bw on each node alone (SINK_NODE first, then SRC_NODE)
  baseline   nvme_read_bw --baseline on each node: one drive at a time, then all
  ladder     the whole ladder, each rung against its ceiling: on both nodes the link
             probe (probe-NODE.json), --baseline (baseline-NODE.json) and the staging
             memory (memory-NODE.json: nvme_read_bw --memory, same -t -s); TCP (as
             mode tcp); the fabric from memory (fabric-NODE.json: the source's --source mem with THREADS QPs
             per source drive, same -s, -t, -d, -p as end to end) and perftest's
             ib_write_bw beside it when both nodes have it (ib_write_bw-NODE.txt, port
             PORT+1); NFS over RDMA and TCP (as mode nfs); rsync (as mode rsync);
             then aggregate. Prints the
             ladder (scripts/ladder_report) and one sentence naming the binding rung;
             writes ladder.json, ladder.txt and, with gnuplot, ladder.png; last, with
             TRANSFER_CMD set, the transfer rung (as mode transfer) and the sentences
             of why: which rung binds it, ssh's cipher, rsync's protocol, copy vs
             zero-copy, a sender-side deficit, its gap to the wire
  tcp        iperf3 from SRC_NODE to SINK_ADDR, once per TCP_STREAMS (-P 1, then -P 8),
             zero-copy (-Z), JSON (tcpN-NODE.json from both ends); at the largest
             TCP_STREAMS a copy without -Z (tcpcopyN-) and the reverse, sink to source
             (-R, tcprevN-); one stream from a TCP_FILE_SIZE file in the source's
             /dev/shm (-F, tcpfile-). Pinned (-A) to the CPUs of the NUMA node of the
             NIC that carries SINK_ADDR; an iperf3 older than 3.16 (one thread for all
             -P streams) runs N streams as N processes of one stream (ports from
             TCP_PORT; tcpN.pK-NODE.json), summed. The NIC evidence: nic-NODE.txt
             (netdev, NUMA, MTU, link speed, ethtool -a, PFC), ethtool -S before and
             after each rung (nic/), one 9000-byte path-MTU probe (pmtu-NODE.txt);
             the sink's socket buffer limits (tcp-sysctl-NODE.txt); the ladder's TCP
             rungs
  nfs        SINK_NODE exports a tmpfs holding a file of NFS_SIZE (kernel NFS server,
             read-write: only that tmpfs is written; NFS/RDMA on NFS_RDMA_PORT);
             SRC_NODE mounts it over RDMA and over TCP and reads the file with
             nvme_read_bw (O_DIRECT): 1 MiB sequential (nfs_rdma-NODE.json,
             nfs_tcp-NODE.json); writes into it NFS_JOBS writers of NFS_BS blocks
             (fio --direct=1, else dd oflag=direct; nfs_write_PROTO-NODE.txt, the
             files removed after); then 4 KiB random at
             each of NFS_DEPTHS (nfs_PROTO_randD-NODE.json; needs nvme_read_bw
             --pattern); the mounts' options (nfs-mounts-NODE.txt). Everything set up
             is undone at the end and on failure; no drive is touched
  rsync      an rsync daemon on SINK_NODE (bound to SINK_ADDR, hosts allow = the
             source's address, use chroot = no, config and module in a tmpfs) fed
             RSYNC_FILES files of RSYNC_FILE_SIZE from a tmpfs on SRC_NODE by 1, then
             8 rsync processes (rsync_d1-NODE.*, rsync_d8-NODE.*); then ssh's
             one-stream ceiling (the files through cat into SSH SINK_ADDR 'cat
             >/dev/null', its cipher from ssh -v: ssh_ceiling-NODE.txt) and one
             rsync through ssh (rsync_ssh-NODE.*); bytes over seconds, CPU per GiB of
             both ends (the daemon's; not the sink's under ssh). Everything is
             removed at the end, on failure and on a signal; no drive is touched
  transfer   your own transfer: TRANSFER_CMD under sh on SRC_NODE, timed there
             (transfer-NODE.json: GB/s, seconds, exit status); a command that fails
             gives its exit status and stderr's last line, never a figure

Environment (defaults in brackets):
  SINK_NODE, SRC_NODE  the two nodes (required; local and baseline: NODES instead)
  NODES                local, baseline: the nodes to run on [SINK_NODE SRC_NODE]
  SINK_ADDR            the address the source connects to [SINK_NODE]
  BIDIR [0]            aggregate: 1 = both directions at once: nvme_write_bw_remote
                       --bidir on SINK_NODE (its drives SINK_DISKS, PEER SRC_ADDR) and on
                       SRC_NODE (SRC_DISKS, PEER SINK_ADDR); each node's JSON has send,
                       receive and their sum
  SRC_ADDR             BIDIR=1: the address SINK_NODE connects to [SRC_NODE]
  SRC_NODES            aggregate: the sources, space-separated (fan-in: the sink takes
                       them all at once with --sources N, each a row of its own; all
                       read SRC_DISKS) [SRC_NODE]; SRC_NODE may then be left unset
  DURATION [20]  WARMUP [3]  THREADS [12]  CHUNK [1M]    the tools' -D --warmup --threads -s
  TX_DEPTH             nvme_write_bw_remote's -t (WRITEs in flight per QP) [the tool's 4]
  LADDER_SIZE [900x500]  ladder: the size of ladder.png
  IB_WRITE_BW [ib_write_bw]  ladder: perftest's binary on the nodes (none = skip it)
  IPERF3 [iperf3]      tcp, ladder: iperf3 on the nodes (none = skip the TCP rung)
  TCP_STREAMS ["1 8"]  tcp, ladder: iperf3's -P, one run each
  TCP_PORT [PORT+2]    tcp, ladder: iperf3's port (-p; N processes: N ports from it)
  TCP_FILE_SIZE [1G]   tcp, ladder: the source's /dev/shm file of the sendfile rung
  ETHTOOL [ethtool]    tcp, ladder: the NIC evidence (none = not read)
  PING [ping]          tcp, ladder: the path-MTU probe (none = not sent)
  EXPORTFS [exportfs]  nfs, ladder: the sink's exportfs (package nfs-kernel-server;
                       none = skip the NFS rungs); the source needs mount.nfs
  NFS_SIZE [1G]        nfs, ladder: the file in the sink's tmpfs (DRAM)
  NFS_VERS [3]         nfs, ladder: the mounts' vers=
  NFS_RDMA_PORT [20049]  nfs, ladder: the server's NFS/RDMA port (portlist)
  NFS_DEPTHS ["8 16 32"]  nfs, ladder: io_uring depths of the random 4 KiB reads
  NFS_BS [1M]  NFS_JOBS [4]  nfs, ladder: the writes' block size and writers
                       (NFS_SIZE over all writers)
  RSYNC [rsync]        rsync, ladder: rsync on the nodes (none = skip the rsync rungs)
  RSYNC_FILES [64]  RSYNC_FILE_SIZE [16M]   rsync, ladder: the files sent
  RSYNC_PORT [PORT+3]  rsync, ladder: the daemon's port
  SSH [ssh]  SSH_OPTS  SSH_TIMEOUT [10]   rsync, ladder: the ssh client on the source
                       (none = skip the ssh rung), extra options (always -o
                       BatchMode=yes -o ConnectTimeout=SSH_TIMEOUT)
  TRANSFER_CMD         transfer, ladder: a shell command run on SRC_NODE, "{sink}" in
                       it replaced by SINK_ADDR (e.g. "rsync -a --stats /data/
                       {sink}:/restore/"); unset = no transfer rung
  TRANSFER_BYTES       transfer, ladder: the bytes it moves (a size: 64M, 2500G)
                       [what its rsync --stats output says it transferred]
  TRANSFER_TIMEOUT [1h]  transfer, ladder: its time limit (exit 124 past it)
  RDMA_DEV             -d of both sides [every ACTIVE port]
  PORT [18515]         -p of both sides
  DRAM                 the sink's --dram [the tool's 16G]
  VERIFY               canary|full|off on both sides [canary]
  SINK_DISKS, SRC_DISKS   --local-disks / --disks of that node (comma list; local
                       and baseline: --disks) [every NVMe namespace]
  NET_TIMEOUT [10]     the tools' --timeout     SINK_WAIT [60]  the sink's --wait
  SINK_READY_TIMEOUT [60]  seconds for the sink to say it listens
  READ_ARGS, SINK_ARGS, SRC_ARGS   extra arguments of nvme_read_bw, the sink, the
                       source (split on white space)
  TOOL_DIR             directory of the tools on the nodes [found on their PATH]
  RESULTS_DIR [results]  RUN_NAME [UTC timestamp]: results in RESULTS_DIR/RUN_NAME/
                       as <mode>-<node>.json (stdout of the tool), <mode>-<node>.log
                       (its stderr), run.json (the settings), summary.txt (ladder:
                       ladder.json, ladder.txt, ladder.png)
  CMD_TIMEOUT          bound on each remote command, seconds [from the windows]
  LAUNCHER             how a command reaches a node: run as  LAUNCHER... HOST CMD...
                       (LAUNCHER split on white space) [ssh -o BatchMode=yes -o
                       ConnectTimeout=10]; e.g. "srun -N1 -n1 -w", "pdsh -S -N -w",
                       "kubectl exec -i" (HOST = a pod's name; run as
                       kubectl exec -i [-n NS] [-c CONTAINER] POD -- CMD...)
  KUBECTL_NAMESPACE, KUBECTL_CONTAINER   kubectl (and oc) launchers: the pods'
                       namespace (-n) and container (-c) [kubectl's defaults]
  LAUNCHER_QUOTE       auto|yes|no: yes = the launcher joins CMD into one shell
                       command line (ssh, pdsh), so each word is shell-quoted; no =
                       it passes argv unchanged (srun, kubectl exec); auto = yes for
                       ssh, pdsh, rsh
  A node named localhost or this machine's host name runs without the launcher.
  RESULTS              the record every run goes into (nbw-results(1): compare, trend,
                       check, report) with each node's inventory (taken through the
                       LAUNCHER into RUN_DIR/inventory/NODE.json) [$NBW_RESULTS, else
                       $XDG_DATA_HOME/nbw-results, ~/.local/share/nbw-results]; none =
                       no record, no inventory
  NOTE                 a note recorded with the run (e.g. "new NIC firmware")
  CHANGE_STARTS [0]    1 = a known change starts with this run (trends restart here)

Exit status: 0 ok; 1 a side failed (message names it); 2 usage; 130/143 interrupted.
EOF
}

# --- settings ----------------------------------------------------------------

# Seconds (rounded up) of a tool duration: 20, 1.5, 500ms, 20s, 2m, 1h.
duration_s() {
	local v=$1 n unit
	[[ $v =~ ^([0-9]+(\.[0-9]+)?)(ms|s|m|h)?$ ]] || return 1
	n=${BASH_REMATCH[1]} unit=${BASH_REMATCH[3]}
	awk -v n="$n" -v u="$unit" 'BEGIN {
		m = u == "ms" ? 0.001 : u == "m" ? 60 : u == "h" ? 3600 : 1
		s = n * m; printf "%d\n", (s == int(s)) ? s : int(s) + 1 }'
}

check_settings() {
	local v n
	: "${DURATION:=20}" "${WARMUP:=3}" "${THREADS:=12}" "${CHUNK:=1M}" "${PORT:=18515}"
	: "${NET_TIMEOUT:=10}" "${SINK_WAIT:=60}" "${RESULTS_DIR:=results}"
		for v in DURATION WARMUP NET_TIMEOUT SINK_WAIT; do
		duration_s "${!v}" >/dev/null || die_usage "$v=${!v}: not a duration (e.g. 20, 500ms, 2m)"
	done
	[[ $THREADS =~ ^[1-9][0-9]*$ ]] || die_usage "THREADS=$THREADS: not a positive integer"
	[[ $PORT =~ ^[1-9][0-9]*$ ]] && [ "$PORT" -le 65535 ] || die_usage "PORT=$PORT: not a port"
	shopt -s nocasematch
	[[ $CHUNK =~ ^[1-9][0-9]*([kmgt](i?b)?)?$ ]] || die_usage "CHUNK=$CHUNK: not a size (e.g. 1M, 512K)"
	[ -z "${DRAM:-}" ] || [[ $DRAM =~ ^[1-9][0-9]*([kmgt](i?b)?)?$ ]] || die_usage "DRAM=$DRAM: not a size"
	shopt -u nocasematch
	case ${VERIFY:-} in '' | canary | full | off) ;; *) die_usage "VERIFY=$VERIFY: canary, full or off" ;; esac
	case ${BIDIR:=0} in 0 | 1) ;; *) die_usage "BIDIR=$BIDIR: 0 or 1" ;; esac
	[ -z "${TX_DEPTH:-}" ] || [[ $TX_DEPTH =~ ^[1-9][0-9]*$ ]] || die_usage "TX_DEPTH=$TX_DEPTH: not a positive integer"
	[ -n "${CMD_TIMEOUT:-}" ] && ! [[ $CMD_TIMEOUT =~ ^[1-9][0-9]*$ ]] &&
		die_usage "CMD_TIMEOUT=$CMD_TIMEOUT: not a number of seconds"
	[[ ${SINK_READY_TIMEOUT:=60} =~ ^[1-9][0-9]*$ ]] ||
		die_usage "SINK_READY_TIMEOUT=$SINK_READY_TIMEOUT: not a number of seconds"
	# The launcher's rule is nbw.launcher's (nbw-fleet's too): LAUNCHER_QUOTE, kubectl.
	launcher_prog=$(launcher_py check 2>&1) || die_usage "$launcher_prog"
	window_s=$(($(duration_s "$WARMUP") + $(duration_s "$DURATION")))
	net_s=$(duration_s "$NET_TIMEOUT")
	# A name or address is never a word a tool or the launcher reads as an option.
	for n in "${nodes[@]}" ${SINK_ADDR:+"$SINK_ADDR"} ${SRC_ADDR:+"$SRC_ADDR"}; do
		[[ $n =~ ^[A-Za-z0-9._:@%-]+$ && $n != -* && $n != . && $n != .. ]] ||
			die_usage "node name or address '$n': letters, digits and ._:@%- only, not starting with -, not . or .."
	done
}

# --- stopping (a command on a node: bench_node.sh) ---------------------------

# Ctrl-C, SIGTERM, SIGHUP: stop every command of this run on every node.
# shellcheck disable=SC2317 # run by the traps
on_signal() {
	local code=$1 e pid node tag
	trap '' INT TERM HUP
	say "interrupted: stopping the commands of this run"
	for e in "${started[@]}"; do
		read -r pid node tag <<<"$e"
		kill -TERM "$pid" 2>/dev/null
		stop_on_node "$node" "$tag" &
	done
	wait
	nfs_teardown
	tcp_teardown
	xfer_teardown
	exit "$code"
}

# --- the modes ---------------------------------------------------------------

tool() { printf '%s' "${TOOL_DIR:+$TOOL_DIR/}$1"; }

# Why a command failed: its status and the last line of its stderr.
failure() { # failure WHAT RC ERRFILE
	local last
	last=$(grep -v '^[[:space:]]*$' "$3" 2>/dev/null | tail -n1)
	case $2 in
	124) say "$1: no result within its time limit (exit 124)${last:+: $last}" ;;
	*) say "$1 failed (exit $2)${last:+: $last}" ;;
	esac
}

read_args() { # the nvme_read_bw command line for node $1 (role disks in $2, the step $3)
	local extra
	read -ra extra <<<"${READ_ARGS:-}"
	cmd=("$(tool nvme_read_bw)" -t "$THREADS" -s "$CHUNK" --warmup "$WARMUP" -D "$DURATION"
		${2:+--disks "$2"} "${extra[@]}")
	case ${3:-$mode} in baseline | ladder) cmd+=(--baseline) ;; memory) cmd+=(--memory) ;; esac
	cmd+=(--json)
}

disks_of() { # the DISKS setting of a node by its role
	if [ "$1" = "${SINK_NODE:-}" ]; then printf '%s' "${SINK_DISKS:-}"
	elif [ "$1" = "${SRC_NODE:-}" ]; then printf '%s' "${SRC_DISKS:-}"; fi
}

run_read_mode() { # [NAME]: the files' and commands' name [the mode]
	local node limit rc fails=0 d n name=${1:-$mode}
	for node in "${nodes[@]}"; do
		d=$(disks_of "$node")
		read_args "$node" "$d" "$name"
		limit=$((window_s + 120))
		if [ "$name" = baseline ]; then
			n=16
			[ -n "$d" ] && n=$(($(tr -cd , <<<"$d" | wc -c) + 1))
			limit=$((window_s * (n + 1) + 120))
		fi
		limit=${CMD_TIMEOUT:-$limit}
		say "$name on $node: ${cmd[*]}"
		start_bg "$run_dir/$name-$node.json" "$run_dir/$name-$node.log" "$node" "$limit" "$name" "${cmd[@]}"
		wait "$bg_pid"
		rc=$?
		started=()
		if [ "$rc" != 0 ]; then
			failure "$name on $node" "$rc" "$run_dir/$name-$node.log"
			fails=$((fails + 1))
		fi
	done
	[ "$fails" = 0 ]
}

# client_tries WHAT OUT LOG LIMIT TAG SRV_PID CMD...: a client on SRC_NODE, tried again
# (up to 10 times, a second apart) while it fails and its server SRV_PID still runs: it
# may have come before the server listened. Returns the last try's exit status.
client_tries() {
	local what=$1 out=$2 log=$3 limit=$4 tag=$5 srv=$6 try rc
	shift 6
	for try in 1 2 3 4 5 6 7 8 9 10; do
		sleep 1
		say "$what on $SRC_NODE (try $try): $*"
		start_bg "$out" "$log" "$SRC_NODE" "$limit" "$tag$try" "$@"
		wait "$bg_pid"
		rc=$?
		[ "$rc" != 0 ] && kill -0 "$srv" 2>/dev/null || break
	done
	return "$rc"
}

sink_listens() { grep -Eq 'waiting for (a source|the sources)' "$1" 2>/dev/null; }

run_aggregate() {
	local extra sink=() src=() common=()
	common=(-p "$PORT" --threads "$THREADS" -s "$CHUNK" --warmup "$WARMUP" -D "$DURATION"
		--timeout "$NET_TIMEOUT" ${RDMA_DEV:+-d "$RDMA_DEV"} ${TX_DEPTH:+--tx-depth "$TX_DEPTH"})
	case ${VERIFY:-} in off) common+=(--no-verify) ;; ?*) common+=(--verify "$VERIFY") ;; esac
	if [ "$BIDIR" = 1 ]; then
		# Both at once: each node a sink (no drives of its own) and a source.
		common+=(--bidir --wait "$SINK_WAIT" ${DRAM:+--dram "$DRAM"})
		read -ra extra <<<"${SINK_ARGS:-}"
		sink=("$(tool nvme_write_bw_remote)" "${common[@]}" ${SINK_DISKS:+--disks "$SINK_DISKS"}
			"${extra[@]}" --json -- "${SRC_ADDR:-$SRC_NODE}")
		read -ra extra <<<"${SRC_ARGS:-}"
		src=("$(tool nvme_write_bw_remote)" "${common[@]}" ${SRC_DISKS:+--disks "$SRC_DISKS"}
			"${extra[@]}" --json -- "${SINK_ADDR:-$SINK_NODE}")
		run_pair aggregate
		return
	fi
	read -ra extra <<<"${SINK_ARGS:-}"
	sink=("$(tool nvme_write_bw_remote)" "${common[@]}" --wait "$SINK_WAIT" ${DRAM:+--dram "$DRAM"}
		${SINK_DISKS:+--local-disks "$SINK_DISKS"} "${extra[@]}" --json)
	[ "${#src_nodes[@]}" = 1 ] || sink=("${sink[@]:0:${#sink[@]}-1}" --sources "${#src_nodes[@]}" --json)
	read -ra extra <<<"${SRC_ARGS:-}"
	src=("$(tool nvme_write_bw_remote)" "${common[@]}" ${SRC_DISKS:+--disks "$SRC_DISKS"}
		"${extra[@]}" --json -- "${SINK_ADDR:-$SINK_NODE}")
	run_pair aggregate
}

# start_source NAME NODE LIMIT: one more try of the source (array src) on NODE.
declare -A src_pid=() src_try=()
start_source() {
	local pfx=
	[ "$1" = aggregate ] || pfx="$1: "
	src_try[$2]=$((${src_try[$2]:-0} + 1))
	say "${pfx}source on $2 (try ${src_try[$2]}): ${src[*]}"
	start_bg "$run_dir/$1-$2.json" "$run_dir/$1-$2.try.log" "$2" "$3" "$1-source${src_try[$2]}" "${src[@]}"
	src_pid[$2]=$bg_pid
}

# run_sources NAME SINK_PID: the source on every node of src_nodes at once, each
# tried again (up to 5 times) while the sink runs and its connection was
# refused; src_rc: the first failure's exit status, 0 if none.
run_sources() {
	local name=$1 node rc limit pfx='' log
	[ "$name" = aggregate ] || pfx="$name: "
	limit=${CMD_TIMEOUT:-$((window_s + 2 * net_s + 120))}
	src_rc=0 src_pid=() src_try=()
	for node in "${src_nodes[@]}"; do start_source "$name" "$node" "$limit"; done
	while [ "${#src_pid[@]}" -gt 0 ]; do
		sleep 0.5
		for node in "${!src_pid[@]}"; do
			! kill -0 "${src_pid[$node]}" 2>/dev/null || continue
			wait "${src_pid[$node]}"
			rc=$?
			unset "src_pid[$node]"
			log=$run_dir/$name-$node.log
			cat "$run_dir/$name-$node.try.log" >>"$log"
			rm -f "$run_dir/$name-$node.try.log"
			if [ "$rc" = 1 ] && [ "${src_try[$node]}" -lt 5 ] && kill -0 "$2" 2>/dev/null &&
				tail -n3 "$log" | grep -Eqi 'port [0-9]+: .*(refused|unreachable|no route|timed out)'; then
				sleep 2
				start_source "$name" "$node" "$limit"
			elif [ "$rc" != 0 ]; then
				failure "${pfx}source on $node" "$rc" "$log"
				[ "$src_rc" != 0 ] || src_rc=$rc
			fi
		done
	done
}

# run_pair NAME: the sink (array sink) on SINK_NODE, then the source (array src)
# on every node of src_nodes once the sink listens; their JSON and logs as
# NAME-NODE.*.
run_pair() {
	local sink_pid sink_rc limit deadline name=$1
	local sj=$run_dir/$name-$SINK_NODE.json sl=$run_dir/$name-$SINK_NODE.log pfx=
	[ "$name" = aggregate ] || pfx="$name: "

	# The sink first; the source once the sink says it listens.
	limit=${CMD_TIMEOUT:-$(($(duration_s "$SINK_WAIT") + window_s + 2 * net_s + 120))}
	say "${pfx}sink on $SINK_NODE: ${sink[*]}"
	start_bg "$sj" "$sl" "$SINK_NODE" "$limit" "$name-sink" "${sink[@]}"
	sink_pid=$bg_pid
	deadline=$((SECONDS + SINK_READY_TIMEOUT))
	until sink_listens "$sl"; do
		if ! kill -0 "$sink_pid" 2>/dev/null; then
			wait "$sink_pid"
			failure "${pfx}sink on $SINK_NODE" "$?" "$sl"
			return 1
		fi
		if [ "$SECONDS" -ge "$deadline" ]; then
			say "${pfx}sink on $SINK_NODE: not listening after $SINK_READY_TIMEOUT s (log: $sl)"
			kill -TERM "$sink_pid" 2>/dev/null
			stop_on_node "$SINK_NODE" "$name-sink"
			wait "$sink_pid"
			return 1
		fi
		sleep 0.5
	done

	run_sources "$name" "$sink_pid"
	if [ "$src_rc" != 0 ]; then
		# A sink whose source is gone ends within 2 x --timeout; one that never
		# saw it would wait for --wait: stop it.
		deadline=$((SECONDS + 2 * net_s + 10))
		while kill -0 "$sink_pid" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.5; done
		if kill -0 "$sink_pid" 2>/dev/null; then
			say "${pfx}sink on $SINK_NODE: stopping it (its source failed)"
			kill -TERM "$sink_pid" 2>/dev/null
			stop_on_node "$SINK_NODE" "$name-sink"
		fi
	fi
	wait "$sink_pid"
	sink_rc=$?
	started=()
	[ "$sink_rc" = 0 ] || failure "${pfx}sink on $SINK_NODE" "$sink_rc" "$sl"
	[ "$sink_rc" = 0 ] && [ "$src_rc" = 0 ]
}

# --- the ladder ----------------------------------------------------------------

# Bytes of a size setting (1M = 1MiB = 2^20, 1MB = 10^6), for perftest's -s.
size_bytes() {
	awk -v v="$1" 'BEGIN { v = tolower(v); n = v + 0; u = substr(v, length(n "") + 1)
		k = substr(u, 1, 1); e = index("kmgt", k); if (k == "") e = 0
		printf "%d\n", n * (u ~ /^[kmgt]b$/ ? 10 ^ (3 * e) : 2 ^ (10 * e)) }'
}

# The link probe on every node: probe-NODE.json (exit 3, an expectation not
# met, still gives the audit).
run_probes() {
	local node rc fails=0
	for node in "${nodes[@]}"; do
		say "probe on $node: $(tool nvme_link_probe) --json --topology"
		start_bg "$run_dir/probe-$node.json" "$run_dir/probe-$node.log" "$node" \
			"${CMD_TIMEOUT:-60}" probe "$(tool nvme_link_probe)" --json --topology
		wait "$bg_pid"
		rc=$?
		started=()
		case $rc in 0 | 3) ;; *) failure "probe on $node" "$rc" "$run_dir/probe-$node.log"; fails=$((fails + 1)) ;; esac
	done
	[ "$fails" = 0 ]
}

# The fabric alone: the sink RDMA only, the source sending from memory with
# the QPs the end-to-end run uses (THREADS per source drive), same -s, -t, ports.
run_fabric() { # run_fabric QPS
	local extra sink=() src=() common=()
	common=(-p "$PORT" -s "$CHUNK" --warmup "$WARMUP" -D "$DURATION" --timeout "$NET_TIMEOUT"
		${RDMA_DEV:+-d "$RDMA_DEV"} ${TX_DEPTH:+--tx-depth "$TX_DEPTH"})
	case ${VERIFY:-} in off) common+=(--no-verify) ;; ?*) common+=(--verify "$VERIFY") ;; esac
	read -ra extra <<<"${SINK_ARGS:-}"
	sink=("$(tool nvme_write_bw_remote)" "${common[@]}" --no-local --wait "$SINK_WAIT"
		${DRAM:+--dram "$DRAM"} "${extra[@]}" --json)
	read -ra extra <<<"${SRC_ARGS:-}"
	src=("$(tool nvme_write_bw_remote)" "${common[@]}" --source mem -q "$1" "${extra[@]}"
		--json -- "${SINK_ADDR:-$SINK_NODE}")
	run_pair fabric
}

# perftest's ib_write_bw beside it, when both nodes have it: the server on the
# sink, the client (retried until the server listens) on the source, same -s
# -q -t -D, on PORT + 1. Its output: ib_write_bw-NODE.txt. Never fatal.
run_ib_write_bw() { # run_ib_write_bw QPS
	local node run_cmd args=() dev srv_pid rc limit out=$run_dir/ib_write_bw ib=${IB_WRITE_BW:-ib_write_bw}
	[ "$ib" = none ] && { say "IB_WRITE_BW=none: the perftest anchor is skipped"; return 0; }
	for node in "$SINK_NODE" "$SRC_NODE"; do
		node_cmd "$node" 30 "have-ib" sh -c 'command -v "$1"' sh "$ib"
		"${run_cmd[@]}" </dev/null >/dev/null 2>&1 ||
			{ say "$ib is not installed on $node: the perftest anchor is skipped"; return 0; }
	done
	if [ -n "${RDMA_DEV:-}" ]; then
		dev=${RDMA_DEV%%,*}
		args=(-d "${dev%%:*}")
		[[ $dev == *:* ]] && args+=(-i "${dev#*:}")
	fi
	args+=(-p $((PORT + 1)) -s "$(size_bytes "$CHUNK")" -q "$1" -t "${TX_DEPTH:-4}"
		-D "$(duration_s "$DURATION")" --report_gbits)
	# The same ACK timeout as nvme_write_bw_remote's (like with like; the lab sets it).
	[ -n "${NBW_QP_TIMEOUT:-}" ] && args+=(-u "$NBW_QP_TIMEOUT")
	limit=${CMD_TIMEOUT:-$((window_s + 2 * net_s + 60))}
	say "ib_write_bw server on $SINK_NODE: $ib ${args[*]}"
	start_bg "$out-$SINK_NODE.txt" "$out-$SINK_NODE.log" "$SINK_NODE" "$limit" ib-server "$ib" "${args[@]}"
	srv_pid=$bg_pid
	client_tries "ib_write_bw client" "$out-$SRC_NODE.txt" "$out-$SRC_NODE.log" "$limit" \
		ib-client "$srv_pid" "$ib" "${args[@]}" "${SINK_ADDR:-$SINK_NODE}"
	rc=$?
	if [ "$rc" != 0 ]; then
		failure "ib_write_bw client on $SRC_NODE" "$rc" "$out-$SRC_NODE.log"
		kill -TERM "$srv_pid" 2>/dev/null
		stop_on_node "$SINK_NODE" ib-server
	fi
	wait "$srv_pid"
	started=()
	[ "$rc" != 0 ] || ib_beside_fabric "$out-$SRC_NODE.txt" "$run_dir/fabric-$SRC_NODE.json"
	return 0
}

# ib_beside_fabric IB_TXT FABRIC_JSON: perftest's figure beside the fabric rung's (the
# source's --source mem: same device, -s, QPs and depth) and their ratio, in ib_line
# (said now, and again under the ladder); nothing when either has no figure.
ib_line=
ib_beside_fabric() {
	local ib fab
	# --report_gbits: the line under the header, its 4th column is the average in Gb/s.
	ib=$(awk '/#bytes/ && /BW average/ { getline; print $4; exit }' "$1" 2>/dev/null)
	fab=$(nbw_py benchremote value "$2" rdma.gb_per_s 2>/dev/null)
	[[ $ib =~ ^[0-9.]+$ && $fab =~ ^[0-9.eE+-]+$ ]] || return 0
	ib_line=$(awk -v ib="$ib" -v fab="$fab" -v n="$SRC_NODE" 'BEGIN {
		printf "fabric rung beside ib_write_bw on %s: nvme_write_bw_remote %.4f GB/s, ", n, fab
		r = ib > 0 ? sprintf("%.2f", fab / (ib / 8)) : "- (ib_write_bw measured 0)"
		printf "ib_write_bw %.4f GB/s (%s Gb/s): ratio %s (ours / ib_write_bw)", ib / 8, ib, r }')
	say "$ib_line"
}

# The QPs of the end-to-end source: THREADS per drive of the source node (its
# drive count from its --baseline JSON, else SRC_DISKS, else 1).
source_qps() {
	local n
	n=$(nbw_py summary drive-count "$run_dir/baseline-$SRC_NODE.json" 2>/dev/null) ||
		n=$([ -n "${SRC_DISKS:-}" ] && echo $(($(tr -cd , <<<"$SRC_DISKS" | wc -c) + 1)) || echo 1)
	echo $((THREADS * (n > 0 ? n : 1)))
}

run_ladder() {
	local fails=0 qps
	say "ladder 1/7: the PCIe links"
	run_probes || fails=$((fails + 1))
	say "ladder 2/7: each drive alone, then all together"
	run_read_mode baseline || fails=$((fails + 1))
	say "ladder 3/7: the staging memory (each byte written once, read once)"
	run_read_mode memory || fails=$((fails + 1))
	say "ladder 4/7: TCP, ${TCP_STREAMS:-1 8} streams"
	run_tcp || fails=$((fails + 1))
	qps=$(source_qps)
	say "ladder 5/7: the fabric from memory, $qps QPs"
	run_fabric "$qps" || fails=$((fails + 1))
	run_ib_write_bw "$qps"
	say "ladder 6/7: NFS over RDMA and over TCP"
	run_nfs || fails=$((fails + 1))
	say "ladder 6/7: rsync to a daemon and over ssh"
	run_rsync || fails=$((fails + 1))
	say "ladder 7/7: end to end"
	run_aggregate || fails=$((fails + 1))
	[ -z "${TRANSFER_CMD:-}" ] || { say "ladder, last: your transfer (TRANSFER_CMD)"; run_transfer; } ||
		fails=$((fails + 1))
	[ "$fails" = 0 ]
}

ladder_report() { # ladder_report RUN_DIR [--no-write]: the table and the binding rung
	local lr png=()
	lr=$(dirname "$0")/ladder_report
	if [ "${2:-}" != --no-write ]; then
		if command -v "${GNUPLOT:-gnuplot}" >/dev/null; then
			png=(--png "$1/ladder.png" --size "${LADDER_SIZE:-900x500}")
		else
			say "gnuplot is not installed: no ladder.png (apt-get install gnuplot-nox)"
		fi
	fi
	"${PYTHON3:-python3}" "$lr" "${png[@]}" ${2:+"$2"} "$1"
}

# --- the summary, from the saved JSON ----------------------------------------

summary() { nbw_py summary table "$1"; }

write_run_json() { nbw_py summary run-json "$run_dir/run.json" "$mode" "$1" "${nodes[@]}"; }

# --- main --------------------------------------------------------------------

case ${1:-} in
-h | --help) usage; exit 0 ;;
--options-table) options_table; exit 0 ;;
summary)
	[ $# = 2 ] || die_usage "summary: one argument, the run directory"
	[ -d "$2" ] || die_usage "summary: $2: not a directory"
	if grep -Eqs '"mode": "(ladder|tcp|nfs|rsync|transfer)"' "$2/run.json"; then
		ladder_report "$2" --no-write
	else
		summary "$2"
	fi
	exit
	;;
check)
	is_mode "${2:-}" || die_usage "check: which mode? $(modes_said)"
	[ $# = 2 ] || die_usage "check takes one mode"
	check_only=1 mode=$2
	shift
	;;
'') die_usage "no mode: $(modes_said summary check) (--help)" ;;
*)
	is_mode "$1" || die_usage "unknown mode '$1': $(modes_said summary check) (--help)"
	mode=$1
	;;
esac
[ $# = 1 ] || die_usage "$mode takes no arguments; settings come from the environment (--help)"

if [ -n "${SRC_NODES:-}" ]; then
	[ "$mode" = aggregate ] || die_usage "SRC_NODES is for aggregate (not $mode)"
	read -ra src_nodes <<<"$SRC_NODES"
	[ "${#src_nodes[@]}" -gt 0 ] || die_usage "SRC_NODES names no node"
	SRC_NODE=${SRC_NODE:-${src_nodes[0]}}
	[ "$SRC_NODE" = "${src_nodes[0]}" ] ||
		die_usage "SRC_NODE=$SRC_NODE and SRC_NODES=\"$SRC_NODES\": set one of them"
	[ "$(printf '%s\n' "${src_nodes[@]}" | sort | uniq -d)" = "" ] ||
		die_usage "SRC_NODES names a node twice: $SRC_NODES"
	[ "${#src_nodes[@]}" -le 64 ] || die_usage "SRC_NODES: at most 64 sources"
	[ "${#src_nodes[@]}" = 1 ] || [ "${BIDIR:-0}" = 0 ] ||
		die_usage "BIDIR=1 takes one SRC_NODE, not SRC_NODES=\"$SRC_NODES\""
fi
case $mode in aggregate | ladder | tcp | nfs | rsync | transfer) two_nodes=1 ;; *) two_nodes= ;; esac
if [ -n "$two_nodes" ] || [ -z "${NODES:-}" ]; then
	[ -n "${SINK_NODE:-}" ] || die_usage "SINK_NODE is not set (the node whose DRAM receives)"
	[ -n "${SRC_NODE:-}" ] || die_usage "SRC_NODE is not set (the node that sends)"
	[ -n "${SRC_NODES:-}" ] || src_nodes=("$SRC_NODE")
	case " ${src_nodes[*]} " in *" $SINK_NODE "*)
		die_usage "SINK_NODE and SRC_NODE are the same node: $SINK_NODE" ;;
	esac
	nodes=("$SINK_NODE" "${src_nodes[@]}")
else
	read -ra nodes <<<"$NODES"
fi
export SINK_NODE SRC_NODE
command -v "${PYTHON3:-python3}" >/dev/null || { say "python3 is needed for the summary (apt-get install python3)"; exit 1; }
check_settings
check_upper_settings
check_xfer_settings
check_transfer_settings
[ "$BIDIR" = 0 ] || [ "$mode" = aggregate ] || die_usage "BIDIR=1 is for aggregate (not $mode)"
command -v "$launcher_prog" >/dev/null || { say "LAUNCHER: $launcher_prog: command not found"; exit 1; }
[ -z "${check_only:-}" ] || exit 0

run_dir=$(new_run_dir "$RESULTS_DIR") || exit 1
run_id=$(printf '%s.%s' "${run_dir##*/}" "$$" | tr -c 'A-Za-z0-9._-' _)

trap 'on_signal 130' INT
trap 'on_signal 143' TERM
trap 'on_signal 129' HUP

results_begin
if [ "$mode" = aggregate ]; then
	run_aggregate
elif [ "$mode" = ladder ]; then
	run_ladder
elif [ "$mode" = tcp ]; then
	run_tcp
elif [ "$mode" = nfs ]; then
	run_nfs
elif [ "$mode" = rsync ]; then
	run_rsync
elif [ "$mode" = transfer ]; then
	run_transfer
else
	run_read_mode
fi
rc=$?
[ "$rc" = 0 ] || rc=1
write_run_json "$rc"
if [ "$mode" = ladder ]; then
	ladder_report "$run_dir" || rc=1
	[ -z "$ib_line" ] || printf '%s\n' "$ib_line" | tee -a "$run_dir/ladder.txt"
elif [ "$mode" = tcp ] || [ "$mode" = nfs ] || [ "$mode" = rsync ] || [ "$mode" = transfer ]; then
	# ladder.json too: the rungs the record reads (a standalone tcp, nfs, rsync or transfer
	# run recorded as a ladder is)
	ladder_report "$run_dir" | tee "$run_dir/summary.txt"
else
	summary "$run_dir" | tee "$run_dir/summary.txt"
fi
results_record
[ "$rc" = 0 ] && say "$mode: done, results in $run_dir" || say "$mode: FAILED, results so far in $run_dir"
exit "$rc"
