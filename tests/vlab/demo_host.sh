#!/bin/bash
# vlab demo on the host (scripts/vlab.d/demo-host.sh): the ladder made in the
# guest names the guest's run directory; on the host it is made again from the
# tools' JSON, so that ladder.txt's header names the host's directory, with
# ib_write_bw's line under it kept; the run is recorded and reported there.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"
D=$TMPD/nbw-demo-20260101-120000
cp -r "$FIXTURES/ladder/ref" "$D"
{
	echo "ladder: /run/vlab/out/results/ladder (sink a, source b)"
	echo "the guest's table"
	echo "fabric rung beside ib_write_bw on b: nvme_write_bw_remote 45.9100 GB/s, ratio 0.94"
} >"$D/ladder.txt"
NBW_RESULTS=$TMPD/record GNUPLOT=/nonexistent/gnuplot "$abs_top_srcdir/scripts/vlab.d/demo-host.sh" "$D" \
	>"$TMPD/out" 2>&1
check_eq "exit status" 0 $?
check_eq "the header names the host's directory" "ladder: $D (sink a, source b)" "$(head -n1 "$D/ladder.txt")"
check_eq "ib_write_bw's line kept under the ladder" \
	"fabric rung beside ib_write_bw on b: nvme_write_bw_remote 45.9100 GB/s, ratio 0.94" "$(tail -n1 "$D/ladder.txt")"
check_match "the ladder remade: the reference's table" '^end to end +a +21\.41 +21\.41 +100\.0 +0\.050$' "$(cat "$D/ladder.txt")"
check_eq "ladder.json remade: the binding rung" "drive links" "$(json_get "$D/ladder.json" 'd["binding"]["rung"]')"
check_match "the last lines name the host's ladder" "^demo: the ladder: $D/ladder.txt" "$(cat "$TMPD/out")"
check_eq "no log left" "" "$(ls "$D"/*.log 2>/dev/null)"
finish
