#!/bin/bash
# vlab demo keeps its results on the host: save_demo() copies node a's results
# (the ladder and every tool's JSON) out of the lab's work directory into a new
# nbw-demo-STAMP directory, a second demo of the same second gets -1, a third
# -2, and none overwrites an earlier one; a lab that left nothing creates none.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"
W=$TMPD/work
R=$W/a/out/results/ladder
mkdir -p "$R/b" "$TMPD/host"
printf '{"run":1}\n' >"$R/ladder.json"
printf 'ladder 1\n' >"$R/ladder.txt"
printf 'PNG1' >"$R/ladder.png"
printf '{"tool":"nvme_read_bw"}\n' >"$R/b/read.json"

# save WORKDIR STAMP: the directory save_demo() made under $TMPD/host, or "None".
save() {
	vlab_py 'print(vlab.save_demo(sys.argv[3], sys.argv[4], sys.argv[5]))' "$1" "$TMPD/host" "$2"
}

d1=$(save "$W" 20260101-120000)
check_eq "first demo: named by its time" "$TMPD/host/nbw-demo-20260101-120000" "$d1"
check_eq "ladder.json copied" '{"run":1}' "$(cat "$d1/ladder.json" 2>&1)"
check_eq "ladder.png copied" PNG1 "$(cat "$d1/ladder.png" 2>&1)"
check_eq "a tool's JSON in a subdirectory copied" '{"tool":"nvme_read_bw"}' "$(cat "$d1/b/read.json" 2>&1)"

printf '{"run":2}\n' >"$R/ladder.json"
d2=$(save "$W" 20260101-120000)
check_eq "second demo, same second: -1" "$TMPD/host/nbw-demo-20260101-120000-1" "$d2"
check_eq "... holds the second run" '{"run":2}' "$(cat "$d2/ladder.json" 2>&1)"
check_eq "... the first run's ladder untouched" '{"run":1}' "$(cat "$d1/ladder.json" 2>&1)"
d3=$(save "$W" 20260101-120000)
check_eq "third demo: -2" "$TMPD/host/nbw-demo-20260101-120000-2" "$d3"

mkdir -p "$TMPD/empty/a/out"
check_eq "no results: none saved" None "$(save "$TMPD/empty" 20260101-130000)"
check_eq "... and no directory made" "" "$(ls -d "$TMPD"/host/nbw-demo-20260101-13* 2>/dev/null)"
finish
