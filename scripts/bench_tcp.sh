# scripts/bench_tcp.sh: the ladder's TCP rungs, sourced by run_bench.sh after
# bench_upper.sh (its have_on; run_bench.sh's failure, client_tries, settings;
# bench_node.sh's node_cmd, start_bg, stop_on_node; bench_lib.sh's say): iperf3
# from the source to the sink's address with each of TCP_STREAMS (zero-copy, -Z),
# then at the largest of them a copy (no -Z) and the reverse direction (-R), and
# one stream from a file in the source's tmpfs (-F, sendfile). Beside each: the
# NIC's counters (ethtool -S) on both ends before and after, and once the NICs
# that carry SINK_ADDR (their NUMA node and CPUs, MTU, link speed, pause and
# PFC state) and a path-MTU probe. iperf3 older than 3.16 serves all -P streams
# from one thread: more than one stream then runs as that many processes of one
# stream each (servers on consecutive ports), their figures summed by the report.
# run_bench.sh's variables used here: run_dir, run_id, bg_pid (start_bg's), started.
# shellcheck shell=bash disable=SC2154

# The receiving node's socket buffer limits, for the report's window hint.
tcp_sysctls() {
	local run_cmd
	node_cmd "$SINK_NODE" 30 sysctl sh -c \
		'echo "net.core.rmem_max = $(cat /proc/sys/net/core/rmem_max)";
		 echo "net.ipv4.tcp_rmem = $(cat /proc/sys/net/ipv4/tcp_rmem)"'
	"${run_cmd[@]}" </dev/null >"$run_dir/tcp-sysctl-$SINK_NODE.txt" 2>/dev/null
}

# --- the NICs: nic-NODE.txt, nic/TAG-NODE-before|after.txt, pmtu-NODE.txt ---------

# Run there with sh: nic_sh ROLE ADDR ETHTOOL. The netdev that carries ADDR (the
# sink: the one holding it; the source: the route to it), printed as key=value
# lines (if, numa, cpulist, mtu, speed in Mb/s, rdma = the RDMA device on it),
# then ethtool IF, ethtool -a IF and the PFC state (dcb, else mlnx_qos), each
# under a "--- " line; what is missing said as "absent: ...".
# shellcheck disable=SC2016
nic_sh='PATH=$PATH:/usr/sbin:/sbin
role=$1 addr=$2 et=$3
ip=$(getent ahosts "$addr" 2>/dev/null | awk "NR == 1 { print \$1 }")
[ -n "$ip" ] || ip=$addr
if [ "$role" = sink ]; then
	dev=$(ip -o addr show 2>/dev/null | awk -v a="$ip" "{ split(\$4, p, \"/\"); if (p[1] == a) { print \$2; exit } }")
else
	dev=$(ip -o route get "$ip" 2>/dev/null | sed -n "s/.* dev \([^ ]*\).*/\1/p" | head -n1)
fi
[ -n "$dev" ] && [ -e "/sys/class/net/$dev" ] || { echo "if="; exit 0; }
echo "if=$dev"
numa=$(cat "/sys/class/net/$dev/device/numa_node" 2>/dev/null)
echo "numa=$numa"
[ -n "$numa" ] && [ "$numa" -ge 0 ] 2>/dev/null && echo "cpulist=$(cat "/sys/devices/system/node/node$numa/cpulist" 2>/dev/null)"
echo "mtu=$(cat "/sys/class/net/$dev/mtu" 2>/dev/null)"
echo "speed=$(cat "/sys/class/net/$dev/speed" 2>/dev/null)"
r=$(ls "/sys/class/net/$dev/device/infiniband" 2>/dev/null | head -n1)
[ -n "$r" ] || r=$(rdma link show 2>/dev/null | awk -v d="$dev" "\$NF == d && \$(NF-1) == \"netdev\" { split(\$2, p, \"/\"); print p[1]; exit }")
echo "rdma=$r"
if [ "$et" != none ] && command -v "$et" >/dev/null; then
	echo "--- ethtool"; "$et" "$dev" 2>&1
	echo "--- ethtool -a"; "$et" -a "$dev" 2>&1
else
	echo "--- ethtool"; echo "absent: ethtool"
fi
echo "--- pfc"
if command -v dcb >/dev/null; then dcb pfc show dev "$dev" 2>&1
elif command -v mlnx_qos >/dev/null; then mlnx_qos -i "$dev" 2>&1
else echo "absent: dcb, mlnx_qos"; fi
exit 0'

nic_if=() # "NODE IF" of each end, from nic-NODE.txt
nic_cpus=() # "NODE CPU CPU..." of each end: the CPUs of the NIC's NUMA node

# cpu_list LIST: the CPUs of a cpulist ("0-3,8"), at most 256, else nothing.
cpu_list() {
	local part a b out=()
	[[ $1 =~ ^[0-9]{1,4}(-[0-9]{1,4})?(,[0-9]{1,4}(-[0-9]{1,4})?)*$ ]] || return 0
	for part in ${1//,/ }; do
		a=${part%-*} b=${part#*-}
		for ((; a <= b && ${#out[@]} < 256; a++)); do out+=("$a"); done
	done
	echo "${out[*]}"
}

# nic_info: nic-NODE.txt of both ends; their netdev and CPUs into nic_if, nic_cpus.
nic_info() {
	local run_cmd node role out v cpus
	nic_if=() nic_cpus=()
	for node in "$SINK_NODE" "$SRC_NODE"; do
		role=source
		[ "$node" = "$SINK_NODE" ] && role=sink
		out=$run_dir/nic-$node.txt
		node_cmd "$node" 30 nic-info sh -c "$nic_sh" sh "$role" "${SINK_ADDR:-$SINK_NODE}" "${ETHTOOL:-ethtool}"
		"${run_cmd[@]}" </dev/null >"$out" 2>/dev/null
		v=$(sed -n 's/^if=//p' "$out" | head -n1)
		if [[ $v =~ ^[A-Za-z0-9_.:@-]{1,15}$ ]]; then
			nic_if+=("$node $v")
			cpus=$(cpu_list "$(sed -n 's/^cpulist=//p' "$out" | head -n1)")
			[ -z "$cpus" ] || nic_cpus+=("$node $cpus")
			say "tcp: $node carries ${SINK_ADDR:-$SINK_NODE} on $v (NUMA node $(sed -n 's/^numa=\(-\{0,1\}[0-9]\{1,4\}\)$/\1/p' "$out" | grep . || echo unknown); CPUs ${cpus:-unknown})"
		else
			say "tcp: $node: the netdev that carries ${SINK_ADDR:-$SINK_NODE} was not found: no NIC evidence, no pinning"
		fi
	done
}

# node_word LIST NODE: the words after NODE in the list's entry for NODE.
node_word() {
	local e
	for e in "${!1}"; do
		[ "${e%% *}" = "$2" ] && { echo "${e#* }"; return 0; }
	done
	return 1
}

# nic_stats TAG WHEN: ethtool -S of each end's netdev into nic/TAG-NODE-WHEN.txt.
nic_stats() {
	local run_cmd node dev et=${ETHTOOL:-ethtool}
	[ "$et" = none ] && return 0
	mkdir -p "$run_dir/nic"
	for node in "$SINK_NODE" "$SRC_NODE"; do
		dev=$(node_word 'nic_if[@]' "$node") || continue
		node_cmd "$node" 30 nic-stats sh -c 'PATH=$PATH:/usr/sbin:/sbin; "$1" -S "$2" 2>&1' sh "$et" "$dev"
		"${run_cmd[@]}" </dev/null >"$run_dir/nic/$1-$node-$2.txt" 2>&1
	done
}

# The path MTU: one 9000-byte probe (8972 + 28 bytes of headers) from the
# source, fragmentation forbidden: pmtu-NODE.txt (ping's output, then rc=N).
pmtu_probe() {
	local run_cmd p=${PING:-ping} out=$run_dir/pmtu-$SRC_NODE.txt
	[ "$p" = none ] && { say "PING=none: no path-MTU probe"; return 0; }
	if ! have_on "$SRC_NODE" "$p"; then
		say "$p is not installed on $SRC_NODE: no path-MTU probe (apt-get install iputils-ping)"
		return 0
	fi
	node_cmd "$SRC_NODE" 30 pmtu sh -c 'PATH=$PATH:/usr/sbin:/sbin; "$1" -M do -s 8972 -c 1 -W 3 "$2" 2>&1; echo "rc=$?"' \
		sh "$p" "${SINK_ADDR:-$SINK_NODE}"
	"${run_cmd[@]}" </dev/null >"$out" 2>&1
	say "tcp: path-MTU probe (9000 bytes, don't fragment) to ${SINK_ADDR:-$SINK_NODE}: $(grep -q '^rc=0$' "$out" && echo passed || echo failed)"
}

# --- iperf3 -----------------------------------------------------------------------

iperf_old=1 # 1: older than 3.16 (or unknown): streams as processes

# iperf3_version_num < OUTPUT: iperf3 --version's first line ("iperf 3.12 (cJSON
# ...)") as MAJOR * 1000 + MINOR (3012); nothing when it is not that shape.
iperf3_version_num() {
	local v
	v=$(head -n1 | sed -n 's/^iperf \([0-9]\{1,3\}\)\.\([0-9]\{1,3\}\)\([^0-9].*\)\{0,1\}$/\1 \2/p')
	[ -z "$v" ] || echo $((10#${v% *} * 1000 + 10#${v#* }))
}

# iperf3_version: the older of both nodes' iperf3 versions, from --version's first
# line ("iperf 3.12 (cJSON ...)"), into iperf_old and nic/iperf3-version.txt.
iperf3_version() {
	local run_cmd node v min=
	mkdir -p "$run_dir/nic"
	for node in "$SINK_NODE" "$SRC_NODE"; do
		node_cmd "$node" 30 iperf3-version "${IPERF3:-iperf3}" --version
		v=$("${run_cmd[@]}" </dev/null 2>/dev/null | iperf3_version_num)
		if [ -z "$v" ]; then
			min=unknown
			break
		fi
		[ -n "$min" ] && [ "$min" -le "$v" ] || min=$v
	done
	if [ "$min" = unknown ]; then
		iperf_old=1
		say "tcp: the iperf3 version was not read: streams as processes (one stream each)"
	else
		iperf_old=$((min < 3016))
		echo "iperf3 $((min / 1000)).$((min % 1000))" >"$run_dir/nic/iperf3-version.txt"
		[ "$iperf_old" = 0 ] || say "tcp: iperf3 $((min / 1000)).$((min % 1000)) < 3.16 (one thread serves all -P streams): N streams as N processes"
	fi
}

# run_iperf3 TAG STREAMS ARGS...: STREAMS from the source to the sink with ARGS
# (-Z, -R, -F FILE); one-off servers (-1) on the sink and the clients on the
# source, tried again until their server listens, all with -J: TAG-NODE.json,
# or TAG.pK-NODE.json for the K-th of STREAMS processes; the NIC's counters
# before and after (nic_stats).
run_iperf3() {
	local tag=$1 n=$2 ip=${IPERF3:-iperf3} procs=1 k f cpu port args limit rc=0 pids=() srvs=() p
	local out=$run_dir/$1 addr=${SINK_ADDR:-$SINK_NODE} port0=${TCP_PORT:-$((PORT + 2))}
	shift 2
	[ "$n" -gt 1 ] && [ "$iperf_old" = 1 ] && procs=$n
	limit=${CMD_TIMEOUT:-$((window_s + 2 * net_s + 60))}
	nic_stats "$tag" before
	for ((k = 1; k <= procs; k++)); do
		f=$out port=$((port0 + k - 1))
		[ "$procs" = 1 ] || f=$out.p$k
		cpu=$(pick_cpu "$SINK_NODE" "$k" "$((n / procs))")
		say "$tag: iperf3 server on $SINK_NODE: $ip -s -1 -p $port -J ${cpu:+-A $cpu}"
		start_bg "$f-$SINK_NODE.json" "$f-$SINK_NODE.log" "$SINK_NODE" "$limit" "$tag-server$k" \
			"$ip" -s -1 -p "$port" -J ${cpu:+-A "$cpu"}
		srvs+=("$bg_pid")
	done
	for ((k = 1; k <= procs; k++)); do
		f=$out port=$((port0 + k - 1))
		[ "$procs" = 1 ] || f=$out.p$k
		cpu=$(pick_cpu "$SRC_NODE" "$k" "$((n / procs))")
		args=(-c "$addr" -p "$port" -P "$((n / procs))" "$@" -t "$(duration_s "$DURATION")" -J ${cpu:+-A "$cpu"})
		[ "$(duration_s "$WARMUP")" = 0 ] || args+=(-O "$(duration_s "$WARMUP")")
		(
			client_tries "$tag: iperf3 client $k/$procs" "$f-$SRC_NODE.json" "$f-$SRC_NODE.log" "$limit" \
				"$tag-client$k" "${srvs[k - 1]}" "$ip" "${args[@]}" ||
				{
					rc=$?
					failure "$tag: iperf3 client on $SRC_NODE" "$rc" "$f-$SRC_NODE.log"
					# iperf3 -J reports its error inside the JSON.
					grep -o '"error":.*' "$f-$SRC_NODE.json" 2>/dev/null | head -n1 | sed "s/^/$prog: /" >&2
					exit "$rc"
				}
		) &
		pids+=("$!")
	done
	for p in "${pids[@]}"; do wait "$p" || rc=1; done
	# A one-off server ends with its client; one that never saw it is stopped.
	for ((k = 1; k <= procs; k++)); do
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			kill -0 "${srvs[k - 1]}" 2>/dev/null || break
			sleep 0.5
		done
		if kill -0 "${srvs[k - 1]}" 2>/dev/null; then
			kill -TERM "${srvs[k - 1]}" 2>/dev/null
			stop_on_node "$SINK_NODE" "$tag-server$k"
		fi
		wait "${srvs[k - 1]}"
	done
	# shellcheck disable=SC2034 # run_bench.sh's list of what runs in the background
	started=()
	nic_stats "$tag" after
	[ "$rc" = 0 ]
}

# pick_cpu NODE K STREAMS: -A's CPU for the K-th process on NODE (the CPUs of its
# NIC's NUMA node, in turn); nothing when unknown or when one process of a
# threaded iperf3 (3.16+) carries several streams.
pick_cpu() {
	local cpus
	[ "$3" -gt 1 ] && return 0
	cpus=$(node_word 'nic_cpus[@]' "$1") || return 0
	read -ra cpus <<<"$cpus"
	echo "${cpus[($2 - 1) % ${#cpus[@]}]}"
}

tcp_file= # the source's tmpfs file of the sendfile rung, while it exists

# tcp_file_step up|down: the file in the source's /dev/shm (a tmpfs), TCP_FILE_SIZE
# bytes from /dev/urandom; down removes it.
tcp_file_step() {
	local run_cmd size
	size=$(size_bytes "${TCP_FILE_SIZE:-1G}")
	# shellcheck disable=SC2016
	node_cmd "$SRC_NODE" $((60 + size / 100000000)) tcp-file sh -c '
		if [ "$1" = down ]; then rm -f "$2"; exit 0; fi
		[ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] || { echo "/dev/shm is not a tmpfs" >&2; exit 1; }
		head -c "$3" /dev/urandom >"$2" || { rm -f "$2"; exit 1; }' sh "$1" "$tcp_file" "$size"
	"${run_cmd[@]}" </dev/null >/dev/null 2>"$run_dir/tcp-file-$SRC_NODE.log"
}

tcp_teardown() {
	[ -n "$tcp_file" ] || return 0
	tcp_file_step down
	tcp_file=
}

# The TCP rungs: iperf3 with each of TCP_STREAMS (-Z), then at the largest a copy
# (no -Z), the reverse (-R, -Z), and one stream from a tmpfs file (-F, -Z);
# skipped with one line when a node has no iperf3.
run_tcp() {
	local node n max=0 fails=0 ip=${IPERF3:-iperf3}
	[ "$ip" = none ] && { say "IPERF3=none: the TCP rung is skipped"; return 0; }
	for node in "$SINK_NODE" "$SRC_NODE"; do
		have_on "$node" "$ip" ||
			{ say "$ip is not installed on $node: the TCP rung is skipped (apt-get install iperf3)"; return 0; }
	done
	if [ "${ETHTOOL:-ethtool}" != none ]; then
		for node in "$SINK_NODE" "$SRC_NODE"; do
			have_on "$node" "${ETHTOOL:-ethtool}" ||
				say "${ETHTOOL:-ethtool} is not installed on $node: its NIC counters, link speed and pause state are not read (apt-get install ethtool)"
		done
	fi
	tcp_sysctls
	iperf3_version
	nic_info
	pmtu_probe
	for n in ${TCP_STREAMS:-1 8}; do
		run_iperf3 "tcp$n" "$n" -Z || fails=$((fails + 1))
		[ "$n" -le "$max" ] || max=$n
	done
	run_iperf3 "tcpcopy$max" "$max" || fails=$((fails + 1))
	run_iperf3 "tcprev$max" "$max" -R -Z || fails=$((fails + 1))
	tcp_file=/dev/shm/nbw-tcpfile.$run_id
	if tcp_file_step up; then
		run_iperf3 tcpfile 1 -F "$tcp_file" -Z || fails=$((fails + 1))
	else
		failure "tcp from file: a ${TCP_FILE_SIZE:-1G} file in /dev/shm on $SRC_NODE" 1 "$run_dir/tcp-file-$SRC_NODE.log"
		fails=$((fails + 1))
	fi
	tcp_teardown
	[ "$fails" = 0 ]
}
