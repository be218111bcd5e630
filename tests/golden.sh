#!/bin/bash
# tests/golden.sh: golden outputs. Every --help of the three tools and of the user-facing
# scripts, nvme_link_probe's text report over the fixture dumps and sysfs trees,
# nvme_read_bw's over a regular file, nvme_write_bw_remote's printer
# (tests/remote/printer_demo) and the scripts' reports over the fixture runs
# (ladder_report, run_bench.sh summary, nbw-fleet judge) are regenerated, masked
# (tests/expected/mask.sed: host, dates, timings, paths, version) and compared by diff
# with their file under tests/expected/ (CASE.txt), the diff printed when they differ. A
# file holds the case's stdout, then its stderr after a line "# stderr:" when there is
# any, then "# exit N" when the status is not 0. An expected file that no case writes
# fails too.
#
# Refresh the files after a change meant to alter what is printed (then read the diff
# in git before committing it):
#   NBW_GOLDEN_UPDATE=1 make check TESTS=tests/golden.sh
. "$(dirname "$0")/lib.sh"

EXP=$abs_top_srcdir/tests/expected
UPDATE=${NBW_GOLDEN_UPDATE:-}
# argparse wraps --help at $COLUMNS; dates in UTC; the C locale's sorting and messages.
export COLUMNS=80 TZ=UTC LC_ALL=C
unset NBW_RESULTS NBW_RESULTS_INDEX

VERSION=$("$NVME_READ_BW" --version | sed -n '1s/.* //p')
[ -n "$VERSION" ] || { echo "FAIL: no version from $NVME_READ_BW --version"; exit 1; }
# re TEXT: TEXT as a literal in a sed regular expression.
re() { printf '%s' "$1" | sed 's/[][\.*^$|/+?(){}]/\\&/g'; }
# mask: stdin to stdout with what varies replaced; this run's values first, then the
# rules of mask.sed.
mask() {
	sed -E -e "s/$(re "$TMPD")/TMP/g" -e "s/$(re "$abs_top_builddir")/TOP/g" \
		-e "s/$(re "$abs_top_srcdir")/TOP/g" -e "s/$(re "$VERSION")/VERSION/g" \
		-f "$EXP/mask.sed"
}

RUN=$TMPD/run
mkdir -p "$RUN" "$TMPD/got"
declare -A made=()
# golden CASE CMD...: runs CMD in $RUN (stdin empty, 60 s at most) and compares its
# masked output with tests/expected/CASE.txt (or writes it under NBW_GOLDEN_UPDATE=1).
golden() {
	local name=$1 got rc
	shift
	got=$TMPD/got/$name.txt
	made[$name.txt]=1
	mkdir -p "$(dirname "$got")"
	(cd "$RUN" && timeout 60 "$@") </dev/null >"$TMPD/out" 2>"$TMPD/err"
	rc=$?
	{
		cat "$TMPD/out"
		if [ -s "$TMPD/err" ]; then
			echo "# stderr:"
			cat "$TMPD/err"
		fi
		[ "$rc" = 0 ] || echo "# exit $rc"
	} | mask >"$got"
	T_CHECKS=$((T_CHECKS + 1))
	if [ -n "$UPDATE" ]; then
		mkdir -p "$(dirname "$EXP/$name.txt")"
		if cmp -s "$got" "$EXP/$name.txt"; then
			ok "$name: unchanged"
		else
			cp "$got" "$EXP/$name.txt" && ok "$name: written"
		fi
	elif [ ! -f "$EXP/$name.txt" ]; then
		fail "$name: no tests/expected/$name.txt (NBW_GOLDEN_UPDATE=1 writes it)"
	elif diff -u --label "expected/$name.txt" --label "got" "$EXP/$name.txt" "$got" >"$TMPD/diff"; then
		ok "$name"
	else
		fail "$name: differs from tests/expected/$name.txt (- expected, + got):"
		sed 's/^/    /' "$TMPD/diff"
	fi
}

# ---- --help of the tools and the scripts ------------------------------------------------
golden help/nvme_read_bw "$NVME_READ_BW" --help
golden help/nvme_write_bw_remote "$NVME_WRITE_BW_REMOTE" --help
golden help/nvme_link_probe "$NVME_LINK_PROBE" --help
# The scripts as a user runs them from the tree (their usage names scripts/NAME).
S=$abs_top_srcdir
for s in run_bench.sh scale_sweep.sh nbw-results nbw-fleet vlab ladder_report plot_scaling \
	quickstart container k8s-render k8s-collect fresh-check; do
	golden "help/$s" bash -c 'cd "$1" && exec "scripts/$2" --help' - "$S" "$s"
done
# The verbs' --help in one Python process per command (each process compiles the package
# anew, a third of a second on an idle host): COMMAND.VERB's stdout, stderr and status.
verb_help() {
	PYTHONDONTWRITEBYTECODE=1 "$PYTHON3" - "$S/python" "$TMPD/verbs" "$@" <<'PY'
import contextlib, importlib, io, os, sys
sys.path.insert(0, sys.argv[1])
out, command, verbs = sys.argv[2], sys.argv[3], sys.argv[4:]
main = importlib.import_module("nbw.%s.cli" % command.split("-")[1]).main
os.makedirs(out, exist_ok=True)
for v in verbs:
    o, e = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(o), contextlib.redirect_stderr(e):
        try:
            rc = main([v, "--help"])
        except SystemExit as x:
            rc = x.code
    for ext, text in (("out", o.getvalue()), ("err", e.getvalue()), ("rc", "%d" % (rc or 0))):
        with open(os.path.join(out, "%s.%s.%s" % (command, v, ext)), "w") as f:
            f.write(text)
PY
}
# verb_case COMMAND VERB: the case help/COMMAND_VERB from what verb_help wrote.
verb_case() {
	local b=$TMPD/verbs/$1.$2
	golden "help/$1_$2" bash -c 'cat "$1.out"; cat "$1.err" >&2; exit "$(cat "$1.rc")"' - "$b"
}
verb_help nbw-results record list note exclude show compare trend reference check export report \
	inventory || fail "nbw-results: the verbs' --help"
verb_help nbw-fleet plan judge run || fail "nbw-fleet: the verbs' --help"
for v in record list note exclude show compare trend reference check export report inventory; do
	verb_case nbw-results "$v"
done
for v in plan judge run; do
	verb_case nbw-fleet "$v"
done

# ---- nvme_link_probe: the text report over the fixture dumps and sysfs trees ------------
for f in "$FIXTURES"/pci/*.lspci; do
	n=${f##*/}
	golden "probe/${n%.lspci}" "$NVME_LINK_PROBE" --pci-dump "$f"
done
D=$FIXTURES/pci
golden probe/switch_chain_gen2_v_dev "$NVME_LINK_PROBE" --pci-dump "$D/switch_chain_gen2.lspci" -v --dev 05:00.0
golden probe/gen5_port_gen3_drive_project "$NVME_LINK_PROBE" --pci-dump "$D/gen5_port_gen3_drive.lspci" --project
golden probe/switch_acs_topology "$NVME_LINK_PROBE" --pci-dump "$D/switch_acs.lspci" --topology
printf '1 5 4\n2 3 4\n' >"$RUN/short.spec"
golden probe/gen5_port_gen3_drive_expect_file "$NVME_LINK_PROBE" --pci-dump "$D/gen5_port_gen3_drive.lspci" \
	--expect-file short.spec
"$PYTHON3" "$D/gen.py" sysfs "$RUN/root" >/dev/null || fail "gen.py sysfs"
"$PYTHON3" "$D/gen.py" sysfs "$RUN/noroot" --no-root >/dev/null || fail "gen.py sysfs --no-root"
"$PYTHON3" "$D/gen.py" sysfs "$RUN/topo" --topo >/dev/null || fail "gen.py sysfs --topo"
golden probe/sysfs "$NVME_LINK_PROBE" --sysfs-root root
golden probe/sysfs_v "$NVME_LINK_PROBE" --sysfs-root root -v
golden probe/sysfs_project "$NVME_LINK_PROBE" --sysfs-root root --project
golden probe/sysfs_noroot "$NVME_LINK_PROBE" --sysfs-root noroot
golden probe/sysfs_topology "$NVME_LINK_PROBE" --sysfs-root topo --topology

# ---- nvme_read_bw over a regular file (its figures masked) ------------------------------
make_pattern "$RUN/pattern.img" $((8 * 1024 * 1024)) 7 || fail "make_pattern"
golden read_bw/file "$NVME_READ_BW" --disks pattern.img -t 1 --warmup 0 -D 0.5 --max-cv 1000
golden read_bw/file_checksum "$NVME_READ_BW" --disks pattern.img -t 2 -s 256K --warmup 0 -D 0.5 \
	--max-cv 1000 --checksum
golden read_bw/file_gbits "$NVME_READ_BW" --disks pattern.img -t 1 --warmup 0 -D 0.5 --max-cv 1000 \
	--report_gbits

# ---- nvme_write_bw_remote's printer on results built in memory --------------------------
for w in sink sink-over sink-late sink-fail sink-cv source source-lat fanin fanin-missing fanin-cv \
	bidir sizes sizes-brief sizes-gbits; do
	golden "remote/$w" "$abs_top_builddir/tests/remote/printer_demo" "$w"
done
golden remote/sink-live "$abs_top_builddir/tests/remote/printer_demo" --stream sink-live

# ---- the scripts' text reports over the fixture runs ------------------------------------
golden scripts/ladder_report_ref "$S/scripts/ladder_report" --no-write "$FIXTURES/ladder/ref"
golden scripts/ladder_report_upper "$S/scripts/ladder_report" --no-write "$FIXTURES/ladder/upper"
golden scripts/run_bench_summary "$S/scripts/run_bench.sh" summary "$FIXTURES/ladder/ref"
golden scripts/fleet_judge_shaped "$S/scripts/nbw-fleet" judge "$FIXTURES/fleet_shaped"

# ---- every expected file is some case's ---------------------------------------------------
while IFS= read -r f; do
	[ -n "${made[$f]:-}" ] && continue
	T_CHECKS=$((T_CHECKS + 1))
	if [ -n "$UPDATE" ]; then
		rm -f "$EXP/$f" && ok "$f: no case writes it, removed"
	else
		fail "tests/expected/$f: no case writes it (NBW_GOLDEN_UPDATE=1 removes it)"
	fi
done < <(cd "$EXP" && find . -name '*.txt' | sed 's|^\./||' | LC_ALL=C sort)
finish
