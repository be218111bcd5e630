#!/bin/bash
# fixtures.sh: every JSON fixture (tests/fixtures/**/*.json) that is a document of the
# suite is valid against its schema (schema/). A fixture is whole (the tool's document
# as it writes it today), a part (cut to the keys a reader reads, written by hand, or by
# an earlier build: every key it holds must have its schema's type and shape, a key it
# lacks is forgiven, and one that lacks nothing must leave the list of parts), or not a
# document of the suite (another tool's), each named below with why; a new fixture is
# whole unless it is listed.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/schema_lib.sh"
need_jsonschema

whole=() parts=() others=()
while IFS= read -r -d '' f; do
	case ${f#"$FIXTURES"/} in
	# iperf3 -J of the ladder's TCP rungs (ladder/upper.py reads them)
	ladder/upper/tcp*.json) others+=("$f") ;;
	# nbw-fleet run's record of its sweep (sweep.json), read by nbw-fleet alone
	fleet_shaped/sweep.json) others+=("$f") ;;
	# the lab's shaped-NIC sweep, its transfers cut to the keys the fleet judge reads
	fleet_shaped/*) parts+=("$f") ;;
	# the reference platform's figures, written by hand for the ladder's report
	ladder/ref/*) parts+=("$f") ;;
	# the upper rungs' NFS reads, written by hand with the keys of an earlier build
	ladder/upper/*) parts+=("$f") ;;
	# a random read of an earlier build (before above_link_ceiling, link_under_load, aer)
	results/read-rand.json) parts+=("$f") ;;
	*) whole+=("$f") ;;
	esac
done < <(find "$FIXTURES" -name '*.json' -print0 | LC_ALL=C sort -z)

check_eq "JSON fixtures found (whole, parts, others)" True \
	"$([ $((${#whole[@]} + ${#parts[@]})) -ge 30 ] && echo True)"
echo "fixtures: ${#whole[@]} whole, ${#parts[@]} parts, ${#others[@]} another tool's"
[ ${#whole[@]} = 0 ] || validate "${whole[@]}"
validate --part "${parts[@]}"
for f in "${others[@]}"; do
	check_eq "${f#"$FIXTURES"/}: not a document of the suite's tools (no schema of its own)" False \
		"$(json_get "$f" 'isinstance(d, dict) and d.get("tool") in ("nvme_read_bw", "nvme_link_probe", "nvme_write_bw_remote")')"
done

# A part whose keys have the wrong type or shape is refused all the same (for that, not
# for the keys it lacks).
B=$TMPD/broken
mkdir -p "$B"
drop <<EOF
$FIXTURES/ladder/ref/fabric-a.json|$B/part-rate-text.json|d["rdma"]["gb_per_s"] = "45.9"
$FIXTURES/fleet_shaped/fabric/a/b.rail0.json|$B/part-rail-port.json|d["rails"][0]["local_port"] = -1
$FIXTURES/results/read-rand.json|$B/part-drive-kind.json|d["drives"][0]["kind"] = "disk"
EOF
validate --part --refused "$B"/*.json
finish
