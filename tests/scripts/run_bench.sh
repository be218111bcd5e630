#!/bin/bash
# scripts/run_bench.sh without a lab: every bad setting exits 2 with one line;
# LAUNCHER quoting (an ssh stand-in that joins words for a shell, an srun
# stand-in that passes argv) carries awkward paths through unchanged; local and
# baseline with the real nvme_read_bw on files; aggregate with a fake
# nvme_write_bw_remote (a source refused until the sink listens, a failing
# source, a failing sink); Ctrl-C and SIGTERM leave no process behind.
# shellcheck disable=SC2010,SC2012 # ls lists and counts the files this test made
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
[ -x "$NVME_READ_BW" ] || skip "nvme_read_bw is not built"
make_fakes
export PATH=$TMPD/bin:$PATH TOOL_DIR=$TMPD/tools RESULTS_DIR=$TMPD/results
export DURATION=0.3 WARMUP=0 THREADS=1 CHUNK=64K
unset SINK_NODE SRC_NODE NODES LAUNCHER LAUNCHER_QUOTE SINK_DISKS SRC_DISKS RDMA_DEV DRAM VERIFY \
	READ_ARGS SINK_ARGS SRC_ARGS RUN_NAME CMD_TIMEOUT SINK_ADDR PORT

# --- usage errors: exit 2, one line naming the problem --------------------------
B=(env SINK_NODE=n1 SRC_NODE=n2 LAUNCHER=ssh)
expect_exit 2 'no mode' "$RUN_BENCH"
expect_exit 2 "unknown mode 'fast'" "$RUN_BENCH" fast
expect_exit 2 'takes no arguments' "${B[@]}" "$RUN_BENCH" local extra
expect_exit 2 'SINK_NODE is not set' env SRC_NODE=n2 "$RUN_BENCH" aggregate
expect_exit 2 'SRC_NODE is not set' env SINK_NODE=n1 "$RUN_BENCH" local
expect_exit 2 'same node: n1' env SINK_NODE=n1 SRC_NODE=n1 "$RUN_BENCH" aggregate
expect_exit 2 'THREADS=0: not a positive integer' "${B[@]}" THREADS=0 "$RUN_BENCH" local
expect_exit 2 'DURATION=ten: not a duration' "${B[@]}" DURATION=ten "$RUN_BENCH" baseline
expect_exit 2 'WARMUP=-1: not a duration' "${B[@]}" WARMUP=-1 "$RUN_BENCH" local
expect_exit 2 'CHUNK=1X: not a size' "${B[@]}" CHUNK=1X "$RUN_BENCH" aggregate
expect_exit 2 'DRAM=lots: not a size' "${B[@]}" DRAM=lots "$RUN_BENCH" aggregate
expect_exit 2 'PORT=70000: not a port' "${B[@]}" PORT=70000 "$RUN_BENCH" aggregate
expect_exit 2 'VERIFY=some: canary, full or off' "${B[@]}" VERIFY=some "$RUN_BENCH" aggregate
expect_exit 2 'LAUNCHER_QUOTE=maybe: auto, yes or no' "${B[@]}" LAUNCHER_QUOTE=maybe "$RUN_BENCH" local
expect_exit 2 'CMD_TIMEOUT=soon' "${B[@]}" CMD_TIMEOUT=soon "$RUN_BENCH" local
expect_exit 2 "node name or address 'n 2'" env SINK_NODE=n1 "SRC_NODE=n 2" "$RUN_BENCH" local
expect_exit 2 "node name or address '--dump-slice=x'" env SINK_NODE=n1 SRC_NODE=n2 SINK_ADDR=--dump-slice=x "$RUN_BENCH" local
expect_exit 2 'LAUNCHER is empty' "${B[@]}" LAUNCHER=' ' "$RUN_BENCH" local
expect_exit 2 'summary: one argument' "$RUN_BENCH" summary
expect_exit 2 'not a directory' "$RUN_BENCH" summary "$TMPD/nowhere"
expect_exit 1 'LAUNCHER: /nonexistent/srun: command not found' "${B[@]}" LAUNCHER="/nonexistent/srun -w" "$RUN_BENCH" local
expect_exit 2 'check: which mode' "${B[@]}" "$RUN_BENCH" check
"${B[@]}" "$RUN_BENCH" check aggregate >"$TMPD/out" 2>&1
check_eq "check aggregate: good settings, exit 0, silent" "0:" "$?:$(cat "$TMPD/out")"
check_eq "nothing written by the failed calls" "" "$(ls "$RESULTS_DIR" 2>/dev/null)"

# --- quoting: awkward drive paths reach nvme_read_bw unchanged ------------------
odd="$TMPD/dir with space 'quote' \$HOME;*"
mkdir -p "$odd"
make_pattern "$odd/d0" 4194304 0
make_pattern "$odd/d 1" 4194304 1
export SINK_NODE=n1 SRC_NODE=n2 SINK_DISKS="$odd/d0" SRC_DISKS="$odd/d0,$odd/d 1"
for L in ssh "fake-srun -N1 -w"; do
	kind=${L%% *}
	kind=${kind#fake-}
	reset_fakes
	LAUNCHER=$L RUN_NAME=quote-$kind "$RUN_BENCH" local >"$TMPD/out" 2>"$TMPD/err"
	check_eq "local through $kind: exit status" 0 $?
	D=$RESULTS_DIR/quote-$kind
	check_eq "$kind: n1 read the awkward path" "$odd/d0" "$(json_get "$D/local-n1.json" '"|".join(x["path"] for x in d["drives"])')"
	check_eq "$kind: n2 read both" "$odd/d0|$odd/d 1" "$(json_get "$D/local-n2.json" '"|".join(x["path"] for x in d["drives"])')"
	check_eq "$kind: bytes > 0 on both nodes" "True True" \
		"$(json_get "$D/local-n1.json" 'd["total"]["bytes"] > 0') $(json_get "$D/local-n2.json" 'd["total"]["bytes"] > 0')"
	check_match "$kind: summary sums the nodes" 'local +all +sum of nodes' "$(cat "$D/summary.txt")"
	if [ "$kind" = ssh ]; then
		# ssh: HOST, then one word: the shell-quoted command line.
		check_eq "ssh argv: host" n1 "$(nth_call ssh 1 | sed -n 1p)"
		check_eq "ssh argv: one command word after the host" 2 "$(nth_call ssh 1 | wc -l)"
		check_match "ssh argv: the path single-quoted" "'$TMPD/dir with space '\\\\''quote'\\\\'' \\\$HOME;\*/d0'" \
			"$(nth_call ssh 1 | sed -n 2p)"
	else
		# srun: the argv untouched.
		check_eq "srun argv: -N1 -w n2 sh -c" "-N1 -w n2 sh -c" "$(nth_call srun 2 | head -n5 | tr '\n' ' ' | sed 's/ $//')"
		check_eq "srun argv: the drive list is one word, unchanged" "$odd/d0,$odd/d 1" \
			"$(nth_call srun 2 | grep -A1 -x -- --disks | tail -n1)"
	fi
done
# A launcher that joins words, told it does not (LAUNCHER_QUOTE=no): the test can fail.
reset_fakes
LAUNCHER=ssh LAUNCHER_QUOTE=no RUN_NAME=unquoted "$RUN_BENCH" local >/dev/null 2>"$TMPD/err"
check_eq "ssh with LAUNCHER_QUOTE=no breaks (the quoting matters)" 1 $?
unset SINK_DISKS SRC_DISKS

# --- local and baseline on pattern files ----------------------------------------
make_pattern "$TMPD/a0" 4194304 0
make_pattern "$TMPD/a1" 4194304 1
export SINK_DISKS=$TMPD/a0,$TMPD/a1 SRC_DISKS=$TMPD/a1 LAUNCHER="fake-srun -N1 -w"
RUN_NAME=base "$RUN_BENCH" baseline >"$TMPD/out" 2>"$TMPD/err"
check_eq "baseline: exit status" 0 $?
check_eq "baseline n1: two drives alone, then together" "['a0 alone', 'a1 alone', '2 together']" \
	"$(json_get "$RESULTS_DIR/base/baseline-n1.json" '[s["label"] for s in d["baseline"]]')"
check_match "baseline summary: together row with % of ideal" 'baseline +n1 +all drives +2 .* [0-9]+\.[0-9]' "$(cat "$TMPD/out")"
check_eq "run.json: mode and status" "baseline 0" "$(json_get "$RESULTS_DIR/base/run.json" '"%s %d" % (d["mode"], d["exit_status"])')"
check_eq "summary mode reprints the saved table" "$(tail -n +1 "$RESULTS_DIR/base/summary.txt")" "$("$RUN_BENCH" summary "$RESULTS_DIR/base")"
RUN_NAME='' "$RUN_BENCH" local >/dev/null 2>&1
check_match "default run name: a UTC timestamp" '^[0-9]{8}T[0-9]{6}Z$' "$(ls "$RESULTS_DIR" | grep -v -e base -e quote -e unquoted | head -n1)"

# --- the record: RESULTS, NOTE, CHANGE_STARTS; each node's inventory through the launcher ---
ln -sf "$abs_top_srcdir/scripts/nbw-results" "$TMPD/tools/nbw-results"
reset_fakes
RESULTS=$TMPD/record NOTE="new NIC firmware" CHANGE_STARTS=1 RUN_NAME=rec "$RUN_BENCH" baseline >"$TMPD/out" 2>"$TMPD/err"
check_eq "recorded baseline: exit status" 0 $?
check_match "recorded: said, with both nodes' inventory" \
	"^run_bench.sh: recorded [0-9a-f-]{36}: [0-9]+ figures, inventory of n1, n2, in $TMPD/record/runs.jsonl\$" "$(cat "$TMPD/err")"
check_eq "the inventories went through the launcher" "n1 n2" \
	"$(for f in "$TMPD"/calls/srun.*; do tr '\0' ' ' <"$f"; echo; done | grep -o -- '-w n[12] .*nbw-results inventory --host n[12]' | cut -d' ' -f2 | sort | tr '\n' ' ' | sed 's/ $//')"
NRJ=$("$PYTHON3" "$abs_top_srcdir/scripts/nbw-results" --db "$TMPD/record" show --json latest)
check_eq "the record: mode, note, change mark, inventoried nodes, command" \
	"baseline|new NIC firmware|True|['n1', 'n2']|run_bench.sh baseline" \
	"$(printf '%s' "$NRJ" | json_get /dev/stdin '"|".join(str(x) for x in (d["mode"], d["note"], d["change_starts"], sorted(d["inventory"]), " ".join(d["commands"][0].split()[-2:])))')"
check_eq "the record: the drives alone and together, per node" \
	"drive a0 n1|drive a1 n1|drives together n1|drive a1 n2" \
	"$(printf '%s' "$NRJ" | json_get /dev/stdin '"|".join("%s %s" % (f["rung"], f["node"]) for f in d["figures"])')"
reset_fakes
RESULTS=none RUN_NAME=norec "$RUN_BENCH" baseline >/dev/null 2>"$TMPD/err"
check_eq "RESULTS=none: no record, no inventory" "1 no" \
	"$(grep -c . "$TMPD/record/runs.jsonl") $([ -e "$RESULTS_DIR/norec/inventory" ] && echo yes || echo no)"
unset SINK_DISKS SRC_DISKS

# --- aggregate with the fake nvme_write_bw_remote --------------------------------
# expect_fail REGEX RUN_NAME: aggregate exits 1, a stderr line matches REGEX,
# the last one says FAILED.
expect_fail() {
	RUN_NAME=$2 timeout 60 "$RUN_BENCH" aggregate >"$TMPD/out" 2>"$TMPD/err"
	check_eq "$2: exit status" 1 $?
	check_match "$2: names the failing side" "$1" "$(cat "$TMPD/err")"
	check_match "$2: last line" '^run_bench.sh: aggregate: FAILED' "$(tail -n1 "$TMPD/err")"
}
export SINK_ADDR=10.0.0.1 RDMA_DEV=rxe0 DRAM=64M NET_TIMEOUT=1
reset_fakes
echo 1 >"$TMPD/fake/source.refuse"
RUN_NAME=agg "$RUN_BENCH" aggregate >"$TMPD/out" 2>"$TMPD/err"
check_eq "aggregate: exit status" 0 $?
check_eq "the source was retried after a refusal" 2 "$(cat "$TMPD/fake/source.tries")"
check_eq "sink JSON: role, total = local + RDMA" "sink True" \
	"$(json_get "$RESULTS_DIR/agg/aggregate-n1.json" '"%s %s" % (d["role"], d["total"]["bytes"] == d["local"]["bytes"] + d["rdma"]["bytes"])')"
check_eq "source JSON" source "$(json_get "$RESULTS_DIR/agg/aggregate-n2.json" 'd["role"]')"
check_eq "sink: -d, --wait, --dram, --json last" "rxe0 60 64M --json" \
	"$(grep -A1 -x -e -d -e --dram -e --wait "$TMPD/fake/argv.sink" | grep -v -e '^-' | tr '\n' ' ')$(tail -n1 "$TMPD/fake/argv.sink")"
check_eq "source: the sink's address last" 10.0.0.1 "$(tail -n1 "$TMPD/fake/argv.source")"
check_match "summary: sink row local/RDMA/total/ideal/%/verify" \
	'aggregate +n1 +sink +2 +0\.500 +0\.250 +0\.750 +1\.000 +75\.0 +pass' "$(cat "$TMPD/out")"
check_eq "no process left" "" "$(leftovers)"

reset_fakes
touch "$TMPD/fake/source.fail"
expect_fail 'source on n2 failed \(exit 1\): .*verification: FAIL' agg-srcfail
check_eq "no process left after a failed source" "" "$(leftovers)"

reset_fakes
touch "$TMPD/fake/sink.fail"
expect_fail 'sink on n1 failed \(exit 1\): .*Cannot allocate memory' agg-sinkfail
check_eq "no source started when the sink failed" no "$([ -e "$TMPD/fake/argv.source" ] && echo yes || echo no)"

# --- BIDIR=1: --bidir on both nodes, each naming the other ----------------------
expect_exit 2 'BIDIR=yes: 0 or 1' "${B[@]}" BIDIR=yes "$RUN_BENCH" aggregate
expect_exit 2 'BIDIR=1 is for aggregate .not local.' "${B[@]}" BIDIR=1 "$RUN_BENCH" local
reset_fakes
BIDIR=1 SRC_ADDR=10.0.0.2 SINK_DISKS=/dev/nvme9n1 RUN_NAME=bidir "$RUN_BENCH" aggregate >"$TMPD/out" 2>"$TMPD/err"
check_eq "BIDIR=1: exit status" 0 $?
check_eq "BIDIR=1: n1 --bidir, its drives as --disks, --dram, n2's address last" \
	"--bidir 64M /dev/nvme9n1 10.0.0.2" \
	"$(grep -x -e --bidir "$TMPD/fake/argv.sink") $(grep -A1 -x -e --disks -e --dram "$TMPD/fake/argv.sink" | grep -v -e '^-' | tr '\n' ' ')$(tail -n1 "$TMPD/fake/argv.sink")"
check_eq "BIDIR=1: n1 reads no drives as a sink" "" "$(grep -x -e --local-disks "$TMPD/fake/argv.sink")"
check_eq "BIDIR=1: n2 --bidir, n1's address last" "--bidir 10.0.0.1" \
	"$(grep -x -e --bidir "$TMPD/fake/argv.source") $(tail -n1 "$TMPD/fake/argv.source")"
check_eq "BIDIR=1: n1's JSON has both directions" "bidir source sink" \
	"$(json_get "$RESULTS_DIR/bidir/aggregate-n1.json" '" ".join((d["role"], d["send"]["role"], d["receive"]["role"]))')"
check_match "summary: n1 send row" 'aggregate +n1 +bidir send +1 +- +0\.200 .* pass' "$(cat "$TMPD/out")"
check_match "summary: n1 receive row" 'aggregate +n1 +bidir receive +0 +- +0\.300 .* pass' "$(cat "$TMPD/out")"
check_match "summary: n1 sum row" 'aggregate +n1 +bidir sum .* 0\.500 .* valid' "$(cat "$TMPD/out")"
check_match "summary: n2 send row" 'aggregate +n2 +bidir send +1 +- +0\.300' "$(cat "$TMPD/out")"
check_eq "run.json: BIDIR, SRC_ADDR" "1 10.0.0.2" \
	"$(json_get "$RESULTS_DIR/bidir/run.json" '"%s %s" % (d["settings"]["BIDIR"], d["settings"]["SRC_ADDR"])' 2>&1)"
check_eq "no process left (BIDIR=1)" "" "$(leftovers)"

# --- SRC_NODES: several sources into one sink (--sources N) ----------------------
expect_exit 2 'SRC_NODES is for aggregate .not local.' env SINK_NODE=n1 SRC_NODES="n2 n3" LAUNCHER=ssh "$RUN_BENCH" local
expect_exit 2 'SRC_NODES names no node' env SINK_NODE=n1 SRC_NODES=" " LAUNCHER=ssh "$RUN_BENCH" aggregate
expect_exit 2 'SRC_NODES names a node twice' env SINK_NODE=n1 SRC_NODES="n2 n2" SRC_NODE= LAUNCHER=ssh "$RUN_BENCH" aggregate
expect_exit 2 'same node: n1' env SINK_NODE=n1 SRC_NODES="n2 n1" SRC_NODE= LAUNCHER=ssh "$RUN_BENCH" aggregate
expect_exit 2 'BIDIR=1 takes one SRC_NODE' env SINK_NODE=n1 SRC_NODES="n2 n3" SRC_NODE= BIDIR=1 LAUNCHER=ssh "$RUN_BENCH" aggregate
reset_fakes
echo 1 >"$TMPD/fake/source.refuse"
env -u SRC_NODE SRC_NODES="n2 n3" RUN_NAME=fan "$RUN_BENCH" aggregate >"$TMPD/out" 2>"$TMPD/err"
check_eq "SRC_NODES: exit status" 0 $?
check_eq "SRC_NODES: the sink takes --sources 2, --json last" "2 --json" \
	"$(grep -A1 -x -e --sources "$TMPD/fake/argv.sink" | tail -n1) $(tail -n1 "$TMPD/fake/argv.sink")"
check_eq "SRC_NODES: a source ran on n2 and on n3 (one refused once, tried again)" "3 n2 n3" \
	"$(wc -l <"$TMPD/fake/calls.source") $(grep -o 'source on n[23] (try 1)' "$TMPD/err" | grep -o 'n[23]' | sort | tr '\n' ' ' | sed 's/ $//')"
check_match "SRC_NODES: the refused source was tried again" 'source on n[23] \(try 2\)' "$(cat "$TMPD/err")"
check_eq "SRC_NODES: JSON per node" "aggregate-n1.json aggregate-n2.json aggregate-n3.json" \
	"$(cd "$RESULTS_DIR/fan" && ls aggregate-*.json | tr '\n' ' ' | sed 's/ $//')"
check_match "summary: a row per source as the sink saw it" \
	'aggregate +n1 +from 10\.0\.0\.2 +1 +- +0\.250 .* pass' "$(cat "$TMPD/out")"
check_match "summary: the sink's total of both" 'aggregate +n1 +sink +3 +0\.500 +0\.500 +1\.000 ' "$(cat "$TMPD/out")"
check_match "summary: whether the total is a sum" 'aggregate +n1 +total is a sum .* valid' "$(cat "$TMPD/out")"
check_eq "run.json: SRC_NODES, nodes" "n2 n3 ['n1', 'n2', 'n3']" \
	"$(json_get "$RESULTS_DIR/fan/run.json" '"%s %s" % (d["settings"]["SRC_NODES"], d["nodes"])' 2>&1)"
check_eq "no process left (SRC_NODES)" "" "$(leftovers)"

# --- ladder: probe, baseline, fabric (+ ib_write_bw), aggregate, the report -----
# A fake probe (the reference fixture's JSON) and a fake perftest on PATH.
cat >"$TMPD/tools/nvme_link_probe" <<SH
#!/bin/bash
printf '%s\n' "\$@" >"$TMPD/fake/argv.probe.\$(hostname)"
cat "$FIXTURES/ladder/ref/probe-a.json"
SH
cat >"$TMPD/tools/ib_write_bw" <<'SH'
#!/bin/bash
# Fake perftest: no peer = server (waits for the client), a peer = client.
f=$(cd "$(dirname "$0")/../fake" && pwd)
last=${!#}
if [ "$last" = --report_gbits ]; then
	printf '%s\n' "$@" >"$f/argv.ib-server"
	for ((i = 0; i < 100; i++)); do [ -e "$f/ib.done" ] && exit 0; sleep 0.1; done
	exit 1
fi
printf '%s\n' "$@" >"$f/argv.ib-client"
touch "$f/ib.done"
printf ' #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n'
printf ' 65536      1000             0.00               8.00 		   0.015\n'
SH
# Fake iperf3: --version = 3.16 (one process for all streams), -s = a one-off
# server (waits for its client, at most 5 s, or 2 s with iperf.fail), -c = a
# client printing the fixture's JSON of -P 1 or 8; iperf.refuse holds how many
# client tries are refused first.
cat >"$TMPD/tools/iperf3" <<SH
#!/bin/bash
f=\$(cd "\$(dirname "\$0")/../fake" && pwd)
[ "\$1" = --version ] && { echo "iperf 3.16 (cJSON 1.7.15)"; exit 0; }
if [ "\$1" = -s ]; then
	printf '%s\n' "\$@" >"\$f/argv.iperf-server"
	n=50; [ -e "\$f/iperf.fail" ] && n=20
	for ((i = 0; i < n; i++)); do [ -e "\$f/iperf.done" ] && { rm -f "\$f/iperf.done"; cat "$FIXTURES/ladder/upper/tcp8-a.json"; exit 0; }; sleep 0.1; done
	exit 1
fi
printf '%s\n' "\$@" >"\$f/argv.iperf-client"
t=\$((\$(cat "\$f/iperf.tries" 2>/dev/null || echo 0) + 1))
echo "\$t" >"\$f/iperf.tries"
if [ "\$t" -le "\$(cat "\$f/iperf.refuse" 2>/dev/null || echo 0)" ] || [ -e "\$f/iperf.fail" ]; then
	printf '{"start": {}, "error": "unable to connect to server: Connection refused"}\n'
	exit 1
fi
touch "\$f/iperf.done"
p=\$(printf '%s\n' "\$@" | sed -n '/^-P\$/{n;p;}')
cat "$FIXTURES/ladder/upper/tcp\$p-b.json"
SH
chmod +x "$TMPD/tools/nvme_link_probe" "$TMPD/tools/ib_write_bw" "$TMPD/tools/iperf3"
make_pattern "$TMPD/l0" 4194304 0
make_pattern "$TMPD/l1" 4194304 1
unset DRAM
export SINK_DISKS=$TMPD/l0 SRC_DISKS=$TMPD/l0,$TMPD/l1 THREADS=2 CHUNK=64K TX_DEPTH=8 LAUNCHER="fake-srun -N1 -w"
export SINK_ADDR=10.0.0.1 RDMA_DEV=rxe0:1 NET_TIMEOUT=1
# The upper rungs: the fake iperf3 (a 1 MiB file for the sendfile rung); never this
# machine's NFS server nor rsync (tests/scripts/rsync_rungs.sh), no ping to SINK_ADDR
# (not loopback).
export IPERF3=$TMPD/tools/iperf3 EXPORTFS=/nonexistent/exportfs TCP_FILE_SIZE=1M PING=none RSYNC=none
expect_exit 2 'TCP_STREAMS="1 x": positive integers' env TCP_STREAMS="1 x" "$RUN_BENCH" check ladder
expect_exit 2 'NFS_VERS=5: 3, 4, 4.0, 4.1 or 4.2' env NFS_VERS=5 "$RUN_BENCH" check nfs
expect_exit 2 'NFS_SIZE=big: not a size' env NFS_SIZE=big "$RUN_BENCH" check nfs
expect_exit 2 'NFS_RDMA_PORT=0: not a port' env NFS_RDMA_PORT=0 "$RUN_BENCH" check ladder
expect_exit 2 'TX_DEPTH=0: not a positive integer' env TX_DEPTH=0 "$RUN_BENCH" check ladder
expect_exit 2 'SINK_NODE is not set' env -u SINK_NODE NODES=n1 "$RUN_BENCH" ladder
reset_fakes
rm -f "$TMPD/fake/ib.done"
RUN_NAME=ladder-noib IB_WRITE_BW=/nonexistent/ib_write_bw timeout 120 "$RUN_BENCH" ladder >"$TMPD/out" 2>"$TMPD/err"
check_eq "ladder without perftest: exit status" 0 $?
check_match "ladder without perftest: said so" '/nonexistent/ib_write_bw is not installed on n1: the perftest anchor is skipped' "$(cat "$TMPD/err")"
check_eq "ladder without an NFS server: one line saying what to install" \
	"run_bench.sh: /nonexistent/exportfs is not installed on n1: the NFS rungs are skipped (apt-get install nfs-kernel-server)" \
	"$(grep 'NFS rungs' "$TMPD/err")"
D=$RESULTS_DIR/ladder-noib
check_eq "ladder: the run directory" \
	"aggregate-n1.json aggregate-n2.json baseline-n1.json baseline-n2.json fabric-n1.json fabric-n2.json ladder.json ladder.txt memory-n1.json memory-n2.json nic-n1.txt nic-n2.txt probe-n1.json probe-n2.json run.json tcp-sysctl-n1.txt tcp1-n1.json tcp1-n2.json tcp8-n1.json tcp8-n2.json tcpcopy8-n1.json tcpcopy8-n2.json tcpfile-n1.json tcpfile-n2.json tcprev8-n1.json tcprev8-n2.json" \
	"$(cd "$D" && ls -- *.json *.txt | grep -v -e '^summary' | tr '\n' ' ' | sed 's/ $//')"
check_eq "ladder: --baseline on each node, its drives" "['l0 alone', 'l1 alone', '2 together'] 1" \
	"$(json_get "$D/baseline-n2.json" '[s["label"] for s in d["baseline"]]') $(json_get "$D/baseline-n1.json" 'len(d["drives"])')"
check_eq "ladder: --memory on each node with the readers' threads: 2 per drive" "4 2" \
	"$(json_get "$D/memory-n2.json" 'd["memory"][0]["threads"]') $(json_get "$D/memory-n1.json" 'd["memory"][0]["threads"]')"
check_eq "ladder: the probe ran with --json --topology" "--json --topology" "$(tr "\n" " " <"$TMPD/fake/argv.probe.$(hostname)" | sed "s/ $//")"
# The fabric pair ran before the aggregate pair; the fake keeps the last argv per role:
# aggregate's. Check the fabric's argv in the logs of run_bench.sh.
check_match "fabric sink: RDMA only, same -p -s -t -d" 'fabric: sink on n1: .*nvme_write_bw_remote -p 18515 -s 64K --warmup 0 -D 0.3 --timeout 1 -d rxe0:1 --tx-depth 8 --no-local --wait 60 --json' "$(cat "$TMPD/err")"
check_match "fabric source: from memory, THREADS x source drives QPs" 'fabric: source on n2 \(try 1\): .*--source mem -q 4 --json -- 10\.0\.0\.1' "$(cat "$TMPD/err")"
check_match "aggregate: the same -t" '^--tx-depth$' "$(cat "$TMPD/fake/argv.source")"
check_eq "ladder.json: rungs of n1" "link|drive l0|staging memory|fabric (mem)|end to end" \
	"$(json_get "$D/ladder.json" '"|".join(r["name"] for r in d["rungs"] if r["node"] == "n1")')"
check_eq "iperf3 server: one-off, PORT + 2, JSON" "-s -1 -p 18517 -J" "$(tr '\n' ' ' <"$TMPD/fake/argv.iperf-server" | sed 's/ $//')"
check_match "iperf3 client: the sink's address, one stream from the source's tmpfs file (the last run), zero-copy, DURATION" \
	'^-c 10\.0\.0\.1 -p 18517 -P 1 -F /dev/shm/nbw-tcpfile\.ladder-noib\.[0-9]+ -Z -t 1 -J( -A [0-9]+)?$' "$(tr '\n' ' ' <"$TMPD/fake/argv.iperf-client" | sed 's/ $//')"
check_eq "the sendfile rung's tmpfs file removed" "" "$(ls /dev/shm/nbw-tcpfile.ladder-noib.* 2>/dev/null)"
check_match "the receiver's socket buffer limits" '^net\.ipv4\.tcp_rmem = [0-9]+.[0-9]+.[0-9]+$' "$(sed -n 2p "$D/tcp-sysctl-n1.txt")"
check_eq "TCP rungs from the client's JSON: GB/s, retransmits" "8.10 12 24.80 615" \
	"$(json_get "$D/ladder.json" '" ".join("%.2f %d" % (r["measured_gb_per_s"], r["retransmits"]) for r in d["rungs"] if r["kind"] == "tcp" and r["name"].startswith("tcp ("))')"
check_eq "TCP variants: copy, reverse (the sink sends), file; one process each (iperf3 3.16)" \
	"tcp copy (8 streams) n2 -> n1 False 1|tcp reverse (8 streams) n1 -> n2 True 1|tcp from file (sendfile) n2 -> n1 True 1" \
	"$(json_get "$D/ladder.json" '"|".join("%s %s %s %d" % (r["name"], r["direction"], r["zero_copy"], r["processes"]) for r in d["rungs"] if r["kind"] == "tcp" and not r["name"].startswith("tcp ("))')"
check_eq "ladder.json: rungs of n2" "link|drive l0|drive l1|drives together|staging memory|tcp (1 stream)|tcp (8 streams)|tcp copy (8 streams)|tcp reverse (8 streams)|tcp from file (sendfile)|fabric (mem)|end to end (sent)" \
	"$(json_get "$D/ladder.json" '"|".join(r["name"] for r in d["rungs"] if r["node"] == "n2")')"
check_match "ladder.json: a binding rung and its reason" "^[a-z ]+ True$" "$(json_get "$D/ladder.json" 'd["binding"]["rung"], len(d["binding"]["reason"]) > 20' | tr -d "(),'")"
check_match "ladder: prints the table and the sentence" 'end to end +n1 +[0-9.]+' "$(cat "$TMPD/out")"
check_eq "ladder.txt = what it printed" "$(cat "$TMPD/out")" "$(cat "$D/ladder.txt")"
check_eq "summary of a ladder run: the ladder again" "$(cat "$D/ladder.txt")" "$("$RUN_BENCH" summary "$D")"
if command -v gnuplot >/dev/null; then
	check_eq "ladder.png: 900x500 by default" 900x500 "$("$PYTHON3" -c 'import struct,sys
h = open(sys.argv[1], "rb").read(24)
print("%dx%d" % struct.unpack(">II", h[16:24]) if h[:4] == b"\x89PNG" else "not a PNG")' "$D/ladder.png" 2>&1)"
fi
# With perftest on both nodes: server on the sink, client on the source, same -s -q -t -D.
reset_fakes
RUN_NAME=ladder-ib IB_WRITE_BW=$TMPD/tools/ib_write_bw timeout 120 "$RUN_BENCH" ladder >"$TMPD/out" 2>"$TMPD/err"
check_eq "ladder with perftest: exit status" 0 $?
check_eq "ib_write_bw server argv" "-d rxe0 -i 1 -p 18516 -s 65536 -q 4 -t 8 -D 1 --report_gbits" "$(tr '\n' ' ' <"$TMPD/fake/argv.ib-server" | sed 's/ $//')"
check_eq "ib_write_bw client argv: the sink's address last" "-d rxe0 -i 1 -p 18516 -s 65536 -q 4 -t 8 -D 1 --report_gbits 10.0.0.1" "$(tr '\n' ' ' <"$TMPD/fake/argv.ib-client" | sed 's/ $//')"
check_eq "ib_write_bw rung: 8 Gb/s = 1 GB/s" 1.0 "$(json_get "$RESULTS_DIR/ladder-ib/ladder.json" '[r["measured_gb_per_s"] for r in d["rungs"] if r["name"] == "ib_write_bw"][0]')"
# Under the ladder: the source's fabric rung (1.5 GB in 6 s) beside perftest's, their ratio.
check_eq "the ladder's last line: the fabric rung beside ib_write_bw, their ratio" \
	"fabric rung beside ib_write_bw on n2: nvme_write_bw_remote 0.2500 GB/s, ib_write_bw 1.0000 GB/s (8.00 Gb/s): ratio 0.25 (ours / ib_write_bw)" \
	"$(tail -n1 "$TMPD/out")"
check_eq "... in ladder.txt too" "$(tail -n1 "$TMPD/out")" "$(tail -n1 "$RESULTS_DIR/ladder-ib/ladder.txt")"
# No iperf3 on a node: the TCP rung skipped with one line, the ladder complete.
reset_fakes
RUN_NAME=ladder-noiperf IPERF3=/nonexistent/iperf3 IB_WRITE_BW=none timeout 120 "$RUN_BENCH" ladder >"$TMPD/out" 2>"$TMPD/err"
check_eq "ladder without iperf3: exit status" 0 $?
check_eq "ladder without iperf3: one line saying what to install" \
	"run_bench.sh: /nonexistent/iperf3 is not installed on n1: the TCP rung is skipped (apt-get install iperf3)" \
	"$(grep 'TCP rung' "$TMPD/err")"
check_eq "ladder without iperf3: no TCP rung, the others there" "0 True" \
	"$(json_get "$RESULTS_DIR/ladder-noiperf/ladder.json" '"%d %s" % (sum(r["kind"] == "tcp" for r in d["rungs"]), any(r["kind"] == "end_to_end" for r in d["rungs"]))')"
# Mode tcp alone: a refused client tried again; the rungs, no binding rung.
reset_fakes
echo 1 >"$TMPD/fake/iperf.refuse"
RESULTS=$TMPD/record-tcp RUN_NAME=tcp TCP_STREAMS=8 timeout 60 "$RUN_BENCH" tcp >"$TMPD/out" 2>"$TMPD/err"
check_eq "tcp: exit status" 0 $?
check_match "tcp alone: recorded into the history, as a ladder is" '^run_bench.sh: recorded [0-9a-f-]+: [1-9][0-9]* figures' "$(cat "$TMPD/err")"
check_eq "tcp alone: its rungs in the record" "tcp (8 streams) 24.80 tcp copy (8 streams) 24.80 tcp reverse (8 streams) 24.80 tcp from file (sendfile) 8.10" \
	"$("$PYTHON3" "$abs_top_srcdir/scripts/nbw-results" --db "$TMPD/record-tcp" show --json latest | json_get /dev/stdin '" ".join("%s %.2f" % (f["rung"], f["gb_per_s"]) for f in d["figures"] if f["rung"].startswith("tcp"))')"
check_match "tcp: the refused client tried again" 'tcp8: iperf3 client 1/1 on n2 \(try 2\)' "$(cat "$TMPD/err")"
check_match "tcp: the rung" '^tcp \(8 streams\) +n2 +24\.80 +- +- +0\.041$' "$(cat "$TMPD/out")"
check_match "tcp: no binding rung" '^no binding rung' "$(cat "$TMPD/out")"
check_eq "tcp: summary reprints it" "$(cat "$RESULTS_DIR/tcp/summary.txt")" "$("$RUN_BENCH" summary "$RESULTS_DIR/tcp")"
# A client that never connects: the one-off server is stopped, the mode fails.
reset_fakes
touch "$TMPD/fake/iperf.fail"
RUN_NAME=tcp-fail TCP_STREAMS=1 timeout 60 "$RUN_BENCH" tcp >"$TMPD/out" 2>"$TMPD/err"
check_eq "tcp, no server reached: exit status" 1 $?
check_match "tcp, no server reached: iperf3's own error" 'run_bench.sh: "error": "unable to connect to server' "$(cat "$TMPD/err")"
check_eq "tcp, no server reached: no process left" "" "$(leftovers)"
# A failing fabric: the ladder goes on to the end, says so, exits 1.
reset_fakes
touch "$TMPD/fake/source.fail"
RUN_NAME=ladder-fail IB_WRITE_BW=none timeout 120 "$RUN_BENCH" ladder >"$TMPD/out" 2>"$TMPD/err"
check_eq "ladder with a failing source: exit status" 1 $?
check_match "names the fabric's source" 'fabric: source on n2 failed \(exit 1\)' "$(cat "$TMPD/err")"
check_match "last line" '^run_bench.sh: ladder: FAILED' "$(tail -n1 "$TMPD/err")"
check_eq "no process left after the ladder" "" "$(leftovers)"
unset SINK_DISKS SRC_DISKS TX_DEPTH SINK_ADDR RDMA_DEV
export THREADS=1

# --- Ctrl-C (SIGINT to the process group) and SIGTERM: nothing left behind ---------
for sig in INT TERM; do
	reset_fakes
	touch "$TMPD/fake/source.hang"
	RUN_NAME=agg-$sig setsid env --default-signal=INT "$RUN_BENCH" aggregate >"$TMPD/out" 2>"$TMPD/err" &
	pid=$!
	for ((i = 0; i < 100; i++)); do [ -e "$TMPD/fake/argv.source" ] && break; sleep 0.1; done
	sleep 0.5
	check_match "SIG$sig: sink and source were running" 'nvme_write_bw_remote' "$(leftovers)"
	if [ "$sig" = INT ]; then kill -INT -- "-$pid"; else kill -TERM "$pid"; fi
	wait "$pid"
	rc=$?
	check_eq "SIG$sig: exit status" "$([ $sig = INT ] && echo 130 || echo 143)" "$rc"
	check_match "SIG$sig: says so" 'interrupted: stopping' "$(cat "$TMPD/err")"
	sleep 1
	check_eq "SIG$sig: no process left" "" "$(leftovers)"
done
finish
