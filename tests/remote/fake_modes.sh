#!/bin/bash
# fake_modes.sh: nvme_write_bw_remote's other modes over the fake fabric (no RDMA device):
# --bidir (two processes, each a sink and a source: both directions, their sum and its
# validity, text and JSON) and -a (from memory 2 bytes to 8 MiB, from a drive 64 KiB to
# 4 MiB; the curve and its verdict against the fake rails' line rate).
. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/remote/fake_lib.sh"

# --bidir: side A on .1 of both subnets, side B on .2; each names the other.
new_bidir() {
	local n=$1
	shift
	PORT=$((20000 + RANDOM % 40000))
	# shellcheck disable=SC2086
	NBW_FAKE_PORTS=$SINK_PORTS timeout 60 "$FAKE" -p "$PORT" --bidir $RUN --dram 4M --source mem \
		"$@" 127.0.1.2 >"$TMPD/$n-a.out" 2>"$TMPD/$n-a.err" &
	SINK_PID=$!
	SRC_RC=0
	# shellcheck disable=SC2086
	NBW_FAKE_PORTS=$SRC_PORTS timeout 60 "$FAKE" -p "$PORT" --bidir $RUN --dram 4M --source mem \
		"$@" 127.0.1.1 >"$TMPD/$n-b.out" 2>"$TMPD/$n-b.err" || SRC_RC=$?
	sink_status
}

new_bidir bj --json --min-overlap 10
check_eq "bidir: exits" "0 0" "$SINK_RC $SRC_RC"
declare -A sent got # by side: what it sent, what it received
for side in a b; do
	jv "bj-$side" 'sorted(d)' 'd["exit_status"], d["send"]["ok"], d["receive"]["ok"]' \
		'abs(d["bidir"]["sum_gb_per_s"] - d["bidir"]["send_gb_per_s"] - d["bidir"]["receive_gb_per_s"]) < 1e-3' \
		'd["send"]["role"], d["receive"]["role"]' 'd["send"]["verify"], d["receive"]["verify"]' \
		'abs(d["bidir"]["send_gb_per_s"] - d["send"]["rdma"]["gb_per_s"]) < 1e-3' \
		'd["bidir"]["sum_valid"], d["bidir"]["sum_invalid_reason"]' 'd["send"]["rdma"]["bytes"]' 'd["receive"]["rdma"]["bytes"]'
	check_eq "bidir $side: keys" "['bidir', 'exit_status', 'provenance', 'receive', 'role', 'send', 'tool', 'version']" "${J[0]}"
	check_eq "bidir $side: exit status 0, both roles ok" "(0, True, True)" "${J[1]}"
	check_eq "bidir $side: sum = send + receive" True "${J[2]}"
	check_eq "bidir $side: both roles" "('source', 'sink')" "${J[3]}"
	check_eq "bidir $side: both verified" "('pass', 'pass')" "${J[4]}"
	check_eq "bidir $side: the send figure is the source's" True "${J[5]}"
	# One second of window: no variation known for either direction, so not a sum.
	check_match "bidir $side: not a valid sum, each direction's variation unknown" \
		"^\(False, '.*send: variation unknown .*receive: variation unknown" "${J[6]}"
	sent[$side]=${J[7]} got[$side]=${J[8]}
done
check_eq "bidir: what A sent is what B received" "${sent[a]}" "${got[b]}"
check_eq "bidir: what B sent is what A received" "${sent[b]}" "${got[a]}"

new_bidir bt
check_eq "bidir text: exits" "0 0" "$SINK_RC $SRC_RC"
out=$(cat "$TMPD/bt-a.out")
check_match "bidir text: the sink's report" "NVMe -> RDMA WRITE -> remote DRAM bandwidth \(sink side\)" "$out"
check_match "bidir text: the source's report" "NVMe -> RDMA WRITE -> remote DRAM bandwidth \(source side\)" "$out"
check_match "bidir text: the sum" "[Ss]um" "$out"

# -a from memory: ib_write_bw -a's range, every power of two from 2 bytes to 8 MiB (23 sizes;
# 8M x 3 slots needs 24 MiB of the sink's locked DRAM). The sink learns the list from the
# source's kind in HELLO. Sizes below 4 KiB cannot be verified: each says off and why,
# never pass. Where RLIMIT_MEMLOCK forbids that (and no CAP_IPC_LOCK), the sink says so at
# once: skipped.
ulimit -l $((64 * 1024)) 2>/dev/null
MEM_SIZES=$("$PYTHON3" -c 'print([2 << i for i in range(23)])')
sink all -a --warmup 0 -D 0.2 --timeout 3 -t 2 --no-local --dram 32M --json
if grep -q "cannot lock" "$TMPD/all.err"; then
	sink_status
	echo "(-a skipped: $(head -n 1 "$TMPD/all.err"))"
else
	src all-src -a --warmup 0 -D 0.2 --timeout 3 -t 2 --source mem --json
	sink_status
	check_eq "-a: exits" "0 0" "$SINK_RC $SRC_RC"
	jv all '[s["params"]["chunk"] for s in d["sizes"]]' 'd["complete"]' \
		'[s["verify"] for s in d["sizes"]]' \
		'[round(p["gb_per_s"], 6) == round(s["rdma"]["gb_per_s"], 6) for p, s in zip(d["sweep"]["points"], d["sizes"])]' \
		'd["sweep"]["line_rate_gb_per_s"]' 'd["sweep"]["verdict"]["kind"]' \
		'sorted(d["sweep"]["verdict"])' 'd["sizes"][10]["verify_detail"]' 'len(d["sweep"]["points"])'
	check_eq "-a: 2 bytes to 8 MiB, 23 sizes" "$MEM_SIZES" "${J[0]}"
	check_eq "-a: complete" True "${J[1]}"
	check_eq "-a: below 4 KiB not verified, from 4 KiB each verified" \
		"$("$PYTHON3" -c 'print(["off"] * 11 + ["pass"] * 12)')" "${J[2]}"
	check_eq "-a: 2 KiB says why it is not verified" \
		"a message below 4 KiB: verification hashes whole 4 KiB blocks, this size is not verified" "${J[7]}"
	check_eq "-a: the curve's 23 points are the runs' rates" "23 $("$PYTHON3" -c 'print([True] * 23)')" "${J[8]} ${J[3]}"
	check_eq "-a: against the line rate of its one rail (one QP, 100 Gb/s)" "12.5" "${J[4]}"
	check_eq "-a: a verdict" "['flat_from', 'kind', 'max_gb_per_s', 'pct_of_ceiling', 'text']" "${J[6]}"
	jv all-src '[s["params"]["chunk"] for s in d["sizes"]]' 'd["complete"]' '[s["verify"] for s in d["sizes"]][10:12]'
	check_eq "-a: the source ran the same sizes" "$MEM_SIZES True ['off', 'pass']" "${J[0]} ${J[1]} ${J[2]}"
	# In text, a line per size as ib_write_bw -a (the whole reports only with --verbose):
	# #iterations = the WRITEs that landed, the peak = the average, MsgRate = rate / size.
	sink alltxt -a --warmup 0 -D 0.2 --timeout 3 -t 2 --no-local --dram 32M
	src alltxt-src -a --warmup 0 -D 0.2 --timeout 3 -t 2 --source mem
	sink_status
	check_eq "-a text: exits" "0 0" "$SINK_RC $SRC_RC"
	for f in alltxt alltxt-src; do
		check_match "-a text ($f): ib_write_bw's heading" \
			'^ #bytes +#iterations +BW peak\[MB/sec\] +BW average\[MB/sec\] +MsgRate\[Mpps\]$' \
			"$(cat "$TMPD/$f.out")"
		check_eq "-a text ($f): 23 lines from 2 to 8388608, iterations > 0, peak = average, MsgRate = BW / size" \
			"23 2 8388608 ok" \
			"$(awk '/^ [0-9]+ +[0-9]+ / { n++; if (!first) first = $1; last = $1
				split($4, f, "."); half = 0.5 / 10 ^ length(f[2]) * 1.048576 / $1 + 1e-6
				m = $4 * 1.048576 / $1; if (!($2 > 0 && $3 == $4 && ($5 - m) ^ 2 <= half ^ 2)) bad = 1 }
				END { print n, first, last, (bad ? "bad" : "ok") }' "$TMPD/$f.out")"
		check_match "-a text ($f): which sizes were verified" \
			'^ verification: PASS at 4096 to 8388608 bytes \(12 PASS, 0 FAIL, 0 not done\); 2 to 2048 bytes not verified \(11 sizes below 4 KiB: verification hashes whole 4 KiB blocks\)$' \
			"$(cat "$TMPD/$f.out")"
		check_eq "-a text ($f): no whole report" 0 "$(grep -c 'message size\|rail: local' "$TMPD/$f.out")"
	done
	# -a from a drive: the sizes the drive allows, 64 KiB to 4 MiB, the sink following.
	make_pattern "$TMPD/drive.img" $((32 << 20)) 7
	sink alldrv -a --warmup 0 -D 0.2 --timeout 3 -t 2 --no-local --dram 32M --json
	src alldrv-src -a --warmup 0 -D 0.2 --timeout 3 -t 2 -q 1 --disks "$TMPD/drive.img" --json
	sink_status
	check_eq "-a drive: exits" "0 0" "$SINK_RC $SRC_RC"
	for f in alldrv alldrv-src; do
		jv $f '[s["params"]["chunk"] for s in d["sizes"]]' 'd["complete"]' '{s["verify"] for s in d["sizes"]}'
		check_eq "-a drive ($f): 64 KiB to 4 MiB, complete, every size verified" \
			"[65536, 131072, 262144, 524288, 1048576, 2097152, 4194304] True {'pass'}" "${J[0]} ${J[1]} ${J[2]}"
	done
fi
finish
