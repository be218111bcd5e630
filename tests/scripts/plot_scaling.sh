#!/bin/bash
# scripts/plot_scaling on the fixture sweep (tests/fixtures/sweep/sweep.tsv):
# a PNG of exactly the size asked for (read from its IHDR), default name and
# size, awkward output names and titles, a local-only sweep (no remote and no
# ceiling column figures), a boundary table (the local -> remote marker line); usage errors exit 2, a missing gnuplot exits 1
# naming the Debian package.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
command -v gnuplot >/dev/null || skip "gnuplot is not installed (apt-get install gnuplot-nox)"
FX=$FIXTURES/sweep/sweep.tsv

png_size() { # WxH from the PNG header, or "not a PNG"
	"$PYTHON3" -c 'import struct,sys
h = open(sys.argv[1], "rb").read(24)
print("%dx%d" % struct.unpack(">II", h[16:24]) if h[:8] == b"\x89PNG\r\n\x1a\n" and h[12:16] == b"IHDR" else "not a PNG")' "$1" 2>/dev/null || echo "no file"
}

"$PLOT_SCALING" --size 640x480 -o "$TMPD/a.png" "$FX" >"$TMPD/out" 2>&1
check_eq "640x480: exit status" 0 $?
check_eq "640x480: PNG size" 640x480 "$(png_size "$TMPD/a.png")"
check_match "says where" "plot_scaling: $TMPD/a.png \\(640x480\\)" "$(cat "$TMPD/out")"

mkdir "$TMPD/dir"
cp "$FX" "$TMPD/dir/sweep.tsv"
"$PLOT_SCALING" "$TMPD/dir" >/dev/null 2>&1
check_eq "a directory: scaling.png beside sweep.tsv, 800x600 by default" 800x600 "$(png_size "$TMPD/dir/scaling.png")"

odd="$TMPD/it's a \"plot\" \$x.png"
"$PLOT_SCALING" --size=1200x300 --title "node2's drives -> node1 \"DRAM\"" --output="$odd" "$FX" >/dev/null 2>&1
check_eq "awkward names: PNG size" 1200x300 "$(png_size "$odd")"

# A local-only sweep of files: remote and ceiling columns hold no figure.
printf '# local only\ndrives\tlocal_gb_per_s\tremote_gb_per_s\tideal_gb_per_s\tlink_ceiling_gb_per_s\n1\t0.5\t-\t0.5\t-\n2\t0.9\t-\t1.0\t-\n' >"$TMPD/local.tsv"
"$PLOT_SCALING" -o "$TMPD/l.png" "$TMPD/local.tsv" >/dev/null 2>&1
check_eq "local-only sweep: PNG" 800x600 "$(png_size "$TMPD/l.png")"

# A boundary table (scale_sweep.sh BOUNDARY=yes): the marker line after the
# 2 local drives, boundary.png by default; a gnuplot wrapper keeps the script.
mkdir "$TMPD/bd"
printf '# boundary\n# local drives: 2\ndrives\tlocal\tRDMA\ttotal\tideal\t%%_of_ideal\tvalid\n1\t0.5\t0.0\t0.5\t0.5\t100.0\tyes\n2\t1.0\t0.0\t1.0\t1.0\t100.0\tyes\n3\t1.0\t0.4\t1.4\t1.5\t93.3\tyes\n4\t-\t-\t-\t2.0\t-\t-\n' >"$TMPD/bd/boundary.tsv"
cat >"$TMPD/gp" <<SH
#!/bin/sh
[ -f "\$1" ] && cp "\$1" "$TMPD/last.gp"
exec gnuplot "\$@"
SH
chmod +x "$TMPD/gp"
GNUPLOT=$TMPD/gp "$PLOT_SCALING" "$TMPD/bd" >"$TMPD/out" 2>&1
check_eq "boundary: exit status" 0 $?
check_eq "boundary: boundary.png beside boundary.tsv" 800x600 "$(png_size "$TMPD/bd/boundary.png")"
check_match "boundary: the marker after the 2 local drives" "^set arrow 1 from 2 \\+ 0\\.5, graph 0 to 2 \\+ 0\\.5, graph 1 nohead" "$(cat "$TMPD/last.gp")"
check_match "boundary: the marker named" "local -> remote boundary" "$(cat "$TMPD/last.gp")"
check_match "boundary: total drawn from column 4" "using 1:4 with linespoints lw 3 pt 7 title 'total" "$(cat "$TMPD/last.gp")"
sed -i '/^# local drives/d' "$TMPD/bd/boundary.tsv"
expect_exit 1 "without its '# local drives: L' line" "$PLOT_SCALING" "$TMPD/bd/boundary.tsv"

expect_exit 2 'no sweep given' "$PLOT_SCALING"
expect_exit 2 "unknown option '--colour'" "$PLOT_SCALING" --colour "$FX"
expect_exit 2 '--size 640: WxH' "$PLOT_SCALING" --size 640 "$FX"
expect_exit 2 '--size 50x50: WxH, each 100..10000' "$PLOT_SCALING" --size 50x50 "$FX"
expect_exit 2 'one sweep only' "$PLOT_SCALING" "$FX" "$FX"
expect_exit 1 "$TMPD/none.tsv: cannot read the sweep" "$PLOT_SCALING" "$TMPD/none.tsv"
printf 'a\tb\n1\t2\n' >"$TMPD/bad.tsv"
expect_exit 1 'not a sweep table' "$PLOT_SCALING" "$TMPD/bad.tsv"
printf 'drives\tlocal_gb_per_s\n' >"$TMPD/empty.tsv"
expect_exit 1 'no rows' "$PLOT_SCALING" "$TMPD/empty.tsv"
expect_exit 1 'gnuplot not found: .*apt-get install gnuplot-nox' env GNUPLOT=/nonexistent/gnuplot "$PLOT_SCALING" -o "$TMPD/x.png" "$FX"
check_eq "no PNG without gnuplot" "no file" "$(png_size "$TMPD/x.png")"
finish
