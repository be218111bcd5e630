#!/bin/bash
# What run_bench.sh's TCP and NFS rungs may leave on a lab node, one line each
# (nothing when clean): NFS mounts, exports, nfsd threads, the state tmpfs on
# /var/lib/nfs, the daemons started for the server, iperf3, the NFS writers (fio)
# and their files, the run's directory, the sendfile rung's file in /dev/shm; the
# rsync daemon, rsync's tmpfs on either end, the lab's sshd and its keys (ssh_lab.sh).
n=$(hostname)
grep -E ' (nfs|nfs4|tmpfs) ' /proc/mounts | grep -E 'nbw-nfs|/var/lib/nfs' | sed "s/^/$n: mount: /"
[ -r /proc/fs/nfsd/exports ] && grep -v '^#' /proc/fs/nfsd/exports | sed "s/^/$n: export: /"
t=$(cat /proc/fs/nfsd/threads 2>/dev/null || echo 0)
[ "$t" = 0 ] || echo "$n: nfsd threads: $t"
for p in iperf3 fio rpcbind rpc.mountd rsync; do
	pgrep -x "$p" >/dev/null && echo "$n: process: $p"
done
# the rsync rungs' daemon and tmpfs; the sshd and keys of tests/lab/ssh_lab.sh
pgrep -af 'nbw-rsync\.|nbw-lab-ssh' | grep -v pgrep | sed "s/^/$n: process: /"
grep -E ' /tmp/(nbw-rsync|nbw-lab-ssh)\.' /proc/mounts | sed "s/^/$n: mount: /"
for d in /tmp/nbw-nfs.* /tmp/nbw-nfs.*/*/nbw-write.* /dev/shm/nbw-tcpfile.* /tmp/nbw-rsync.* /tmp/nbw-lab-ssh.*; do
	[ -e "$d" ] && echo "$n: left: $d"
done
exit 0
