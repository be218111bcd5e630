#!/bin/bash
# scripts/run_bench.sh with LAUNCHER="kubectl exec -i" against a fake kubectl that
# behaves like the real one where it matters: options, then POD, then "--" and the
# command's argv passed without a shell; the command's exit status; a killed client
# leaves the command running in the pod. Checks the argv (namespace and container
# from KUBECTL_NAMESPACE / KUBECTL_CONTAINER), awkward paths carried unchanged, exit
# statuses of failing sides and of a missing pod, and that SIGTERM / Ctrl-C to
# run_bench.sh stops the commands it started in the "pods".
# shellcheck disable=SC2010,SC2012 # ls lists and counts the files this test made
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
[ -x "$NVME_READ_BW" ] || skip "nvme_read_bw is not built"
command -v setsid >/dev/null || skip "setsid not found (util-linux)"
make_fakes
export PATH=$TMPD/bin:$PATH TOOL_DIR=$TMPD/tools RESULTS_DIR=$TMPD/results
export DURATION=1 WARMUP=0 THREADS=1 CHUNK=64K LAUNCHER="kubectl exec -i"
unset SINK_NODE SRC_NODE NODES LAUNCHER_QUOTE SINK_DISKS SRC_DISKS RDMA_DEV DRAM VERIFY \
	READ_ARGS SINK_ARGS SRC_ARGS RUN_NAME CMD_TIMEOUT SINK_ADDR PORT KUBECTL_NAMESPACE KUBECTL_CONTAINER

env SINK_NODE=sink-0 SRC_NODE=source-0 "$RUN_BENCH" check aggregate >"$TMPD/out" 2>&1
check_eq "check aggregate with kubectl: exit 0, silent" "0:" "$?:$(cat "$TMPD/out")"

# --- argv and quoting: awkward paths reach nvme_read_bw in the pod unchanged ----------
odd="$TMPD/dir with space 'quote' \"dq\" \$HOME;*|&"
mkdir -p "$odd"
make_pattern "$odd/d0" 4194304 0
make_pattern "$odd/d 1" 4194304 1
export SINK_NODE=sink-0 SRC_NODE=source-0 SINK_DISKS="$odd/d0" SRC_DISKS="$odd/d0,$odd/d 1"
reset_fakes
KUBECTL_NAMESPACE=bench KUBECTL_CONTAINER=nvmebw RUN_NAME=quote "$RUN_BENCH" local >"$TMPD/out" 2>"$TMPD/err"
check_eq "local through kubectl exec: exit status" 0 $?
D=$RESULTS_DIR/quote
check_eq "sink-0 read the awkward path" "$odd/d0" "$(json_get "$D/local-sink-0.json" '"|".join(x["path"] for x in d["drives"])')"
check_eq "source-0 read both" "$odd/d0|$odd/d 1" "$(json_get "$D/local-source-0.json" '"|".join(x["path"] for x in d["drives"])')"
check_eq "bytes > 0 in both pods" "True True" \
	"$(json_get "$D/local-sink-0.json" 'd["total"]["bytes"] > 0') $(json_get "$D/local-source-0.json" 'd["total"]["bytes"] > 0')"
check_eq "kubectl argv: exec -i -n NS -c CONTAINER POD -- sh -c" "exec -i -n bench -c nvmebw source-0 -- sh -c" \
	"$(nth_call kubectl 2 | head -n10 | tr '\n' ' ' | sed 's/ $//')"
check_eq "kubectl argv: the drive list is one word, unquoted" "$odd/d0,$odd/d 1" \
	"$(nth_call kubectl 2 | grep -A1 -x -- --disks | tail -n1)"
check_eq "kubectl calls: one per pod" 2 "$(ls "$TMPD/calls" | grep -c kubectl)"
# Shell-quoting for kubectl (which passes argv) would corrupt the paths: the test can fail.
reset_fakes
LAUNCHER_QUOTE=yes RUN_NAME=quoted "$RUN_BENCH" local >/dev/null 2>&1
check_eq "kubectl with LAUNCHER_QUOTE=yes breaks (no shell in between)" 1 $?
# Without "--" the real kubectl refuses (kubectl >= 1.25): the fake does too.
"$TMPD/bin/kubectl" exec -i sink-0 true >/dev/null 2>"$TMPD/err"
check_eq "fake kubectl without --: exit 1" 1 $?
unset SINK_DISKS SRC_DISKS

# --- exit statuses ----------------------------------------------------------------------
reset_fakes
"$TMPD/bin/kubectl" exec -i sink-0 -- sh -c 'exit 7'
check_eq "fake kubectl: the command's exit status" 7 $?
make_pattern "$TMPD/a0" 4194304 0
RUN_NAME=gone SRC_NODE=gone SINK_DISKS=$TMPD/a0 SRC_DISKS=$TMPD/a0 "$RUN_BENCH" local >"$TMPD/out" 2>"$TMPD/err"
check_eq "a missing pod: exit 1" 1 $?
check_match "a missing pod: named with kubectl's reason" 'gone.*failed \(exit 1\): Error from server \(NotFound\): pods "gone" not found' "$(cat "$TMPD/err")"

export SINK_ADDR=10.0.0.1 RDMA_DEV=rxe0 DRAM=64M NET_TIMEOUT=1
reset_fakes
RUN_NAME=agg "$RUN_BENCH" aggregate >"$TMPD/out" 2>"$TMPD/err"
check_eq "aggregate across pods: exit status" 0 $?
check_eq "sink JSON: total = local + RDMA" "sink True" \
	"$(json_get "$RESULTS_DIR/agg/aggregate-sink-0.json" '"%s %s" % (d["role"], d["total"]["bytes"] == d["local"]["bytes"] + d["rdma"]["bytes"])')"
check_eq "source: the sink's address last" 10.0.0.1 "$(tail -n1 "$TMPD/fake/argv.source")"
reset_fakes
touch "$TMPD/fake/source.fail"
RUN_NAME=agg-fail timeout 60 "$RUN_BENCH" aggregate >"$TMPD/out" 2>"$TMPD/err"
check_eq "failing source in its pod: exit 1" 1 $?
check_match "failing source: named" 'source on source-0 failed \(exit 1\): .*verification: FAIL' "$(cat "$TMPD/err")"
check_eq "no process left after a failed source" "" "$(leftovers)"

# --- a killed client leaves the command running (the fake is faithful) ... -------------
reset_fakes
printf 'while :; do sleep 0.1; done\n' >"$TMPD/hang.sh"
"$TMPD/bin/kubectl" exec -i pod-x -- bash "$TMPD/hang.sh" </dev/null &
kpid=$!
for ((i = 0; i < 50; i++)); do pgrep -f "^bash $TMPD/hang.sh" >/dev/null && break; sleep 0.1; done
kill -KILL "$kpid"
wait "$kpid" 2>/dev/null
sleep 0.3
check_match "fake kubectl killed: its command still runs" 'hang\.sh' "$(leftovers)"
rpid=$(pgrep -f "^bash $TMPD/hang.sh") && kill "$rpid"

# --- ... so run_bench.sh stops it on SIGTERM and Ctrl-C ------------------------------
for sig in INT TERM; do
	reset_fakes
	touch "$TMPD/fake/source.hang"
	RUN_NAME=agg-$sig setsid env --default-signal=INT "$RUN_BENCH" aggregate >"$TMPD/out" 2>"$TMPD/err" &
	pid=$!
	for ((i = 0; i < 100; i++)); do [ -e "$TMPD/fake/argv.source" ] && break; sleep 0.1; done
	sleep 0.5
	check_match "SIG$sig: sink and source running in their pods" 'nvme_write_bw_remote' "$(leftovers)"
	if [ "$sig" = INT ]; then kill -INT -- "-$pid"; else kill -TERM "$pid"; fi
	wait "$pid"
	rc=$?
	check_eq "SIG$sig: exit status" "$([ $sig = INT ] && echo 130 || echo 143)" "$rc"
	check_match "SIG$sig: the stop went through kubectl exec" 'kill -TERM' \
		"$(for f in "$TMPD"/calls/kubectl.*; do tr '\0' ' ' <"$f"; echo; done)"
	sleep 1
	check_eq "SIG$sig: no process left in the pods" "" "$(leftovers)"
done
finish
