#!/bin/bash
# fake_memlock.sh: memory that RDMA registers must be lockable: a source whose staging
# buffers, or a sink whose --dram, exceed RLIMIT_MEMLOCK (without CAP_IPC_LOCK) stops
# before its header with one line naming what is needed and the limit. As root the
# capability is stripped with setpriv; as another user its own soft limit is lowered.
. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/remote/fake_lib.sh"

# low KIB CMD...: CMD under a KIB KiB locked-memory limit, without CAP_IPC_LOCK.
low() {
	local kib=$1
	shift
	if [ "$(id -u)" = 0 ]; then
		command -v setpriv >/dev/null && command -v prlimit >/dev/null ||
			skip "needs setpriv and prlimit to drop CAP_IPC_LOCK as root"
		prlimit --memlock=$((kib * 1024)) setpriv --bounding-set=-ipc_lock \
			--inh-caps=-ipc_lock "$@"
	else
		bash -c 'ulimit -S -l "$0" && exec "$@"' "$kib" "$@"
	fi
}

# The source: 12 workers x (1 MiB x 2 in flight) = 24 MiB against 8 MiB, before it even
# reaches the sink (none listens on this port).
rc=0
NBW_FAKE_PORTS=$SRC_PORTS low 8192 "$FAKE" -p 1 --source mem -q 12 -s 1M -t 2 -D 1 \
	127.0.1.1 >"$TMPD/src.out" 2>"$TMPD/src.err" || rc=$?
check_eq "source: exit 1 (the machine's limit)" 1 "$rc"
check_match "source: what is needed and the limit" \
	"12 staging buffers of 2MiB registered for RDMA: needs 24MiB locked memory, RLIMIT_MEMLOCK is 8MiB: raise it \(ulimit -l 24576" \
	"$(cat "$TMPD/src.err")"
check_eq "source: one line" 1 "$(wc -l <"$TMPD/src.err")"
check_eq "source: no header before it" "" "$(cat "$TMPD/src.out")"

# The sink: --dram 16M against 8 MiB, before it listens.
rc=0
NBW_FAKE_PORTS=$SINK_PORTS low 8192 "$FAKE" -p 1 --dram 16M --no-local -D 1 \
	>"$TMPD/sink.out" 2>"$TMPD/sink.err" || rc=$?
check_eq "sink: exit 1" 1 "$rc"
check_match "sink: what is needed and the limit" \
	"--dram 16MiB: needs 16MiB locked memory, RLIMIT_MEMLOCK is 8MiB: raise it \(ulimit -l 16384" \
	"$(cat "$TMPD/sink.err")"
check_eq "sink: never listened" "" "$(grep 'waiting for' "$TMPD/sink.err")"

# Within the limit the source goes on to the network (here: nobody listens).
rc=0
NBW_FAKE_PORTS=$SRC_PORTS low 65536 "$FAKE" -p 1 --source mem -q 2 -s 1M -t 2 -D 1 --timeout 1 \
	127.0.1.1 >/dev/null 2>"$TMPD/src2.err" || rc=$?
check_eq "source within the limit: no memlock line" "" "$(grep -i 'RLIMIT_MEMLOCK' "$TMPD/src2.err")"
finish
