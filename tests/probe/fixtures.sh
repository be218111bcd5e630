#!/bin/bash
# Fixture test of nvme_link_probe: every `lspci -xxx` dump in tests/fixtures/pci is read
# through libpci's dump method; the speed and width decoded for every function on every
# device's path equal what `lspci -F DUMP -vvv` prints, and each device gets the verdict
# its fixture was built for.
. "$abs_top_srcdir/tests/lib.sh"
command -v lspci >/dev/null || skip "lspci (pciutils) not installed"
command -v "$PYTHON3" >/dev/null || skip "python3 not installed"
P=$NVME_LINK_PROBE
D=$FIXTURES/pci

# The committed dumps are what the generator writes.
mkdir -p "$TMPD/gen"
"$PYTHON3" "$D/gen.py" dumps "$TMPD/gen"
for f in "$D"/*.lspci; do
	T_CHECKS=$((T_CHECKS + 1))
	if cmp -s "$f" "$TMPD/gen/${f##*/}"; then ok "${f##*/} matches gen.py"; else fail "${f##*/} differs from gen.py output"; fi
done

for f in "$D"/*.lspci; do
	name=${f##*/}
	lspci -F "$f" -vvv >"$TMPD/$name.vvv" 2>&1 || fail "lspci -F $name"
	"$P" --pci-dump "$f" --json >"$TMPD/$name.json" || fail "$name: probe exit $?"
	T_CHECKS=$((T_CHECKS + 1))
	if "$PYTHON3" "$abs_top_srcdir/tests/probe/crosscheck.py" "$TMPD/$name.vvv" "$TMPD/$name.json" >"$TMPD/$name.cc"; then
		ok "$name: probe decodes = lspci ($(grep -c '^ok' "$TMPD/$name.cc") registers)"
	else
		fail "$name: probe and lspci differ: $(grep FAIL "$TMPD/$name.cc" | head -3)"
	fi
done

# verdict FIXTURE BDF VERDICT LIMITED_BY [USABLE] [BOTTLENECK]
verdict() {
	local j="$TMPD/$1.lspci.json" sel="[x for x in d['devices'] if x['bdf']=='$2'][0]"
	check_eq "$1 $2 verdict" "$3" "$(json_get "$j" "$sel['verdict']")"
	check_eq "$1 $2 limited_by" "$4" "$(json_get "$j" "$sel['limited_by']")"
	[ -z "${5:-}" ] || check_eq "$1 $2 usable" "$5" "$(json_get "$j" "'%.2f' % $sel['ceiling_gb_per_s']['usable']")"
	[ -z "${6:-}" ] || check_eq "$1 $2 bottleneck" "$6" "$(json_get "$j" "$sel['bottleneck_bdf']")"
}
verdict gen5_port_gen3_drive 0000:01:00.0 downgraded device 3.60 0000:01:00.0
verdict gen5_port_gen3_drive 0000:02:00.0 downgraded port 3.60
verdict gen5_port_gen3_drive 0000:03:00.0 downgraded port
verdict gen4_trained_gen3 0000:01:00.0 downgraded training 3.60
verdict width_x2 0000:01:00.0 downgraded training 3.60
verdict switch_chain_gen2 0000:05:00.0 downgraded path 7.31 0000:03:00.0
verdict switch_chain_gen2 0000:06:00.0 downgraded device 3.60 0000:06:00.0
verdict sriov_vf 0000:01:00.0 ok none 14.40
verdict sriov_vf 0000:01:00.1 ok none 14.40
verdict link_down 0000:01:00.0 link_down none
verdict pre3_no_lnkcap2 0000:01:00.0 ok none 1.83
verdict nic_idle 0000:01:00.0 maybe_idle training
j=$TMPD/sriov_vf.lspci.json
check_eq "VF names its PF" "0000:01:00.0" "$(json_get "$j" "d['devices'][1]['physical_function']")"
check_eq "VF path starts at the PF" "0000:01:00.0" "$(json_get "$j" "d['devices'][2]['path'][0]['bdf']")"
check_eq "switch path hops" "endpoint switch_downstream switch_upstream switch_downstream switch_upstream root_port" \
	"$(json_get "$TMPD/switch_chain_gen2.lspci.json" "' '.join(h['role'] for h in d['devices'][0]['path'])")"
check_eq "pre-3.0: no LnkCap2" "None" "$(json_get "$TMPD/pre3_no_lnkcap2.lspci.json" "d['devices'][0]['function']['supported_speeds_gts']")"
check_eq "LnkCap2 preferred" "[2.5, 5, 8, 16, 32]" "$(json_get "$TMPD/switch_chain_gen2.lspci.json" "d['devices'][0]['path'][1]['supported_speeds_gts']")"

# Text: one row per device with the reason in words.
out=$("$P" --pci-dump "$D/gen5_port_gen3_drive.lspci")
check_match "text row" "0000:01:00.0 +- 8 GT/s x4 +8 GT/s x4 +3.60 downgraded +\(device\) host port capable of 32 GT/s x4, drive capable of only 8 GT/s x4" "$out"
out=$("$P" --pci-dump "$D/switch_chain_gen2.lspci" -v --dev 05:00.0)
check_match "-v lists hops" "0000:03:00.0 switch_upstream +LnkCap 5 GT/s x16" "$out"
check_match "-v marks the narrowest" "0000:02:00.0 <- 0000:03:00.0: downgraded.*\[narrowest\]" "$out"
finish
