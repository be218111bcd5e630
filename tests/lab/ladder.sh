#!/bin/bash
# Lab test of scripts/run_bench.sh ladder on two nodes: node a runs it with
# LAUNCHER=scripts/vlab.d/launch (node b serves it with launch-agent). Checks
# ladder.json: rungs for the link, each drive alone, the drives together, the
# fabric and end to end on both nodes, each with a measured figure and a
# ceiling where one exists (drives: their PCIe link), and a binding rung
# consistent with the numbers (here the rxe fabric binds: it carries far less
# than b's drives read) and named as in the rungs; then draws ladder.png on the
# host and reads its size. The upper rungs are skipped here, each with its line
# (IPERF3=none, EXPORTFS=none), and the ladder runs twice, both recorded by
# run_bench.sh into node a's out/record: on the host, nbw-results list, show,
# compare, trend and check against a reference from the first
# (ladder_check.py says what each must print). With LADDER_UPPER=1 (tests/lab/ladder_upper.sh,
# make check-slow) they run: TCP with 1 and 8 streams (iperf3, zero-copy), the
# copy and the reverse at 8 and one stream from a tmpfs file, with their
# directions, processes and NIC evidence; NFS over RDMA and over TCP (the
# kernel's server on a, a tmpfs export, two mounts on b) read and written (fio),
# each above zero, the mounts' rsize, the random 4 KiB table (or the line saying
# nvme_read_bw lacks --pattern); rsync to a daemon on a (1 and 8 streams) and over
# ssh (an sshd of the test's own on a, tests/lab/ssh_lab.sh) beside ssh's one-stream
# ceiling, each above zero; and nothing left on either node (mounts, exports, nfsd,
# daemons, iperf3, fio, written files, the tmpfs file, rsync's daemon and tmpfs, the
# sshd and its keys); the user's transfer (through ssh) on the ladder with its gap.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lab_lib.sh"

upper=${LADDER_UPPER:+upper} limit=700
[ -z "$upper" ] || limit=900
run_lab --nodes 2 --drives 2 --drive-size 64M --links 8:4,16:4 --timeout "$limit" \
	--on-b "$srcdir/tests/lab/ladder_b.sh" "$srcdir/tests/lab/ladder_a.sh" ${upper:+"$upper"}
[ "$vlab_rc" = 0 ] || fail "vlab returned $vlab_rc"
assert_no_qemu
D=$WORK/a/out/results/ladder
[ "$(cat "$WORK/a/out/ladder.rc" 2>/dev/null)" = 0 ] ||
	fail "run_bench.sh ladder exited $(cat "$WORK/a/out/ladder.rc" 2>/dev/null || echo '(none)')"
L=$D/ladder.json
[ -r "$L" ] || fail "no ladder.json in $D"
check() { # check EXPR WHAT: EXPR on ladder.json (d; rungs of node n: R(n)) must be True
	local got
	got=$("$PY" -c 'import json,sys
d = json.load(open(sys.argv[1]))
R = lambda n: [r for r in d["rungs"] if r["node"] == n]
G = lambda name, n: [r for r in d["rungs"] if r["name"] == name and r["node"] == n][0]
print(eval(sys.argv[2]))' "$L" "$1" 2>&1)
	[ "$got" = True ] || fail "$2 ($1: $got)"
}
for n in a b; do
	check "[r['name'] for r in R('$n')][:4] == ['link', 'drive nvme0n1', 'drive nvme1n1', 'drives together']" "rungs of $n: link, each drive, together"
	check "all(r['measured_gb_per_s'] and r['measured_gb_per_s'] > 0 for r in R('$n') if r['kind'] != 'link')" "every rung of $n but its link (a ceiling) measured"
	# The lab's emulated drives may read above their emulated link: flagged, no %.
	check "all(r['ceiling_gb_per_s'] and (r['pct_of_ceiling'] or r['above_ceiling'] is True and r['pct_of_ceiling'] is None) for r in R('$n') if r['name'].startswith('drive'))" "drive rungs of $n: a link ceiling and a %, or flagged above it"
	check "abs(G('drives together', '$n')['ceiling_gb_per_s'] - sum(r['ceiling_gb_per_s'] for r in R('$n') if r['name'].startswith('drive n'))) < 1e-6" "together: ceiling = the sum of the drives'"
	check "any(r['name'] == 'fabric (mem)' for r in R('$n'))" "fabric rung on $n"
	# The memory the lab's firmware describes (python/nbw/lab/qemu.py: one DDR4-3200
	# channel in SMBIOS, no EDAC): its ceiling read from the DIMM's locator and speed.
	check "G('staging memory', '$n')['measured_gb_per_s'] > 0 and round(G('staging memory', '$n')['ceiling_gb_per_s'], 3) == 25.6 and 'SMBIOS locators' in G('staging memory', '$n')['ceiling_source']" "staging memory rung of $n: a figure and its ceiling (1 channel x 3200 MT/s x 64 bits)"
done
check "any(r['name'] == 'end to end' for r in R('a')) and any(r['name'] == 'end to end (sent)' for r in R('b'))" "end-to-end rungs"
check "abs(G('end to end', 'a')['ceiling_gb_per_s'] - G('drives together', 'a')['measured_gb_per_s'] - min(G('drives together', 'b')['measured_gb_per_s'], G('fabric (mem)', 'b')['measured_gb_per_s'])) < 1e-6" "end to end: ceiling = the sum of the rungs below"
check "[(r['name'], r['node']) for r in d['rungs'] if r['name'] == d['binding']['name'] and r['node'] == d['binding']['node']] == [('fabric (mem)', 'b')]" "the binding rung named as in rungs"
if [ -n "$upper" ]; then
	check "[r['name'] for r in R('b') if r['kind'] == 'tcp'] == ['tcp (1 stream)', 'tcp (8 streams)', 'tcp copy (8 streams)', 'tcp reverse (8 streams)', 'tcp from file (sendfile)']" "TCP rungs: 1 and 8 streams, the copy, the reverse, the file, from b"
	check "all(r['measured_gb_per_s'] > 0 and r['receiver_cpu_s_per_gib'] is not None for r in d['rungs'] if r['kind'] == 'tcp')" "TCP rungs measured, with the receiver's CPU"
	check "[(r['direction'], r['zero_copy']) for r in R('b') if r['kind'] == 'tcp'] == [('b -> a', True)] * 2 + [('b -> a', False), ('a -> b', True), ('b -> a', True)]" "TCP rungs: directions and zero-copy"
	check "all(r['processes'] in (1, r['streams']) and 'retransmits' in r and 'line_rate_gb_per_s' in r and 'pct_of_line' in r and set(r['nic_counters']) == {'a', 'b'} for r in R('b') if r['kind'] == 'tcp')" "TCP rungs: processes, retransmits, line rate, both ends' NIC counters"
	if "$PY" -c 'import json,sys; sys.exit(not any(r.get("processes", 1) > 1 for r in json.load(open(sys.argv[1]))["rungs"]))' "$L"; then
		grep -Eq '^iperf3 [0-9.]+ < 3\.16: 8 streams as 8 processes' "$D/ladder.txt" || fail "8 streams ran as processes and the ladder does not say so"
	fi
	grep -Eq '^NIC: b [^;]* MTU [0-9]+, link [^;]*; a [^;]* MTU [0-9]+, link [^;]*; path MTU probe of 9000 bytes: (passed|failed|not run)' "$D/ladder.txt" ||
		fail "no NIC line (both ends' MTU and link, the path-MTU probe) under the ladder"
	# The lab's virtio NICs have no pause counters: said missing, never guessed.
	grep -Eq '^NIC counters missing on (a|b) \(not guessed\): ' "$D/ladder.txt" || fail "the lab's missing NIC counters are not said"
	check "G('nfs write (rdma)', 'b')['measured_gb_per_s'] > 0 and G('nfs write (tcp)', 'b')['measured_gb_per_s'] > 0" "NFS writes over RDMA and over TCP measured"
	check "[(G('nfs write (%s)' % p, 'b')['writer'], G('nfs write (%s)' % p, 'b')['nfs_bs'], G('nfs write (%s)' % p, 'b')['nfs_jobs'], G('nfs write (%s)' % p, 'b')['op']) for p in ('rdma', 'tcp')] == [('fio', 1048576, 2, 'write')] * 2" "NFS writes: fio, 1 MiB blocks, 2 writers recorded"
	check "G('nfs_rdma', 'b')['op'] == 'read' and G('nfs_tcp', 'b')['op'] == 'read'" "NFS reads marked as reads"
	check "G('nfs_rdma', 'b')['measured_gb_per_s'] > 0 and G('nfs_tcp', 'b')['measured_gb_per_s'] > 0" "NFS over RDMA and over TCP measured"
	check "(G('nfs_rdma', 'b')['proto'], G('nfs_tcp', 'b')['proto'], G('nfs_rdma', 'b')['rsize'] > 0) == ('rdma', 'tcp', True)" "the mounts' proto and rsize recorded"
	check "G('nfs_rdma', 'b')['ceiling_rung'] == 'fabric (mem)' and G('nfs_tcp', 'b')['ceiling_rung'] == 'tcp (1 stream)'" "NFS against its transport"
	if grep -q 'has no --pattern' "$WORK/a/out/ladder.err"; then
		note "nvme_read_bw has no --pattern here: the random 4 KiB table was skipped"
	else
		check "[r['depth'] for r in d['nfs_random']] == [8, 16, 32] and all(r[p]['iops'] > 0 for r in d['nfs_random'] for p in ('rdma', 'tcp'))" "random 4 KiB table at depths 8, 16, 32"
	fi
	check "[r['name'] for r in R('b') if r['kind'] == 'rsync'] == ['rsync daemon (1 stream)', 'rsync daemon (8 streams)', 'rsync over ssh']" "rsync rungs from b: the daemon at 1 and 8 streams, over ssh"
	check "all(r['measured_gb_per_s'] > 0 and r['bytes'] > 0 for r in d['rungs'] if r['kind'] == 'rsync')" "every rsync rung above zero"
	check "G('rsync over ssh', 'b')['ssh_cipher_gb_per_s'] > 0 and G('rsync over ssh', 'b')['ceiling_gb_per_s'] == G('rsync over ssh', 'b')['ssh_cipher_gb_per_s'] and G('rsync over ssh', 'b')['ceiling_rung'] == 'ssh (one stream)'" "rsync over ssh: ssh's one-stream ceiling beside it"
	# ssh's rung says what caps it; the user's transfer (TRANSFER_CMD through ssh) sits on
	# the ladder under a rung, with its gap from the top synthetic rung.
	check "any('ssh' in w and 'cipher' in w for w in d['why'])" "a why sentence names ssh's cipher"
	check "G('transfer', 'b')['measured_gb_per_s'] > 0 and G('transfer', 'b')['exit_status'] == 0 and G('transfer', 'b')['bytes'] == 8 << 20" "the transfer rung: 8 MiB through ssh, exit 0, above zero"
	check "bool(G('transfer', 'b')['under_rung']) and G('transfer', 'b')['gap_pct_of_top'] > 0" "the transfer under a rung, its gap from the top rung"
	grep -q 'the transfer ran at' "$D/ladder.txt" || fail "no headline gap line for the transfer in ladder.txt"
	[ -e "$WORK/a/out/leftovers.txt" ] || fail "no leftovers.txt: the nodes were not inspected"
	[ ! -s "$WORK/a/out/leftovers.txt" ] || fail "left behind: $(tr '\n' ';' <"$WORK/a/out/leftovers.txt")"
else
	for rung in "TCP rung" "NFS rungs" "rsync rungs"; do
		grep -q "=none: the $rung .* skipped" "$WORK/a/out/ladder.err" || fail "no line saying the $rung was skipped"
	done
fi
check "d['binding']['rung'] == 'fabric' and G('fabric (mem)', 'b')['measured_gb_per_s'] < 0.9 * G('drives together', 'b')['measured_gb_per_s']" "the fabric binds, and its numbers say so"
cat "$D/ladder.txt"
if [ -z "$upper" ]; then
	[ "$(cat "$WORK/a/out/ladder-2.rc" 2>/dev/null)" = 0 ] ||
		fail "the second ladder exited $(cat "$WORK/a/out/ladder-2.rc" 2>/dev/null || echo '(none)'): $(tail -n3 "$WORK/a/out/ladder-2.err")"
	"$PY" "$srcdir/tests/lab/ladder_check.py" "$srcdir/scripts/nbw-results" "$WORK/a/out" "$WORK" ||
		fail "the record of the two ladders"
fi

command -v gnuplot >/dev/null || fail "gnuplot is missing: apt-get install gnuplot-nox (scripts/quickstart does)"
[ -e "$D/ladder.png" ] || "$srcdir/scripts/ladder_report" --no-write --png "$D/ladder.png" --size 900x500 "$D" >/dev/null ||
	fail "ladder_report --png failed"
size=$("$PY" -c 'import struct,sys
h = open(sys.argv[1], "rb").read(24)
assert h[:8] == b"\x89PNG\r\n\x1a\n" and h[12:16] == b"IHDR", "not a PNG"
print("%dx%d" % struct.unpack(">II", h[16:24]))' "$D/ladder.png") || fail "ladder.png is not a PNG"
[ "$size" = 900x500 ] || fail "ladder.png is $size, asked for 900x500"
note "ladder.png: $size"
assert_images_unchanged a
assert_images_unchanged b
echo "PASS: $test_name"
