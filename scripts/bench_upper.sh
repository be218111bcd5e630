# scripts/bench_upper.sh: the ladder's upper rungs, sourced by run_bench.sh (its failure
# and settings, bench_node.sh's node_cmd, start_bg and stop_on_node, bench_lib.sh's
# say): NFS from a tmpfs in the sink's DRAM, exported by the kernel's NFS server, read
# by the source's nvme_read_bw and written by fio (else dd) through two mounts, over
# RDMA and over TCP (the TCP rungs: bench_tcp.sh). Every step runs on
# its node bounded by a time limit; what the NFS steps set up (modules stay loaded) is
# undone at the end, on failure and on a signal. Drives are never touched: the file
# lives in tmpfs.
# run_bench.sh's variables used here: prog, run_dir, run_id, bg_pid (start_bg's), started.
# shellcheck shell=bash disable=SC2154

# have_on NODE CMD: CMD is on NODE's PATH (or /usr/sbin, /sbin).
have_on() {
	local run_cmd
	node_cmd "$1" 30 "have-${2##*/}" sh -c 'PATH=$PATH:/usr/sbin:/sbin; command -v "$1"' sh "$2"
	"${run_cmd[@]}" </dev/null >/dev/null 2>&1
}

# --- NFS: the kernel's server on the sink, two mounts on the source ----------------

# The sink's side, run there with sh: nfs_server_sh up|down DIR SIZE RDMA_PORT.
# up: a tmpfs at DIR/export holding DIR/export/data (SIZE bytes, random) and room for
# as much written, exported read-write (the only thing written is that tmpfs) with the daemons it needs (rpcbind, rpc.mountd, nfsd with
# 8 threads) started when not running, and NFS/RDMA on RDMA_PORT; a writable
# /var/lib/nfs (tmpfs) when the root is read-only. Each step is logged to
# DIR/undo; prints "rdma=1" or "rdma=0"; a failure undoes what was done.
# down: undoes DIR/undo, last step first.
# shellcheck disable=SC2016
nfs_server_sh='PATH=$PATH:/usr/sbin:/sbin
act=$1 dir=$2 size=$3 rport=$4 undo=$2/undo
err() { echo "nfs server: $*" >&2; }
down() {
	[ -f "$undo" ] || { rmdir "$dir" 2>/dev/null; return 0; }
	tac "$undo" | while read -r what arg; do
		case $what in
		export) exportfs -u "*:$arg" ;;
		nfsd) rpc.nfsd 0 ;;
		pid) kill "$arg" 2>/dev/null ;;
		mount) umount "$arg" 2>/dev/null || umount -l "$arg" ;;
		esac
	done
	rm -f "$undo"
	rmdir "$dir/export" "$dir" 2>/dev/null
	return 0
}
fail() { err "$*"; down; exit 1; }
started() { # started NAME: record the pid of daemon NAME just started
	sleep 0.2
	p=$(pidof "$1") && echo "pid $p" >>"$undo"
}
[ "$act" = down ] && { down; exit 0; }
[ "$(id -u)" = 0 ] || { err "needs root (mount, exportfs, rpc.nfsd)"; exit 1; }
mkdir -p "$dir/export" && touch "$undo" || { err "cannot create $dir"; exit 1; }
modprobe nfsd 2>/dev/null
if [ ! -e /proc/fs/nfsd/threads ]; then
	mount -t nfsd nfsd /proc/fs/nfsd || fail "no kernel NFS server: modprobe nfsd and mount -t nfsd failed"
	echo "mount /proc/fs/nfsd" >>"$undo"
fi
modprobe rpcrdma 2>/dev/null || modprobe svcrdma 2>/dev/null
if ! { touch /var/lib/nfs/.nbw-w && rm -f /var/lib/nfs/.nbw-w; } 2>/dev/null; then
	mount -t tmpfs -o mode=0755 nbw-nfs-state /var/lib/nfs || fail "/var/lib/nfs is read-only and no tmpfs could be mounted on it"
	echo "mount /var/lib/nfs" >>"$undo"
	mkdir -p /var/lib/nfs/v4recovery /var/lib/nfs/sm && touch /var/lib/nfs/etab /var/lib/nfs/rmtab
fi
mount -t tmpfs -o "size=$((2 * size + 16777216))" nbw-nfs-export "$dir/export" || fail "cannot mount a tmpfs on $dir/export"
echo "mount $dir/export" >>"$undo"
head -c "$size" /dev/urandom >"$dir/export/data" || fail "cannot write $size bytes into the tmpfs $dir/export"
if ! pidof rpcbind >/dev/null; then
	mkdir -p /run/rpcbind; rpcbind </dev/null >/dev/null 2>&1 || fail "rpcbind did not start"; started rpcbind
fi
if ! pidof rpc.mountd >/dev/null; then
	rpc.mountd </dev/null >/dev/null 2>&1 || fail "rpc.mountd did not start"; started rpc.mountd
fi
exportfs -o rw,insecure,no_root_squash,no_subtree_check,fsid=$((77000000 + $$)) "*:$dir/export" ||
	fail "exportfs of $dir/export failed"
echo "export $dir/export" >>"$undo"
if [ "$(cat /proc/fs/nfsd/threads)" = 0 ]; then
	echo 10 >/proc/fs/nfsd/nfsv4gracetime 2>/dev/null; echo 10 >/proc/fs/nfsd/nfsv4leasetime 2>/dev/null
	echo nfsd >>"$undo"
	rpc.nfsd 8 && [ "$(cat /proc/fs/nfsd/threads)" != 0 ] || fail "rpc.nfsd 8 started no thread"
fi
if grep -q "^rdma $rport\$" /proc/fs/nfsd/portlist; then
	echo rdma=1
elif e=$(echo "rdma $rport" 2>&1 >/proc/fs/nfsd/portlist); then
	echo rdma=1
else
	err "NFS over RDMA unavailable: echo rdma $rport >/proc/fs/nfsd/portlist: ${e:-failed} (module rpcrdma, an RDMA device)"
	echo rdma=0
fi
exit 0'

# The source's side, run there with sh: nfs_client_sh up|down DIR SERVER:PATH
# RDMA VERS RDMA_PORT. up: DIR/rdma (when RDMA is 1) and DIR/tcp mounted
# read-write (the sink's tmpfs) and soft; prints nfsstat -m (else their
# /proc/self/mountstats lines). down: the files nfs_write_sh wrote removed, both
# unmounted (forced, then lazily, when busy), DIR removed.
# shellcheck disable=SC2016
nfs_client_sh='PATH=$PATH:/usr/sbin:/sbin
act=$1 dir=$2 what=$3 rdma=$4 vers=$5 rport=$6
err() { echo "nfs client: $*" >&2; }
down() {
	for m in "$dir/rdma" "$dir/tcp"; do
		grep -q " $m nfs" /proc/mounts || continue
		rm -f "$m"/nbw-write.* 2>/dev/null
		umount "$m" 2>/dev/null || umount -f "$m" 2>/dev/null || umount -l "$m"
	done
	rmdir "$dir/rdma" "$dir/tcp" "$dir" 2>/dev/null
	return 0
}
[ "$act" = down ] && { down; exit 0; }
[ "$(id -u)" = 0 ] || { err "needs root (mount)"; exit 1; }
opts="rw,soft,timeo=100,retrans=2,vers=$vers"
[ "${vers%%.*}" = 3 ] && opts="$opts,nolock"
mkdir -p "$dir/rdma" "$dir/tcp" || { err "cannot create $dir"; exit 1; }
modprobe nfs 2>/dev/null
if [ "$rdma" = 1 ]; then
	modprobe rpcrdma 2>/dev/null || modprobe xprtrdma 2>/dev/null
	mount -t nfs -o "$opts,proto=rdma,port=$rport" "$what" "$dir/rdma" ||
		{ err "mount -o proto=rdma,port=$rport $what failed"; down; exit 1; }
fi
mount -t nfs -o "$opts,proto=tcp" "$what" "$dir/tcp" ||
	{ err "mount -o proto=tcp $what failed"; down; exit 1; }
if command -v nfsstat >/dev/null; then nfsstat -m; else grep -A3 "mounted on $dir/" /proc/self/mountstats; fi
exit 0'

# nfs_step NODE LIMIT TAG OUT SCRIPT ARGS...: one bounded step of the NFS set-up
# on NODE, its stdout into OUT, its stderr shown.
nfs_step() {
	local run_cmd node=$1 limit=$2 tag=$3 out=$4 script=$5 rc err=$run_dir/$3-$1.log
	shift 5
	node_cmd "$node" "$limit" "$tag" sh -c "$script" sh "$@"
	"${run_cmd[@]}" </dev/null >"$out" 2>"$err"
	rc=$?
	sed "s/^/$prog: $node: /" "$err" >&2
	[ "$rc" = 0 ] || failure "$tag on $node" "$rc" /dev/null
	return "$rc"
}

nfs_dir() { printf '/tmp/nbw-nfs.%s' "$run_id"; }

# Undo the NFS set-up of this run on both nodes (the mounts first); on_signal
# calls it too.
nfs_teardown() {
	[ -n "${nfs_pending:-}" ] || return 0
	say "nfs: unmounting on $SRC_NODE, unexporting and stopping what was started on $SINK_NODE"
	local rc=0
	nfs_step "$SRC_NODE" 90 nfs-umount /dev/null "$nfs_client_sh" down "$(nfs_dir)" || rc=1
	nfs_step "$SINK_NODE" 90 nfs-unexport /dev/null "$nfs_server_sh" down "$(nfs_dir)" || rc=1
	nfs_pending=
	return "$rc"
}

# nfs_read NAME PROTO ARGS...: nvme_read_bw on the source through the PROTO
# mount with ARGS: NAME-SRC.json.
nfs_read() {
	local name=$1 proto=$2 rc limit cmd
	shift 2
	cmd=("$(tool nvme_read_bw)" --disks "$(nfs_dir)/$proto/data" "$@" --warmup "$WARMUP" -D "$DURATION" --json)
	limit=${CMD_TIMEOUT:-$((window_s + 120))}
	say "$name on $SRC_NODE: ${cmd[*]}"
	start_bg "$run_dir/$name-$SRC_NODE.json" "$run_dir/$name-$SRC_NODE.log" "$SRC_NODE" "$limit" "$name" "${cmd[@]}"
	wait "$bg_pid"
	rc=$?
	# shellcheck disable=SC2034 # run_bench.sh's list of what runs in the background
	started=()
	[ "$rc" = 0 ] || failure "$name on $SRC_NODE" "$rc" "$run_dir/$name-$SRC_NODE.log"
	return "$rc"
}

# Run on the source with sh: nfs_write_sh WRITER DIR BS JOBS BYTES SECONDS WARMUP.
# JOBS writers of BS blocks (O_DIRECT) into DIR/nbw-write.N, BYTES each: fio
# (time-based, SECONDS after WARMUP, its JSON), else dd (each file once, then
# "writer=dd bytes=B ns=T bs=BS jobs=JOBS"); the files removed after.
# shellcheck disable=SC2016
nfs_write_sh='PATH=$PATH:/usr/sbin:/sbin
w=$1 dir=$2 bs=$3 jobs=$4 bytes=$5 secs=$6 warm=$7
if [ "$w" = fio ]; then
	fio --name=nbw-write --directory="$dir" --filename_format="nbw-write.\$jobnum" --rw=write --direct=1 \
		--bs="$bs" --numjobs="$jobs" --size="$bytes" --time_based --runtime="$secs" --ramp_time="$warm" \
		--ioengine=psync --unlink=1 --output-format=json
	rc=$?
else
	t0=$(date +%s%N) j=0 pids=
	while [ "$j" -lt "$jobs" ]; do
		dd if=/dev/zero of="$dir/nbw-write.$j" bs="$bs" count=$((bytes / bs)) oflag=direct 2>"$dir/nbw-write.$j.err" &
		pids="$pids $!" j=$((j + 1))
	done
	rc=0
	for p in $pids; do wait "$p" || rc=1; done
	t1=$(date +%s%N)
	[ "$rc" = 0 ] && echo "writer=dd bytes=$((jobs * (bytes / bs) * bs)) ns=$((t1 - t0)) bs=$bs jobs=$jobs"
	[ "$rc" = 0 ] || cat "$dir"/nbw-write.*.err >&2
fi
rm -f "$dir"/nbw-write.*
exit "$rc"'

# nfs_writes PROTO...: through each mount, NFS_JOBS writers of NFS_BS blocks
# (fio, else dd) into the sink's tmpfs, NFS_SIZE over all writers:
# nfs_write_PROTO-NODE.txt (fio's JSON, or dd's line); skipped with one line when
# the source has neither.
nfs_writes() {
	local w=fio p bs jobs per limit rc fails=0 run_cmd out
	bs=$(size_bytes "${NFS_BS:-1M}") jobs=${NFS_JOBS:-4}
	have_on "$SRC_NODE" fio || w="dd"
	if [ "$w" = dd ]; then
		have_on "$SRC_NODE" dd ||
			{ say "neither fio nor dd is on $SRC_NODE: the NFS write rungs are skipped (apt-get install fio)"; return 0; }
		say "fio is not installed on $SRC_NODE: the NFS writes by dd, each file once (apt-get install fio)"
	fi
	per=$(($(size_bytes "${NFS_SIZE:-1G}") / jobs / bs * bs))
	[ "$per" -ge "$bs" ] || per=$bs
	limit=${CMD_TIMEOUT:-$((window_s + 120 + jobs * per / 50000000))}
	for p in "$@"; do
		out=$run_dir/nfs_write_$p-$SRC_NODE.txt
		say "nfs write ($p) on $SRC_NODE: $w, $jobs writers of ${NFS_BS:-1M} blocks, $per bytes each, into $(nfs_dir)/$p"
		node_cmd "$SRC_NODE" "$limit" "nfs-write-$p" sh -c "$nfs_write_sh" sh "$w" "$(nfs_dir)/$p" "$bs" "$jobs" \
			"$per" "$(duration_s "$DURATION")" "$(duration_s "$WARMUP")"
		"${run_cmd[@]}" </dev/null >"$out" 2>"$run_dir/nfs_write_$p-$SRC_NODE.log"
		rc=$?
		[ "$rc" = 0 ] || { failure "nfs write ($p) on $SRC_NODE" "$rc" "$run_dir/nfs_write_$p-$SRC_NODE.log"; fails=$((fails + 1)); }
	done
	[ "$fails" = 0 ]
}

# rand_flags: whether the source's nvme_read_bw has --pattern (random reads);
# its --latency (percentiles, opt-in) into the array rand_flags when it has one.
has_pattern() {
	local run_cmd help
	node_cmd "$SRC_NODE" 30 read-help "$(tool nvme_read_bw)" --help
	help=$("${run_cmd[@]}" </dev/null 2>/dev/null)
	rand_flags=()
	grep -q -- --latency <<<"$help" && rand_flags=(--latency)
	grep -q -- --pattern <<<"$help"
}

# The NFS rungs: sequential 1 MiB reads through each mount (nfs_rdma-NODE.json,
# nfs_tcp-NODE.json), writes of NFS_BS by NFS_JOBS writers (nfs_write_PROTO-NODE.txt),
# then random 4 KiB at each of NFS_DEPTHS
# (nfs_PROTO_randD-NODE.json); the mounts' options in nfs-mounts-NODE.txt.
run_nfs() {
	local ex=${EXPORTFS:-exportfs} out rdma protos=(tcp) p d fails=0 size rand_flags
	[ "$ex" = none ] && { say "EXPORTFS=none: the NFS rungs are skipped"; return 0; }
	have_on "$SINK_NODE" "$ex" ||
		{ say "$ex is not installed on $SINK_NODE: the NFS rungs are skipped (apt-get install nfs-kernel-server)"; return 0; }
	have_on "$SRC_NODE" mount.nfs ||
		{ say "mount.nfs is not installed on $SRC_NODE: the NFS rungs are skipped (apt-get install nfs-common)"; return 0; }
	size=$(size_bytes "${NFS_SIZE:-1G}")
	out=$run_dir/nfs-server-$SINK_NODE.txt
	say "nfs: exporting a tmpfs of ${NFS_SIZE:-1G} from $SINK_NODE (NFS/RDMA on port ${NFS_RDMA_PORT:-20049})"
	nfs_pending=1
	# The file is filled from /dev/urandom: 120 s plus 1 s per 100 MB.
	nfs_step "$SINK_NODE" $((120 + size / 100000000)) nfs-export "$out" "$nfs_server_sh" up "$(nfs_dir)" "$size" \
		"${NFS_RDMA_PORT:-20049}" || { nfs_teardown; return 1; }
	rdma=$(sed -n 's/^rdma=//p' "$out")
	[ "$rdma" = 1 ] && protos=(rdma tcp)
	say "nfs: mounting ${SINK_ADDR:-$SINK_NODE}:$(nfs_dir)/export on $SRC_NODE over ${protos[*]} (vers=${NFS_VERS:-3})"
	nfs_step "$SRC_NODE" 120 nfs-mount "$run_dir/nfs-mounts-$SRC_NODE.txt" "$nfs_client_sh" up "$(nfs_dir)" \
		"${SINK_ADDR:-$SINK_NODE}:$(nfs_dir)/export" "$rdma" "${NFS_VERS:-3}" "${NFS_RDMA_PORT:-20049}" ||
		{ nfs_teardown; return 1; }
	for p in "${protos[@]}"; do
		nfs_read "nfs_$p" "$p" -t "$THREADS" -s 1M || fails=$((fails + 1))
	done
	nfs_writes "${protos[@]}" || fails=$((fails + 1))
	if has_pattern; then
		for d in ${NFS_DEPTHS:-8 16 32}; do
			for p in "${protos[@]}"; do
				nfs_read "nfs_${p}_rand$d" "$p" -t 1 --pattern rand -s 4K --engine io_uring --depth "$d" \
					"${rand_flags[@]}" ||
					fails=$((fails + 1))
			done
		done
	else
		say "nvme_read_bw on $SRC_NODE has no --pattern: the NFS random 4 KiB table needs it (a newer nvme_read_bw); skipped"
	fi
	nfs_teardown || fails=$((fails + 1))
	[ "$fails" = 0 ]
}

# The upper rungs' settings (run_bench.sh's check_settings does the rest).
check_upper_settings() {
	local v n
	for v in TCP_STREAMS NFS_DEPTHS NFS_JOBS; do
		for n in ${!v:-1}; do
			[[ $n =~ ^[1-9][0-9]{0,3}$ ]] || die_usage "$v=\"${!v}\": positive integers (e.g. \"1 8\")"
		done
	done
	for v in TCP_PORT NFS_RDMA_PORT; do
		[ -z "${!v:-}" ] || { [[ ${!v} =~ ^[1-9][0-9]*$ ]] && [ "${!v}" -le 65535 ]; } ||
			die_usage "$v=${!v}: not a port"
	done
	shopt -s nocasematch
	for v in NFS_SIZE NFS_BS TCP_FILE_SIZE; do
		[ -z "${!v:-}" ] || [[ ${!v} =~ ^[1-9][0-9]*([kmgt](i?b)?)?$ ]] ||
			die_usage "$v=${!v}: not a size (e.g. 1G, 256M)"
	done
	shopt -u nocasematch
	[ -z "${NFS_VERS:-}" ] || [[ $NFS_VERS =~ ^(3|4|4\.[012])$ ]] || die_usage "NFS_VERS=$NFS_VERS: 3, 4, 4.0, 4.1 or 4.2"
}
