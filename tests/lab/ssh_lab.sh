#!/bin/bash
# tests/lab/ssh_lab.sh: an ssh server for the ladder's "rsync over ssh" rung where there
# is none (the lab's node a, a fast test on loopback), everything in a tmpfs of its own:
#   ssh_lab.sh up DIR ADDR PORT   DIR a tmpfs (mounted when root, else DIR must be on one)
#                                 holding a host key, a client key (DIR/id) it trusts
#                                 (DIR/authorized_keys) and sshd_config; /usr/sbin/sshd
#                                 listening on ADDR:PORT in the background (DIR/sshd.pid).
#                                 Prints the SSH_OPTS a client needs (-p, -i, no known
#                                 hosts file). Waits (10 s at most) until it listens.
#   ssh_lab.sh key DIR KEY        DIR (a tmpfs when root) holding KEY (the text of the
#                                 private key) as DIR/id: the client's side on another node.
#   ssh_lab.sh down DIR           sshd stopped, DIR unmounted and removed.
set -u
act=${1:-} dir=${2:-}
PATH=$PATH:/usr/sbin:/sbin
die() { echo "ssh_lab.sh: $*" >&2; exit 1; }
[ -n "$dir" ] && [[ $dir == /* ]] || die "usage: up DIR ADDR PORT | key DIR KEY | down DIR (DIR absolute)"

tmpfs_dir() {
	mkdir -p "$dir" || die "cannot create $dir"
	if [ "$(id -u)" = 0 ]; then
		grep -q " $dir tmpfs " /proc/mounts || mount -t tmpfs -o size=4m,mode=0700 nbw-lab-ssh "$dir" ||
			die "cannot mount a tmpfs on $dir"
	fi
	chmod 700 "$dir"
}

case $act in
up)
	addr=${3:-} port=${4:-}
	[[ $port =~ ^[1-9][0-9]*$ ]] || die "up: PORT"
	command -v sshd >/dev/null || die "no sshd (apt-get install openssh-server)"
	command -v ssh-keygen >/dev/null || die "no ssh-keygen (apt-get install openssh-client)"
	tmpfs_dir
	ssh-keygen -q -t ed25519 -N '' -f "$dir/host" && ssh-keygen -q -t ed25519 -N '' -f "$dir/id" ||
		die "ssh-keygen failed"
	cp "$dir/id.pub" "$dir/authorized_keys"
	# privilege separation needs /run/sshd (a tmpfs /run on the lab's nodes)
	mkdir -p /run/sshd 2>/dev/null
	printf '%s\n' "Port $port" "ListenAddress $addr" "HostKey $dir/host" "PidFile $dir/sshd.pid" \
		"AuthorizedKeysFile $dir/authorized_keys" "PermitRootLogin prohibit-password" \
		"PasswordAuthentication no" "KbdInteractiveAuthentication no" "UsePAM no" "UseDNS no" \
		"StrictModes no" "PrintMotd no" >"$dir/sshd_config"
	"$(command -v sshd)" -f "$dir/sshd_config" -E "$dir/sshd.log" || die "sshd did not start: $(tail -n1 "$dir/sshd.log" 2>/dev/null)"
	for _ in $(seq 1 50); do
		[ -s "$dir/sshd.pid" ] && break
		sleep 0.2
	done
	[ -s "$dir/sshd.pid" ] || die "sshd wrote no pid file: $(tail -n1 "$dir/sshd.log" 2>/dev/null)"
	echo "-p $port -i $dir/id -o UserKnownHostsFile=/dev/null -o StrictHostKeyChecking=no"
	;;
key)
	tmpfs_dir
	(umask 077 && printf '%s\n' "${3:-}" >"$dir/id") || die "cannot write $dir/id"
	;;
down)
	[ -d "$dir" ] || exit 0
	p=$(cat "$dir/sshd.pid" 2>/dev/null)
	if [[ $p =~ ^[0-9]+$ ]]; then
		kill "$p" 2>/dev/null
		for _ in $(seq 1 25); do kill -0 "$p" 2>/dev/null || break; sleep 0.2; done
	fi
	if grep -q " $dir tmpfs " /proc/mounts; then umount "$dir" 2>/dev/null || umount -l "$dir"; fi
	rm -rf "$dir"
	;;
*) die "usage: up DIR ADDR PORT | key DIR KEY | down DIR" ;;
esac
