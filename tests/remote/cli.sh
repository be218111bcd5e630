#!/bin/bash
# nvme_write_bw_remote on the host, without RDMA hardware: --help/--version,
# every usage error (exit 2, one line), role-only options, the missing-device
# error (exit 1, one line, no hang), --json stays valid on failure, and the
# man page: it lints cleanly and names every long option of --help.
. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
B=$NVME_WRITE_BW_REMOTE
[ -x "$B" ] || skip "$B not built"

"$B" --help >"$TMPD/help"
check_eq "--help exit" 0 $?
check_match "--help names the sink" "Usage: nvme_write_bw_remote \[options\] +sink" "$(head -1 "$TMPD/help")"
# The role sets --help lists come from the option table's role column.
check_eq "--help: the source's options" "The source's, refused by a sink: source, rail-affinity, corrupt-canary, late-start, latency." \
	"$(sed -n "/^The source's/,/\\.$/p" "$TMPD/help" | tr '\n' ' ' | sed 's/  */ /g; s/ $//')"
check_match "--help: the sink's options" "^The sink's options, .*: bind, allow, sources, .*, dump-slice\.$" \
	"$(sed -n "/^The sink's options/,/\\.$/p" "$TMPD/help" | tr '\n' ' ' | sed 's/  */ /g; s/ $//')"
check_match "--version" "0\.[0-9]" "$("$B" --version)"

expect_exit 2 "^nvme_write_bw_remote: unrecognized option '--bogus'$" "$B" --bogus
expect_exit 2 "invalid chunk size 'x'" "$B" -s x
expect_exit 2 "invalid chunk size '2G': out of range" "$B" -s 2G
expect_exit 2 "invalid depth '0'" "$B" --depth 0
expect_exit 2 "invalid port '70000'" "$B" -p 70000
expect_exit 2 "unknown source 'tape'" "$B" --source tape h
expect_exit 2 "unknown verify mode 'some'" "$B" --verify some
expect_exit 2 "--source is a source option" "$B" --source mem
expect_exit 2 "unknown MTU '1000' \(256, 512, 1024, 2048 or 4096\)" "$B" --mtu 1000 peer
expect_exit 2 "invalid service level '16': out of range" "$B" --sl 16 peer
expect_exit 2 "invalid traffic class '256': out of range" "$B" --tclass 256 peer
expect_exit 2 "invalid depth '0'" "$B" -t 0 peer
expect_exit 2 "invalid QP count '0'" "$B" -q 0 peer
expect_exit 2 "invalid --allow '10.0.0.0/33'" "$B" --allow 10.0.0.0/33
expect_exit 2 "--allow is a sink option" "$B" --allow 10.0.0.0/8 peer
expect_exit 2 "--corrupt-canary is a source option" "$B" --corrupt-canary
expect_exit 2 "--bind is a sink option" "$B" --bind 1.2.3.4 peer
expect_exit 2 "--dram is a sink option" "$B" --dram 1G peer
expect_exit 2 "--no-local is a sink option" "$B" --no-local peer
expect_exit 2 "--dump-slice is a sink option" "$B" --dump-slice f peer
expect_exit 2 "needs verification" "$B" --no-verify --corrupt-canary --source mem peer
expect_exit 2 "drop -s/--size" "$B" -a -s 1M peer
expect_exit 2 "drop --dump-slice" "$B" --all-sizes --dump-slice x
expect_exit 2 "--bidir needs a PEER" "$B" --bidir
expect_exit 2 "--bidir runs one size: drop -a" "$B" --bidir -a peer
expect_exit 2 "--bidir prints both directions at the end: drop --interval" "$B" --bidir --interval 1 peer
expect_exit 2 "--local-disks has no place with --bidir" "$B" --bidir --local-disks x peer
expect_exit 2 "--sources is a sink option" "$B" --sources 2 peer
# The role column of the option table: every role-only option, named as given.
expect_exit 2 "--local-disks is a sink option \(no PEER argument\)" "$B" --local-disks x peer
expect_exit 2 "--min-overlap is a sink option" "$B" --min-overlap 50 peer
expect_exit 2 "--max-cv is a sink option" "$B" --max-cv 5 peer
expect_exit 2 "--max-workers-per-source is a sink option" "$B" --max-workers-per-source 2 peer
expect_exit 2 "--late-start is a source option \(needs a PEER argument\)" "$B" --late-start 1
# An option given for the other role is refused even with its default value.
expect_exit 2 "--sources is a sink option" "$B" --sources 1 peer
expect_exit 2 "--min-overlap is a sink option" "$B" --min-overlap 99 peer
expect_exit 2 "--source is a source option" "$B" --source disk
# The long name, whichever way the option was spelled (an abbreviation).
expect_exit 2 "--dump-slice is a sink option" "$B" --dump-sl f peer
expect_exit 2 "invalid source count '0'" "$B" --sources 0
expect_exit 2 "invalid source count '65'" "$B" --sources 65
# --sources N takes -a, --interval and --dump-slice (tests/remote/fake_fanin.sh), not --bidir.
expect_exit 2 "--sources 2 with --bidir: this node's source sends to its one PEER, not back to 2 sources: drop --sources or --bidir" \
	"$B" --bidir --sources 2 peer
expect_exit 2 "multiple of 4096" "$B" -s 512 peer
expect_exit 2 "one PEER at most" "$B" a b
expect_exit 2 "invalid timeout '0'" "$B" --timeout 0

if [ ! -d /sys/class/infiniband ] || [ -z "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
	# No RDMA device here: both roles say so at once, exit 1, no hang.
	expect_exit 1 "no RDMA device found" "$B" --dram 1M --no-local
	expect_exit 1 "no RDMA device found" "$B" --source mem 127.0.0.1
	# --bidir is both roles: the sink's and the source's options pass the role check.
	# (each role says it: a line from each thread)
	timeout 20 "$B" --bidir --dram 1M --min-overlap 50 --source mem --corrupt-canary \
		127.0.0.1 >/dev/null 2>"$TMPD/e"
	check_eq "--bidir takes both roles' options: exit 1, no RDMA device" "1 2" \
		"$? $(grep -c 'no RDMA device found' "$TMPD/e")"
	# -R with --sources: taken (each session accepts its own connections), not a usage error.
	expect_exit 1 "no RDMA device found" "$B" --sources 2 -R --dram 1M --no-local
	timeout 20 "$B" --json --source mem 127.0.0.1 >"$TMPD/j" 2>/dev/null
	check_eq "no device: exit 1 with --json" 1 $?
	if [ -x "$PYTHON3" ] || command -v "$PYTHON3" >/dev/null; then
		T_CHECKS=$((T_CHECKS + 1))
		json_valid "$TMPD/j" && ok "--json valid on failure" || fail "--json invalid: $(cat "$TMPD/j")"
		check_eq "--json role" source "$(json_get "$TMPD/j" 'd["role"]')"
		check_eq "--json ok" False "$(json_get "$TMPD/j" 'd["ok"]')"
		# -a: the first size's run (from memory its options say -s 2) fails, and -a stops there.
		timeout 20 "$B" -a --json --source mem 127.0.0.1 >"$TMPD/j" 2>/dev/null
		check_eq "-a, no device: exit 1" 1 $?
		check_eq "-a, no device: complete, runs, the first run's chunk" "False 1 2" \
			"$(json_get "$TMPD/j" '"%s %d %d" % (d["complete"], len(d["sizes"]), d["sizes"][0]["params"]["chunk"])')"
		# --sources: the same, the sink's role and why.
		timeout 20 "$B" --json --sources 2 --no-local >"$TMPD/j" 2>/dev/null
		check_eq "--sources 2, no device: exit 1" 1 $?
		check_eq "--sources 2, no device: JSON sink, not ok, why" "sink False no usable RDMA port" \
			"$(json_get "$TMPD/j" '"%s %s %s" % (d["role"], d["ok"], d["error"])')"
	fi
else
	expect_exit 1 "nosuchdev0: no such RDMA device" "$B" -d nosuchdev0 --dram 1M --no-local
fi

# The man page: lints cleanly and documents every long option of --help.
MAN=$abs_top_srcdir/man/nvme_write_bw_remote.1
if command -v mandoc >/dev/null; then
	lint=$(mandoc -T lint -W warning "$MAN" 2>&1)
	check_eq "mandoc -T lint" "" "$lint"
fi
if command -v groff >/dev/null; then
	g=$(groff -ww -man -Tutf8 "$MAN" 2>&1 >/dev/null)
	check_eq "groff -ww" "" "$g"
fi
# shellcheck disable=SC2013 # options are words
for opt in $(grep -oE -- '--[a-z][a-z_-]+' "$TMPD/help" | sort -u); do
	T_CHECKS=$((T_CHECKS + 1))
	grep -qF -- "$(printf '%s' "$opt" | sed 's/-/\\-/g')" "$MAN" || fail "man page lacks $opt"
done
ok "man page names every long option of --help"
finish
