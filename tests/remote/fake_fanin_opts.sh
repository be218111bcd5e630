#!/bin/bash
# fake_fanin_opts.sh: what works with one source works with --sources N:
# over the fake fabric (no RDMA device): --interval's live lines (each source's rate, the
# local drives', their sum, the total), --dump-slice (source i's worker 0 slice in FILE.i,
# its map in FILE.i.map) and -a (a fan-in round per size, the curve of the sources' sum).
. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/remote/fake_lib.sh"
SRC3_PORTS="fake0:1:eth:127.0.1.3/24:100,fake1:1:eth:127.0.2.3/24:100"

# 1. Two sources, one from memory (2 workers), one from a file (1 worker, pattern id 1),
# the sink reading a file of its own, live lines every 0.3 s, every slot verified and dumped.
f=$TMPD/src.img
g=$TMPD/local.img
make_pattern "$f" $((8 * 1024 * 1024)) 1
make_pattern "$g" $((8 * 1024 * 1024)) 2
V="--verify full -D 1.5"
# shellcheck disable=SC2086
sink live $RUN $V --sources 2 --local-disks "$g" -q 1 --dram 8M --json --interval 0.3 \
	--max-cv 100 --min-overlap 10 --dump-slice "$TMPD/fan"
# shellcheck disable=SC2086
src live-a $RUN $V --source mem -q 2 --json &
# shellcheck disable=SC2086
SRC_FAKE_PORTS=$SRC3_PORTS src live-b $RUN $V --disks "$f" -q 1 --json
B_RC=$SRC_RC
wait $! && A_RC=0 || A_RC=$?
sink_status
check_eq "live: exits (sink, A, B)" "0 0 0" "$SINK_RC $A_RC $B_RC"
jv live 'd["ok"], d["verify"]' 'sorted((s["source"], s["workers"], s["verify"]) for s in d["sources"])' \
	'" ".join("%d:%s" % (s["index"], s["source"]) for s in d["sources"])'
check_eq "live: ok, verified" "(True, 'pass')" "${J[0]}"
check_eq "live: a memory source of 2 workers, a drive source of 1" \
	"[('disk', 1, 'pass'), ('mem', 2, 'pass')]" "${J[1]}"

# --dump-slice: FILE.i holds source i's worker 0 slice at every slot its map names: the
# memory pattern (0x4d << 56 | worker << 40 | offset) or the file's (0x56 << 56 | id << 48
# | offset); no FILE without a number.
# shellcheck disable=SC2086 # the slots, a word each
"$PYTHON3" - "$TMPD/fan" ${J[2]} >"$TMPD/dumps" <<'EOF'
import os, struct, sys
base = sys.argv[1]
out = ["bare" if os.path.exists(base) else "numbered"]
for arg in sys.argv[2:]:
    i, kind = arg.split(":")
    path = "%s.%s" % (base, i)
    data = open(path, "rb").read()
    slots = bad = 0
    for line in open(path + ".map"):
        slot, off, ln = (int(x) for x in line.split())
        words = struct.unpack_from("<%dQ" % (ln // 8), data, slot * 65536)
        slots += 1
        top = 0x4d << 56 if kind == "mem" else 0x56 << 56 | 1 << 48
        bad += sum(1 for k, w in enumerate(words) if w != top | (off + 8 * k))
    out.append("%s:%s:%d" % (kind, slots > 1, bad))
print(" ".join(sorted(out)))
EOF
check_eq "live: each source's slice in FILE.i holds its own data at every mapped slot" \
	"disk:True:0 mem:True:0 numbered" "$(cat "$TMPD/dumps")"

# --interval: on stderr beside JSON, a line per interval: s1 s2 local rdma total, the RDMA
# the sum of the sources and the total the RDMA plus the local drive (2 decimals each).
"$PYTHON3" - "$TMPD/live.err" >"$TMPD/lines" <<'EOF'
import re, sys
full = ok = both = 0
pat = re.compile(r"^\[ *[0-9.]+s\]  s1 (\S+)  s2 (\S+)  local (\S+)  rdma (\S+)(?:  total (\S+))? ")
for line in open(sys.argv[1]):
    m = pat.match(line)
    if not m or "-" in m.groups()[:4] or m.group(5) is None:
        continue
    s1, s2, loc, rdma, total = (float(x) for x in m.groups())
    full += 1
    ok += abs(s1 + s2 - rdma) <= 0.015 and abs(rdma + loc - total) <= 0.015
    both += s1 > 0 and s2 > 0 and loc > 0
print(full >= 2, full == ok, both > 0)
EOF
check_eq "live: >= 2 whole lines, each rdma = s1 + s2 and total = rdma + local, all moving" \
	"True True True" "$(cat "$TMPD/lines")"

# 2. -a with two memory sources: a fan-in round at every size from 2 bytes to 8 MiB (8M x
# 3 slots for each of the two needs 48 MiB of locked DRAM; skipped where RLIMIT_MEMLOCK
# forbids it); below 4 KiB a round is not verified and says so.
# The sink's fake0 carries 150 Gb/s: both sources' one rail (100 Gb/s each) lands there,
# so the curve's ceiling is 150 Gb/s, not a source's 100 nor both rails' 200.
ulimit -l $((64 * 1024)) 2>/dev/null
A="-a --warmup 0 -D 0.2 --timeout 3 -t 2"
# shellcheck disable=SC2086
SINK_FAKE_PORTS="fake0:1:eth:127.0.1.1/24:150,fake1:1:eth:127.0.2.1/24:100" \
	sink all $A --sources 2 --no-local --dram 56M --json
if grep -q "cannot lock" "$TMPD/all.err"; then
	sink_status
	echo "(-a skipped: $(head -n 1 "$TMPD/all.err"))"
	finish
	exit
fi
# shellcheck disable=SC2086
src all-a $A --source mem -q 1 --json &
# shellcheck disable=SC2086
SRC_FAKE_PORTS=$SRC3_PORTS src all-b $A --source mem -q 1 --json
B_RC=$SRC_RC
wait $! && A_RC=0 || A_RC=$?
sink_status
check_eq "-a: exits (sink, A, B)" "0 0 0" "$SINK_RC $A_RC $B_RC"
jv all '[s["params"]["chunk"] for s in d["sizes"]]' 'd["complete"]' \
	'[(s["sources_admitted"], s["verify"]) for s in d["sizes"]]' \
	'[round(p["gb_per_s"], 6) == round(s["rdma"]["gb_per_s"], 6) for p, s in zip(d["sweep"]["points"], d["sizes"])]' \
	'[abs(s["rdma"]["gb_per_s"] - sum(x["rdma"]["gb_per_s"] for x in s["sources"])) <= 1e-4 * s["rdma"]["gb_per_s"] for s in d["sizes"]]' \
	'd["sweep"]["line_rate_gb_per_s"]' 'sorted(d["sweep"]["verdict"])' \
	'[[(r["local_dev"], r["line_rate_gb_per_s"]) for x in s["sources"] for r in x["rails"]] for s in d["sizes"][:1]]'
check_eq "-a: 2 bytes to 8 MiB" "$("$PYTHON3" -c 'print([2 << i for i in range(23)])')" "${J[0]}"
check_eq "-a: complete" True "${J[1]}"
check_eq "-a: both sources in every round, verified from 4 KiB" \
	"$("$PYTHON3" -c 'print([(2, "off")] * 11 + [(2, "pass")] * 12)')" "${J[2]}"
check_eq "-a: the curve's points are the rounds' RDMA sums" "$("$PYTHON3" -c 'print([True] * 23)')" "${J[3]}"
check_eq "-a: each round's RDMA is its sources' rates added" "$("$PYTHON3" -c 'print([True] * 23)')" "${J[4]}"
check_eq "-a: each source's one rail into the sink's fake0, 100 Gb/s" \
	"[[('fake0', 12.5), ('fake0', 12.5)]]" "${J[7]}"
check_eq "-a: against their rails together, at most the sink port's 150 Gb/s" "18.75" "${J[5]}"
check_eq "-a: a verdict" "['flat_from', 'kind', 'max_gb_per_s', 'pct_of_ceiling', 'text']" "${J[6]}"
jv all-a 'len(d["sizes"]), d["complete"]'
check_eq "-a: source A ran every size" "(23, True)" "${J[0]}"
jv all-b 'len(d["sizes"]), d["complete"]'
check_eq "-a: source B ran every size" "(23, True)" "${J[0]}"
finish
