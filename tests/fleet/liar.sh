#!/bin/bash
# nbw-fleet run with a lying node (the fake tools of tests/fleet/fakes behind wrappers
# that lie on one node): what a node returns is untrusted and changes no verdict but
# its own. A probe nested 100,000 deep and a read of 40 MiB are noted and left out,
# the host's memory stays bounded and the others are judged; an `ip` answer that is an
# option (--dump-slice=.bashrc) skips that node in one line and reaches no tool; control
# bytes in a node's error lines reach no terminal; a node claiming 12 drives at 35 GB/s
# makes no healthy node a suspect and is named itself; a node claiming 999 GB/s on a
# 12.5 GB/s port is named itself ("claims more than its port can carry"), no figure above it.
# shellcheck disable=SC2016 # the wrappers' text is theirs to expand
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"

T=$TMPD/tools
mkdir -p "$T"
# wrap TOOL CASE: TOOL runs the fake unless CASE (shell, on the liar) says otherwise.
wrap() {
	printf '#!/bin/bash\nLIAR=$(cat "$FAKE_DIR/liar" 2>/dev/null)\nif [ "$FAKE_NODE" = "$LIAR" ]; then\n%s\nfi\nexec "%s/%s" "$@"\n' \
		"$2" "$FAKES" "$1" >"$T/$1"
	chmod +x "$T/$1"
}
wrap nvme_link_probe '[ -e "$FAKE_DIR/nest" ] && { head -c 100000 /dev/zero | tr "\0" "["; head -c 100000 /dev/zero | tr "\0" "]"; exit 0; }'
wrap nvme_read_bw 'case "$*" in *--baseline*)
	if [ -e "$FAKE_DIR/huge" ]; then printf "{\"tool\":\"nvme_read_bw\",\"x\":\""; head -c 41943040 /dev/zero | tr "\0" a; echo "\"}"; exit 0; fi
	if [ -e "$FAKE_DIR/twelve" ]; then
		printf "{\"tool\":\"nvme_read_bw\",\"drives\":["
		for i in $(seq 0 11); do printf "%s{\"name\":\"nvme%dn1\",\"model\":\"FAKE\",\"gb_per_s\":35,\"link_ceiling_gb_per_s\":3.6}" "$([ $i = 0 ] || echo ,)" $i; done
		printf "],\"baseline\":["
		for i in $(seq 0 11); do printf "%s{\"label\":\"nvme%dn1 alone\",\"gb_per_s\":35}" "$([ $i = 0 ] || echo ,)" $i; done
		printf "],\"total\":{\"gb_per_s\":420}}\n"; exit 0
	fi ;; esac'
# $FAKE_DIR/rate: the liar's own documents say 999 GB/s (80 x its port's 12.5 GB/s).
wrap nvme_write_bw_remote '[ -e "$FAKE_DIR/esc" ] && { "$FAKE_DIR/../tools/.remote" "$@"; rc=$?; printf "nvme_write_bw_remote: \033]0;owned\007\033[2J\r fake\n" >&2; exit $rc; }
[ -e "$FAKE_DIR/rate" ] && { "$FAKE_DIR/../tools/.remote" "$@" | sed -E "s/\"gb_per_s\":[0-9.e+-]+/\"gb_per_s\":999/g"; exit "${PIPESTATUS[0]}"; }'
ln -s "$FAKES/nvme_write_bw_remote" "$T/.remote"
export TOOL_DIR=$T
peak() { # peak RSS (KiB) of the command's processes, on stderr's last line
	"$PYTHON3" -c 'import resource, subprocess, sys
rc = subprocess.call(sys.argv[1:])
sys.stderr.write("peak %d\n" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(rc)' "$@"
}

# A nested probe, a read of 40 MiB, error lines with control bytes: all from n3.
echo n3 >"$FAKE_DIR/liar"
touch "$FAKE_DIR/nest" "$FAKE_DIR/huge" "$FAKE_DIR/esc" "$FAKE_DIR/fail.n3.mlx5_0"
S=$TMPD/s1
peak "${FLEET[@]}" run --nodes n1,n2,n3 --no-remote --out "$S" --duration 1 --warmup 0 \
	--retest-duration 1 --retest-warmup 0 >"$TMPD/out" 2>"$TMPD/err"
check_eq "hostile answers: exit 0, no traceback" "0 0" "$? $(grep -c Traceback "$TMPD/err")"
check_eq "the judgement written, the others judged" "[('n1', 'PASS'), ('n2', 'PASS'), ('n3', 'NOT MEASURED')]" \
	"$(json_get "$S/judge.json" 'sorted((v["node"], v["verdict"]) for v in d["verdicts"])')"
check_eq "the nested probe and the large read: why, not kept" \
	"nested deeper than 64 levels|its output is larger than 16 MiB: not kept" \
	"$(json_get "$S/sweep.json" '"|".join(f["reason"].split(" (")[0] for f in sorted(d["failed"], key=lambda f: f["part"]) if f["part"].startswith("nodes/n3/"))')"
check_eq "nothing of them in the sweep's directory" "no" "$([ -e "$S/nodes/n3/read.json" ] || [ -e "$S/nodes/n3/probe.json" ] && echo yes || echo no)"
p=$(sed -n 's/^peak //p' "$TMPD/err")
check_eq "the host's peak memory bounded (40 MiB read; $p KiB)" yes "$([ "$p" -lt 200000 ] && echo yes || echo no)"
check_eq "no control byte on the terminal (stdout, stderr)" "0" \
	"$(cat "$TMPD/out" "$TMPD/err" | tr -d '\n' | LC_ALL=C grep -c '[[:cntrl:]]')"
check_match "the control bytes shown escaped" '\\x1b\]0;owned\\x07' "$(cat "$TMPD/out" "$TMPD/err")"

# --rdma-netdev: n3's ip answers an option as its address.
rm -f "$FAKE_DIR"/nest "$FAKE_DIR"/huge "$FAKE_DIR"/esc "$FAKE_DIR"/fail.* "$FAKE_DIR/peers"
cat >"$TMPD/bin/ip" <<'SH'
#!/bin/bash
a=10.0.0.${FAKE_NODE#n}
[ "$FAKE_NODE" = n3 ] && a=--dump-slice=.bashrc
echo "4: ib0    inet $a/24 brd 10.0.0.255 scope global ib0"
SH
chmod +x "$TMPD/bin/ip"
A=$TMPD/s2
"${FLEET[@]}" run --nodes n1,n2,n3,n4 --rdma-netdev ib0 --no-remote --out "$A" --duration 1 \
	--warmup 0 --retest-duration 1 --retest-warmup 0 >"$TMPD/out" 2>"$TMPD/err"
check_eq "an option as address: exit 0" 0 $?
check_eq "... n3 skipped, the others' addresses" "{'n1': '10.0.0.1', 'n2': '10.0.0.2', 'n4': '10.0.0.4'} ['n3']" \
	"$(json_get "$A/sweep.json" '"%s %s" % (dict(sorted(d["addresses"].items())), [s["node"] for s in d["skipped"]])')"
check_match "... in one line" "^nbw-fleet: n3: skipped \\(no IPv4 address on ib0 \\(--rdma-netdev\\): ip answered '--dump-slice=\\.bashrc/24', not a numeric IPv4 address\\)\$" "$(cat "$TMPD/err")"
check_eq "... no tool was given it" "10.0.0.1 10.0.0.2 10.0.0.4" "$(sort -u "$FAKE_DIR/peers" | tr '\n' ' ' | sed 's/ $//')"
rm -f "$TMPD/bin/ip"
expect_exit 2 "node name '-oProxyCommand'" "${FLEET[@]}" run --nodes n1,-oProxyCommand --out "$TMPD/x"
printf 'n1\n..\n' >"$TMPD/hosts"
"${FLEET[@]}" run --hostfile "$TMPD/hosts" --out "$TMPD/x" 2>"$TMPD/err"
check_eq "a hostfile naming ..: exit 2" 2 $?
check_match "... refused" "hosts:2: '\\.\\.': not a node name" "$(cat "$TMPD/err")"

# n4 claims 12 drives at 35 GB/s.
echo n4 >"$FAKE_DIR/liar"
touch "$FAKE_DIR/twelve"
D=$TMPD/s3
"${FLEET[@]}" run --nodes n1,n2,n3,n4 --out "$D" --duration 1 --warmup 0 \
	--retest-duration 1 --retest-warmup 0 >"$TMPD/out" 2>"$TMPD/err"
check_eq "12 drives at 35 GB/s: exit" 0 $?
check_eq "... no healthy node a suspect; the liar named" \
	"[('n1', 'PASS', ''), ('n2', 'PASS', ''), ('n3', 'PASS', ''), ('n4', 'SUSPECT', '12 drives claims 35 GB/s (claims more than its link can carry); drives together claims 420 GB/s (claims more than its links can carry); 10 drives its probe does not show -')]" \
	"$(json_get "$D/judge.json" 'sorted((v["node"], v["verdict"], v["what"]) for v in d["verdicts"])')"

# n2 claims 999 GB/s on its rail: named itself, "claims more than its port can carry";
# its partners pass, no part's figure above the port's 12.5 GB/s.
echo n2 >"$FAKE_DIR/liar"
rm -f "$FAKE_DIR/twelve"
touch "$FAKE_DIR/rate"
R=$TMPD/s4
"${FLEET[@]}" run --nodes n1,n2,n3,n4 --no-remote --out "$R" --duration 1 --warmup 0 \
	--retest-duration 1 --retest-warmup 0 >"$TMPD/out" 2>"$TMPD/err"
check_eq "999 GB/s on a 12.5 GB/s port: exit" 0 $?
check_eq "... the liar named, its partners PASS, no figure above the line rate" \
	"[('n1', 'PASS', ''), ('n2', 'SUSPECT', 'rail 0 claims 999 GB/s (claims more than its port can carry)'), ('n3', 'PASS', ''), ('n4', 'PASS', '')] True" \
	"$(json_get "$R/judge.json" '"%s %s" % (sorted((v["node"], v["verdict"], v["what"]) for v in d["verdicts"]), max(p["figure_gb_per_s"] or 0 for p in d["parts"]) <= 12.5)')"
check_eq "no process left behind" "" "$(pgrep -f "$TMPD" | grep -v "^$$\$" || true)"
finish
