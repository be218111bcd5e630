#!/bin/bash
# fake_ports.sh: the ports as -d, -x and --list-ports see them, over the fake fabric
# (its GID tables from $NBW_FAKE_GIDS, netdevs from ":nd="): a -x that names no GID of
# a chosen port is refused in one line naming the port, the index, its GIDs and the
# likely cause, exit 2 (never another GID); -d takes a netdev's name; --list-ports
# prints every port's device, state, netdev, NUMA node and GIDs, as text and as JSON;
# more than 8 ACTIVE ports by default are said with how to pick; a pair runs over the
# ports that -d NETDEV and -x name.
# shellcheck disable=SC2086 # RUN and the ARGS strings: options, split into words
. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/remote/fake_lib.sh"

PORTS="fake0:1:eth:127.0.1.1/24:100:nd=net0:numa=1,fake1:1:eth:-:100:nd=net1,ib0:1:ib:-:200:down"

# -x 9: no such GID on the sink's port: one line, exit 2, before it listens.
expect_exit 2 "^fake_remote: fake0:1: no GID with index 9 \(-x 9\); its GIDs: 0 RoCE v1 fe80::1, 1 RoCE v2 ::ffff:127\.0\.1\.1; pick one of these indices" \
	env NBW_FAKE_PORTS="$PORTS" "$FAKE" -x 9 -d fake0 --no-local --dram 4M
check_eq "-x 9: one line on stderr" 1 "$(NBW_FAKE_PORTS="$PORTS" "$FAKE" -x 9 -d fake0 \
	--no-local --dram 4M 2>&1 >/dev/null | wc -l)"

# A RoCE port without IPv4 on its netdev (no v2 GID): the cause named; -d by its netdev.
expect_exit 2 "fake1:1: no GID with index 1 \(-x 1\); its GIDs: 0 RoCE v1 fe80::1; likely cause: no IPv4 address on netdev net1 \(.*ip addr add ADDR/PREFIX dev net1\)" \
	env NBW_FAKE_PORTS="$PORTS" "$FAKE" -x 1 -d net1 --source mem 127.0.1.1

# The GID table as a NIC has it ($NBW_FAKE_GIDS): -x 3 past its end.
expect_exit 2 "fake0:1: no GID with index 3 \(-x 3\); its GIDs: 0 RoCE v1 fe80::5, 1 RoCE v2 ::ffff:10\.1\.1\.1, 2 RoCE v2 fe80::5;" \
	env NBW_FAKE_PORTS="$PORTS" NBW_FAKE_GIDS="ib0:1=ib@fe80::9;fake0:1=v1@fe80::5+v2@::ffff:10.1.1.1+v2@fe80::5" \
	"$FAKE" -x 3 -d net0 --source mem 127.0.1.1
# A name that is neither a device nor a netdev is still refused as before.
expect_exit 1 "net7: no such RDMA device or port" env NBW_FAKE_PORTS="$PORTS" "$FAKE" -d net7 \
	--source mem 127.0.1.1

# --list-ports: text, every port with its netdev, NUMA node and GIDs.
NBW_FAKE_PORTS="$PORTS" "$FAKE" --list-ports >"$TMPD/list.txt" 2>"$TMPD/list.err"
check_eq "--list-ports: exit 0, nothing on stderr" "" "$(cat "$TMPD/list.err")"
L=$(cat "$TMPD/list.txt")
check_match "--list-ports: fake0's line" " fake0 +1 +ACTIVE Ethernet +net0 +1 +100 Gb/s" "$L"
check_match "--list-ports: fake0's RoCE v2 GID" "GID 1 +RoCE v2 +::ffff:127\.0\.1\.1" "$L"
check_match "--list-ports: the DOWN InfiniBand port without a netdev" " ib0 +1 +DOWN +InfiniBand - +- +-" "$L"
NBW_FAKE_PORTS="$PORTS" "$FAKE" --list-ports --json >"$TMPD/list.out" || fail "--list-ports --json exited $?"
jv list 'd["role"]' '[p["device"] + "/" + str(p["netdev"]) for p in d["ports"]]' \
	'[g["type"] for g in d["ports"][0]["gids"]]' 'd["ports"][0]["numa_node"]' \
	'd["ports"][2]["port_state"]' 'sorted(d["provenance"])[:1]'
check_eq "--list-ports --json: role" ports "${J[0]}"
check_eq "--list-ports --json: devices and netdevs" "['fake0/net0', 'fake1/net1', 'ib0/None']" "${J[1]}"
check_eq "--list-ports --json: fake0's GID types" "['RoCE v1', 'RoCE v2']" "${J[2]}"
check_eq "--list-ports --json: NUMA node" 1 "${J[3]}"
check_eq "--list-ports --json: the down port" DOWN "${J[4]}"
if [ -n "$PYTHON3" ] && "$PYTHON3" -c 'import jsonschema' 2>/dev/null; then
	"$PYTHON3" "$abs_top_srcdir/tests/schema/validate.py" \
		"$TMPD/list.out" >"$TMPD/v.log" 2>&1 ||
		fail "--list-ports --json against the schema: $(cat "$TMPD/v.log")"
fi

# Nine ACTIVE ports (VFs) by default: said, with how to pick.
MANY=$(for i in 0 1 2 3 4 5 6 7 8; do printf 'vf%s:1:eth:127.0.%s.1/24:100,' "$i" $((i + 10)); done)
NBW_FAKE_PORTS=${MANY%,} timeout 30 "$FAKE" --no-local --dram 4M --wait 1 >/dev/null 2>"$TMPD/many.err"
check_match "nine ports: how many and how to pick" \
	"9 ACTIVE RDMA ports \(VFs\?\): using all 9; pick with -d DEV\[:PORT\] or -d NETDEV" "$(cat "$TMPD/many.err")"

# A pair over the ports -d NETDEV and -x 1 name on both sides.
SINK_FAKE_PORTS="fake0:1:eth:127.0.1.1/24:100:nd=s0,fake1:1:eth:127.0.2.1/24:100:nd=s1"
SRC_FAKE_PORTS="fake0:1:eth:127.0.1.2/24:100:nd=c0,fake1:1:eth:127.0.2.2/24:100:nd=c1"
pair nd "--no-local --dram 4M --json -d s0 -x 1 --min-overlap 10 --max-cv 100" \
	"--source mem --json -d c0 -x 1"
check_eq "-d NETDEV -x 1: both sides ran" "0 0" "$SINK_RC $SRC_RC"
jv nd-src '[r["local_dev"] for r in d["rails"]]'
check_eq "-d c0: the source's one rail is fake0" "['fake0']" "${J[0]}"
finish
