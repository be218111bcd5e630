#!/bin/bash
# nbw-fleet run over 64 fake nodes of 8 drives and 8 rails, three faults, each named
# exactly and nothing healthy: n5's nvme3 trained at x2 of x4 with normal throughput,
# with --probe-arg=--expect=gen3x4 (the probe's exit 3): SUSPECT by the probe's verdict,
# its own line as evidence, JUnit's links suite failing n5 alone; n9 claims 999 GB/s on
# every rail (its own documents, 80 x its port's 12.5 GB/s): SUSPECT, "claims more than
# its port can carry", never a median's member, a part's figure nor its partners'; n20's
# probe fails otherwise (exit 1): NOT MEASURED with why.
# shellcheck disable=SC2016 # the wrappers' text is theirs to expand
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
N=64
export FAKE_DRIVES=8 FAKE_RAILS=8
T=$TMPD/tools
mkdir -p "$T"
printf '#!/bin/bash\nif [ "$FAKE_NODE" = n9 ]; then\n"%s/nvme_write_bw_remote" "$@" | sed -E "s/\\"gb_per_s\\":[0-9.e+-]+/\\"gb_per_s\\":999/g"\nexit "${PIPESTATUS[0]}"\nfi\nexec "%s/nvme_write_bw_remote" "$@"\n' \
	"$FAKES" "$FAKES" >"$T/nvme_write_bw_remote"
printf '#!/bin/bash\nif [ "$FAKE_NODE" = n20 ]; then echo "nvme_link_probe: /sys/bus/pci/devices: Permission denied" >&2; exit 1; fi\nexec "%s/nvme_link_probe" "$@"\n' \
	"$FAKES" >"$T/nvme_link_probe"
ln -s "$FAKES/nvme_read_bw" "$T/nvme_read_bw"
chmod +x "$T"/nvme_write_bw_remote "$T"/nvme_link_probe
export TOOL_DIR=$T
touch "$FAKE_DIR/x2.n5.nvme3"
S=$TMPD/sweep
t0=$(date +%s)
"${FLEET[@]}" run --nodes "$(seq -f 'n%g' 1 $N | paste -sd,)" --rail-devs "$(seq -f 'mlx5_%g' 0 7 | paste -sd,)" \
	--no-remote --probe-arg=--expect=gen3x4 --out "$S" --duration 1 --warmup 0 --retest-duration 1 \
	--retest-warmup 0 >"$TMPD/out" 2>"$TMPD/err"
check_eq "run: exit" 0 $?
echo "# $N nodes x 8 drives x 8 rails: $(($(date +%s) - t0)) s"
check_eq "exactly the three faults, nothing healthy" \
	"[('n20', 'NOT MEASURED'), ('n5', 'SUSPECT'), ('n9', 'SUSPECT')] $((N - 3))" \
	"$(json_get "$S/judge.json" '"%s %d" % (sorted((v["node"], v["verdict"]) for v in d["verdicts"] if v["verdict"] != "PASS"), d["verdict_counts"]["PASS"])')"
check_eq "n5: the probe's verdict, its own line" \
	"nvme3n1 link: expectation not met: 8 GT/s x2, expected gen3x4 (the probe's verdict)|nvme_link_probe: nvme3 (0000:04:00.0): expectation not met: 8 GT/s x2, expected gen3x4" \
	"$(json_get "$S/judge.json" '"|".join([v["what"] for v in d["verdicts"] if v["node"] == "n5"] + [l for s in d["suspects"] if s["node"] == "n5" for l in s["evidence"]["probe_lines"]])')"
check_eq "... its exit 3 and line kept in sweep.json" "3" "$(json_get "$S/sweep.json" 'd["probe_exit"]["n5"]["status"]')"
check_eq "n9: claims more than its port can carry" \
	"rails 0,1,2,3,4,5,6,7 claims 999 GB/s (claims more than its port can carry)" \
	"$(json_get "$S/judge.json" '[v["what"] for v in d["verdicts"] if v["node"] == "n9"][0]')"
check_eq "... no part's figure above its line rate (n9's: its partners' word, 12); the rails' median 12" \
	"True [12] 12" \
	"$(json_get "$S/judge.json" '"%s %s %g" % (max(p["figure_gb_per_s"] or 0 for p in d["parts"] if p["kind"] == "rail") <= 12.5, sorted({round(p["figure_gb_per_s"]) for p in d["parts"] if p["node"] == "n9" and p["kind"] == "rail"}), [k for k in d["kinds"] if k["kind"] == "rails"][0]["fleet_median"])')"
check_match "n20: NOT MEASURED with why" "^exit status 1: nvme_link_probe: /sys/bus/pci/devices: Permission denied \\(1 part\\)\$" \
	"$(json_get "$S/judge.json" '[v["what"] for v in d["verdicts"] if v["node"] == "n20"][0]')"
expect_exit 0 "" "${FLEET[@]}" judge "$S" --junit "$TMPD/j.xml"
check_eq "JUnit's links suite: n5 fails with the probe's line, n20 skipped" \
	"n5 n20 True" \
	"$("$PYTHON3" -c 'import sys, xml.etree.ElementTree as ET
s = [x for x in ET.parse(sys.argv[1]).getroot() if x.get("name") == "nbw-fleet.links"][0]
f = [c for c in s if c.find("failure") is not None]
k = [c.get("name") for c in s if c.find("skipped") is not None]
print(" ".join(c.get("name") for c in f), " ".join(k), "expectation not met: 8 GT/s x2" in f[0].find("failure").text)' "$TMPD/j.xml")"
check_eq "no process left behind" "" "$(pgrep -f "$TMPD" | grep -v "^$$\$" || true)"
finish
