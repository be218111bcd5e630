#!/bin/bash
# What run_bench.sh's TCP and NFS rungs may leave on a lab node, one line each
# (nothing when clean): NFS mounts, exports, nfsd threads, the state tmpfs on
# /var/lib/nfs, the daemons started for the server, iperf3, the run's directory.
n=$(hostname)
grep -E ' (nfs|nfs4|tmpfs) ' /proc/mounts | grep -E 'nbw-nfs|/var/lib/nfs' | sed "s/^/$n: mount: /"
[ -r /proc/fs/nfsd/exports ] && grep -v '^#' /proc/fs/nfsd/exports | sed "s/^/$n: export: /"
t=$(cat /proc/fs/nfsd/threads 2>/dev/null || echo 0)
[ "$t" = 0 ] || echo "$n: nfsd threads: $t"
for p in iperf3 rpcbind rpc.mountd; do
	pgrep -x "$p" >/dev/null && echo "$n: process: $p"
done
for d in /tmp/nbw-nfs.*; do
	[ -e "$d" ] && echo "$n: directory: $d"
done
exit 0
