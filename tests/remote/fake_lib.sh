# tests/remote/fake_lib.sh: helpers of the fake_*.sh tests (sourced, never run). They run
# tests/remote/fake_remote, the tool's own files linked with tests/remote/fake_fabric.c:
# a sink and its sources as separate processes, the control channel on loopback TCP, the
# RDMA WRITEs over unix sockets in a private directory. The sink's fake ports are fake0
# and fake1 on 127.0.1.1/24 and 127.0.2.1/24, a source's on .2 of the same subnets.
# shellcheck shell=bash
. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

FAKE=$abs_top_builddir/tests/remote/fake_remote
[ -x "$FAKE" ] || skip "$FAKE not built"
unset NBW_FAKE_FAULT NBW_FAKE_PORTS NBW_PSK_FILE NBW_QP_TIMEOUT
export NBW_FAKE_DIR=$TMPD/fabric
mkdir -p "$NBW_FAKE_DIR"
SINK_PORTS="fake0:1:eth:127.0.1.1/24:100,fake1:1:eth:127.0.2.1/24:100"
SRC_PORTS="fake0:1:eth:127.0.1.2/24:100,fake1:1:eth:127.0.2.2/24:100"
# Small and short: 64 KiB messages, two in flight, a 1 s window.
RUN="-s 64K -t 2 --warmup 0.2 -D 1 --timeout 3"
SINK_PID=
t_cleanup_hooks+=('[ -n "$SINK_PID" ] && kill "$SINK_PID" 2>/dev/null')

# sink NAME ARGS...: a sink in the background on a random free PORT (stdout NAME.out,
# stderr NAME.err in $TMPD), once it listens (or has ended for another reason).
sink() {
	local n=$1
	shift
	for _ in 1 2 3 4 5; do
		PORT=$((20000 + RANDOM % 40000))
		NBW_FAKE_PORTS=${SINK_FAKE_PORTS:-$SINK_PORTS} timeout 60 "$FAKE" -p "$PORT" "$@" \
			>"$TMPD/$n.out" 2>"$TMPD/$n.err" &
		SINK_PID=$!
		for _ in $(seq 400); do
			grep -q "waiting for" "$TMPD/$n.err" 2>/dev/null && return 0
			kill -0 "$SINK_PID" 2>/dev/null || break
			sleep 0.05
		done
		grep -q "Address already in use" "$TMPD/$n.err" || return 0
		wait "$SINK_PID"
	done
}

# sink_status: wait for the sink, its exit status into SINK_RC.
sink_status() {
	SINK_RC=0
	wait "$SINK_PID" || SINK_RC=$?
	SINK_PID=
}

# src NAME ARGS...: a source to the sink's first address (stdout NAME.out, stderr
# NAME.err); its exit status into SRC_RC.
src() {
	local n=$1
	shift
	SRC_RC=0
	NBW_FAKE_PORTS=${SRC_FAKE_PORTS:-$SRC_PORTS} timeout 60 "$FAKE" -p "$PORT" "$@" 127.0.1.1 \
		>"$TMPD/$n.out" 2>"$TMPD/$n.err" || SRC_RC=$?
}

# until_live FILE: until FILE has a live line ("[   0.2s] ..."), 15 s at most.
until_live() {
	for _ in $(seq 300); do
		grep -q '^\[' "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

# pair NAME "SINK ARGS" "SOURCE ARGS": one sink, one source; exit statuses in SINK_RC,
# SRC_RC; outputs in NAME-sink.* and NAME-src.*.
pair() {
	# shellcheck disable=SC2086
	sink "$1-sink" $RUN $2
	# shellcheck disable=SC2086
	src "$1-src" $RUN $3
	sink_status
	# Either side's failure says why in the log (an exit status alone cannot be read).
	[ "$SINK_RC $SRC_RC" = "0 0" ] ||
		echo "# $1: sink exit $SINK_RC: $(tail -n 3 "$TMPD/$1-sink.err" | tr '\n' ' ')" \
			"| source exit $SRC_RC: $(tail -n 3 "$TMPD/$1-src.err" | tr '\n' ' ')"
}

# jv NAME EXPR...: each Python expression on NAME's JSON document d ($TMPD/NAME.out),
# into J[0], J[1]... (one interpreter for all: python starts slowly on a loaded machine).
jv() {
	local f=$TMPD/$1.out
	shift
	# shellcheck disable=SC2034 # J: the caller's
	readarray -t J < <("$PYTHON3" -c '
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    d = None
for x in sys.argv[2:]:
    try:
        print(str(eval(x)).replace("\n", " "))
    except Exception as e:
        print("error: %r" % e)
' "$f" "$@")
}
