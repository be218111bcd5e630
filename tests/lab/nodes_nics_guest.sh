#!/bin/bash
# Guest side of nodes_nics.sh, every node. Three nodes: record what the
# node sees (environment, rxe devices), b and c ping a on both NICs and then
# tell a they are done (a waits for both, so it stays up for their pings).
# Two nodes: ib_write_bw on the second rail (rxe1), a serves, b is the client
# of a's second address.
set -u
port=18600
env | grep '^VLAB_' | sort >"$VLAB_OUT/env.txt"
rdma link show >"$VLAB_OUT/rdma.txt" 2>&1
for d in $VLAB_RDMA_DEVS; do
	echo "$d $(ibv_devinfo -d "$d" | awk '/state:/ { print $2; exit }')"
done >"$VLAB_OUT/ports.txt"

# Sent packets of rxe device $1 so far.
sent() { cat "/sys/class/infiniband/$1/ports/1/hw_counters/sent_pkts"; }

if [ "$VLAB_NODES" = 2 ]; then
	# shellcheck disable=SC2086 # the peers' addresses, a word each
	set -- $VLAB_PEERS
	if [ "$VLAB_NODE" = a ]; then
		timeout 120 ib_write_bw -u "$NBW_QP_TIMEOUT" -d rxe1 -s 65536 -D 3 --report_gbits >"$VLAB_OUT/ib_write_bw.txt" 2>&1 ||
			{ echo "ib_write_bw server failed"; cat "$VLAB_OUT/ib_write_bw.txt"; exit 1; }
		exit 0
	fi
	before0=$(sent rxe0) before1=$(sent rxe1)
	for _ in $(seq 1 20); do
		if timeout 60 ib_write_bw -u "$NBW_QP_TIMEOUT" -d rxe1 -s 65536 -D 3 --report_gbits "$2" \
			>"$VLAB_OUT/ib_write_bw.txt" 2>&1; then
			echo "rxe0 $(($(sent rxe0) - before0)) rxe1 $(($(sent rxe1) - before1))" \
				>"$VLAB_OUT/sent.txt"
			grep -A1 '#bytes' "$VLAB_OUT/ib_write_bw.txt"
			exit 0
		fi
		sleep 1
	done
	cat "$VLAB_OUT/ib_write_bw.txt"
	exit 1
fi

if [ "$VLAB_NODE" = a ]; then
	# Wait (bounded) for b and c to report that their pings are done.
	# Each step's time on the node's clock (seconds since boot), so that a run that
	# ends at the lab's timeout says which step it was in.
	echo "a: at $(cut -d' ' -f1 /proc/uptime) s: starting the listener"
	exec python3 - "$VLAB_ADDR" "$port" <<'PY'
import socket, sys
s = socket.create_server((sys.argv[1], int(sys.argv[2])))
s.settimeout(150)
up = lambda: open("/proc/uptime").read().split()[0]
print("a: at %s s: listening on %s port %s" % (up(), sys.argv[1], sys.argv[2]), flush=True)
seen = set()
while len(seen) < 2:
    try:
        c, _ = s.accept()
    except socket.timeout:
        sys.exit("a: at %s s: heard from %s only, nothing for 150 s" % (up(), sorted(seen)))
    c.settimeout(10)
    seen.add(c.recv(16).decode().strip())
    c.close()
print("a: heard from", " ".join(sorted(seen)))
PY
fi

for addr in $VLAB_PEERS; do
	r=fail
	for _ in 1 2 3 4 5; do
		/bin/busybox ping -c1 -W5 "$addr" >/dev/null 2>&1 && { r=ok; break; }
	done
	echo "$addr $r"
done >"$VLAB_OUT/ping.txt"
cat "$VLAB_OUT/ping.txt"
echo "$VLAB_NODE: at $(cut -d' ' -f1 /proc/uptime) s: telling a"
python3 - "$VLAB_PEER" "$port" "$VLAB_NODE" <<'PY'
import socket, sys, time
up = lambda: open("/proc/uptime").read().split()[0]
err = None
for _ in range(120):
    try:
        socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=5).sendall(sys.argv[3].encode())
        print("%s: at %s s: told a" % (sys.argv[3], up()))
        sys.exit(0)
    except OSError as e:
        err = e
        time.sleep(1)
sys.exit("%s: at %s s: a's port never answered: %s" % (sys.argv[3], up(), err))
PY
