#!/bin/bash
# provenance.sh: the provenance block in the schemas (nvme-bw-suite(7), PROVENANCE). The
# three tools' schemas hold the same definition and require the block at the document's
# top; its keys are the man page's, each required; a real document of nvme_read_bw is
# valid, a copy without the block refused whole and taken as made before it
# (--before-provenance) while a copy lacking the block and another key is refused all
# the same; a block without its host, with a run id that is no UUID or a drive of an
# unknown kind is refused.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/schema_lib.sh"
need_jsonschema

S=$abs_top_srcdir/schema
check_eq "one definition of the block in the three tools' schemas, required at the top" \
	"1 True" "$("$PYTHON3" -c 'import json, sys
defs, req = [], []
for n in ("nvme_read_bw", "nvme_link_probe", "nvme_write_bw_remote"):
    s = json.load(open("%s/%s.schema.json" % (sys.argv[1], n)))
    defs.append(json.dumps(s["$defs"]["provenance"], sort_keys=True))
    req.append("provenance" in s["required"] and
               s["properties"]["provenance"] == {"$ref": "#/$defs/provenance"})
print(len(set(defs)), all(req))' "$S")"

# The man page's keys (its PROVENANCE section's .B/.BR tags, before the example) are
# the schema's required keys.
man_keys=$(sed -n '/^\.SH PROVENANCE/,/^For example/p' "$abs_top_srcdir/man/nvme-bw-suite.7" |
	sed -n '/^\.TP/{n;p}' | sed 's/^\.BR\? //; s/,//g' | tr ' ' '\n' | grep -v '^$' | sort)
schema_keys=$(json_get "$S/nvme_read_bw.schema.json" '"\n".join(d["$defs"]["provenance"]["required"])' | sort)
check_eq "the block's keys: the man page's, each required" "$man_keys" "$schema_keys"
check_eq "the man page lists the keys" True "$([ "$(wc -l <<<"$man_keys")" -ge 12 ] && echo True)"

D=$TMPD/docs
mkdir -p "$D"
make_pattern "$TMPD/a.img" $((4 << 20)) 1
"$NVME_READ_BW" --disks "$TMPD/a.img" -t 1 -s 64K --warmup 0 -D 0.2 --json >"$D/now.json" \
	2>"$TMPD/err" || fail "nvme_read_bw exited $?: $(head -n 2 "$TMPD/err")"
validate "$D/now.json"
drop <<DROPS
$D/now.json|$D/older.json|del d["provenance"]
$D/now.json|$D/older-no-total.json|del d["provenance"]; del d["total"]
$D/now.json|$D/no-host.json|del d["provenance"]["host"]
$D/now.json|$D/run-id.json|d["provenance"]["run_id"] = "run-1"
$D/now.json|$D/kind.json|d["provenance"]["drives"][0]["kind"] = "disk"
$D/now.json|$D/start.json|d["provenance"]["start"] = "yesterday"
DROPS
validate --refused "$D/older.json" "$D/no-host.json" "$D/run-id.json" "$D/kind.json" \
	"$D/start.json"
validate --before-provenance "$D/older.json"
validate --before-provenance --refused "$D/older-no-total.json"
out=$("${VALIDATE[@]}" --before-provenance "$D/now.json")
check_match "a document with its block listed as made before it: told to leave the list" \
	"^FAIL: .*now\.json: has its provenance, listed as made before it" "$out"
finish
