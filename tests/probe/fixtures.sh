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
	check_eq "$name: no drive's health log read from a dump" True \
		"$(json_get "$TMPD/$name.json" "all(x['health'] == {'log_read': False, 'why': 'not read: a dump holds no controller'} for x in d['devices'] if x['kind'] == 'nvme')")"
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
	check_eq "$1 $2 verdict" "$3" "$(json_get "$j" "${sel}['verdict']")"
	check_eq "$1 $2 limited_by" "$4" "$(json_get "$j" "${sel}['limited_by']")"
	[ -z "${5:-}" ] || check_eq "$1 $2 usable" "$5" "$(json_get "$j" "'%.2f' % ${sel}['ceiling_gb_per_s']['usable']")"
	[ -z "${6:-}" ] || check_eq "$1 $2 bottleneck" "$6" "$(json_get "$j" "${sel}['bottleneck_bdf']")"
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

# Text (a row per device with the reason in words; -v: the hops, the narrowest marked,
# why no slot): tests/golden.sh, probe/gen5_port_gen3_drive and probe/switch_chain_gen2_v_dev.

# ---- slot ceilings: computed here from the fixtures' descriptions -------------------
# ceil GT/s WIDTH [MPS]: "raw usable" with raw = GT/s x width x encoding / 8 and
# usable = raw x MPS / (MPS + 24).
ceil() {
	"$PYTHON3" -c 'import sys
s, w, m = float(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
raw = s * w * (0.8 if s < 8 else 128 / 130) / 8
print("%.6f %.6f" % (raw, raw * m / (m + 24)))' "$1" "$2" "${3:-256}"
}
# r2 NUMBER...: each to two decimals (the JSON keeps six significant digits).
r2() { "$PYTHON3" -c 'import sys; print(" ".join("%.2f" % float(x) for x in sys.argv[1:]))' "$@"; }
# slotceil FIXTURE BDF GT/s WIDTH BOTTLENECK
slotceil() {
	local j="$TMPD/$1.lspci.json" sel="[x for x in d['devices'] if x['bdf']=='$2'][0]"
	# shellcheck disable=SC2046 # the two ceilings, raw and usable
	check_eq "$1 $2 slot ceiling ($3 GT/s x$4)" "$(r2 $(ceil "$3" "$4"))" \
		"$(json_get "$j" "'%.2f %.2f' % (${sel}['slot_ceiling_gb_per_s']['raw'], ${sel}['slot_ceiling_gb_per_s']['usable'])")"
	check_eq "$1 $2 slot bottleneck" "$5" "$(json_get "$j" "${sel}['slot_bottleneck_bdf']")"
}
# A Gen5 port holding a Gen3 drive: the slot gives Gen5 x4; a Gen3 port: Gen3 x4; a Gen4
# port whose target is 8 GT/s: the slot is Gen4 (a setting, not the slot).
slotceil gen5_port_gen3_drive 0000:01:00.0 32 4 0000:00:01.0
slotceil gen5_port_gen3_drive 0000:02:00.0 8 4 0000:00:02.0
slotceil gen5_port_gen3_drive 0000:03:00.0 16 4 0000:00:03.0
# A bifurcated x2 port: Gen4 x2 whatever the drive.
slotceil bifurcated_x2 0000:01:00.0 16 2 0000:00:01.0
slotceil bifurcated_x2 0000:02:00.0 16 2 0000:00:01.1
# A Gen2 x8 switch upstream link above Gen4 drives: the hop binds, named by its lower end.
slotceil switch_gen2_x8 0000:03:00.0 5 8 0000:01:00.0
slotceil switch_gen2_x8 0000:04:00.0 5 8 0000:01:00.0
slotceil switch_chain_gen2 0000:05:00.0 5 16 0000:03:00.0

# ---- slots ------------------------------------------------------------------------
j=$TMPD/gen5_port_gen3_drive.lspci.json
check_eq "audit sorted by slot" "1:0000:02:00.0 2:0000:03:00.0 3:0000:01:00.0" \
	"$(json_get "$j" "' '.join('%s:%s' % (x['slot']['number'], x['bdf']) for x in d['devices'])")"
check_eq "slot object" "{'number': 3, 'name': None, 'port_bdf': '0000:00:01.0'}" \
	"$(json_get "$j" "[x for x in d['devices'] if x['bdf']=='0000:01:00.0'][0]['slot']")"
j=$TMPD/board_wired_x4.lspci.json
sel="[x for x in d['devices'] if x['bdf']=='0000:01:00.0'][0]"
check_eq "no slot: null" "None" "$(json_get "$j" "${sel}['slot']")"
check_match "no slot: the reason" "port 0000:00:01.0 implements no slot" "$(json_get "$j" "${sel}['slot_reason']")"
check_eq "slotless sorts last" "0000:02:00.0 0000:01:00.0" "$(json_get "$j" "' '.join(x['bdf'] for x in d['devices'])")"
check_match "wired port: wiring as likely as training" \
	"link at 16 GT/s x4 on a port without a slot: the board may route only 4 lanes \(wiring\), as likely as a training fault" \
	"$(json_get "$j" "${sel}['reason']")"
check_match "slot port: training" "reseat, retrain" "$(json_get "$j" "[x for x in d['devices'] if x['bdf']=='0000:02:00.0'][0]['reason']")"

out=$("$P" --pci-dump "$D/gen5_port_gen3_drive.lspci" --slot 3,1 --json)
check_eq "--slot selects" "0000:02:00.0 0000:01:00.0" "$(printf '%s' "$out" | "$PYTHON3" -c 'import json,sys; print(" ".join(x["bdf"] for x in json.load(sys.stdin)["devices"]))')"
out=$("$P" --pci-dump "$D/gen5_port_gen3_drive.lspci" --slot 2 --dev 01:00.0 --json)
check_eq "--slot with --dev" "0000:03:00.0 0000:01:00.0" "$(printf '%s' "$out" | "$PYTHON3" -c 'import json,sys; print(" ".join(x["bdf"] for x in json.load(sys.stdin)["devices"]))')"
expect_exit 1 "nvme_link_probe: --slot 9: no NVMe controller or RDMA device in such a slot in the dump" \
	"$P" --pci-dump "$D/gen5_port_gen3_drive.lspci" --slot 9

# ---- site slot specification ------------------------------------------------------------
G5=$D/gen5_port_gen3_drive.lspci
printf '# bay gen width\n1 3 4\n\n2 3 4   # target-capped bay\n0000:01:00.0 3 4\n' >"$TMPD/ok.spec"
expect_exit 0 "" "$P" --pci-dump "$G5" --expect-file "$TMPD/ok.spec"
printf '1 4 4\n2 3 4\n3 3 4\n' >"$TMPD/short.spec"
expect_exit 3 "^nvme_link_probe: slot 1: expected 16 GT/s x4 \($TMPD/short.spec:1\), 0000:02:00.0 runs at 8 GT/s x4$" \
	"$P" --pci-dump "$G5" --expect-file "$TMPD/short.spec"
"$P" --pci-dump "$G5" --expect-file "$TMPD/short.spec" --json >"$TMPD/short.json" 2>/dev/null
check_eq "site_spec in JSON" "False slot 1 1" "$(json_get "$TMPD/short.json" "d['site_spec']['met'], d['site_spec']['short'][0]['bay'], d['site_spec']['short'][0]['line']" | tr -d "(),'")"
printf '1 3 4\n9 4 4\n' >"$TMPD/empty.spec"
expect_exit 3 "slot 9: expected 16 GT/s x4 \(.*empty.spec:2\), no device found in it" \
	"$P" --pci-dump "$G5" --expect-file "$TMPD/empty.spec"
expect_exit 0 "" "$P" --pci-dump "$G5" --expect-file "$TMPD/empty.spec" --slot 1
bad_spec() {
	# shellcheck disable=SC2059 # CONTENT is a printf format
	printf "$1" >"$TMPD/bad.spec"
	expect_exit 2 "^nvme_link_probe: $TMPD/bad.spec:$2: $3" "$P" --pci-dump "$G5" --expect-file "$TMPD/bad.spec"
}
bad_spec '1 3 4\n# x\n2 4\n' 3 "expected 'slot-or-bdf gen width'"
bad_spec '1 3 4 4\n' 1 "expected 'slot-or-bdf gen width'"
bad_spec '1 9 4\n' 1 "not a PCIe generation \(1-6\) '9'"
bad_spec '\n1 4 3\n' 2 "not a PCIe link width \(1 2 4 8 12 16 32\) '3'"
bad_spec '00:zz.0 4 4\n' 1 "not a PCI address '00:zz.0'"
bad_spec '1 3 4\n1 4 4\n' 2 "bay already specified on an earlier line '1'"
expect_exit 1 "nvme_link_probe: /nonexistent.spec: No such file or directory" \
	"$P" --pci-dump "$G5" --expect-file /nonexistent.spec

# The wired x4 link accepted as the board's design; a bay expecting x4 trips on slot 2.
W=$D/board_wired_x4.lspci
printf '0000:01:00.0 4 4   # four lanes routed\n2 4 2\n' >"$TMPD/wired.spec"
"$P" --pci-dump "$W" --expect-file "$TMPD/wired.spec" --json >"$TMPD/wired.json"
check_eq "accepted: exit" 0 $?
sel="[x for x in d['devices'] if x['bdf']=='0000:01:00.0'][0]"
check_eq "accepted: verdict ok" "ok" "$(json_get "$TMPD/wired.json" "${sel}['verdict']")"
check_match "accepted: reason" "below the 16 GT/s x8 both ends support, as the site specification expects \(.*wired.spec:1\)" \
	"$(json_get "$TMPD/wired.json" "${sel}['reason']")"
check_eq "accepted in site_spec" "True True" "$(json_get "$TMPD/wired.json" "${sel}['site_spec']['met'], ${sel}['site_spec']['accepted']" | tr -d "(),'")"
printf '0000:01:00.0 4 4\n2 4 4\n' >"$TMPD/wired2.spec"
expect_exit 3 "slot 2: expected 16 GT/s x4 \(.*wired2.spec:2\), 0000:02:00.0 runs at 16 GT/s x2" \
	"$P" --pci-dump "$W" --expect-file "$TMPD/wired2.spec"

# ---- --project: sums checked against the per-drive arithmetic -----------------------------
u() { ceil "$1" "$2" | cut -d' ' -f2; }
sum() { "$PYTHON3" -c 'import sys; print("%.2f" % sum(float(x) for x in sys.argv[1:]))' "$@"; }
"$P" --pci-dump "$G5" --project --json >"$TMPD/p.json"
# proj KEY SLOTS EXPECTED
proj() {
	check_eq "projection $1 $2" "$3" "$(json_get "$TMPD/p.json" "'%.2f' % [s for s in d['projection']['scenarios'] if s['scenario']=='$1'][0]['$2']['usable']")"
}
# Slots 3 (Gen5), 1 (Gen3), 2 (Gen4 with target 8): as they are the drives run
# Gen3, Gen3, Gen3; fixed, a drive runs its own speed.
G3=$(u 8 4) G4=$(u 16 4) G5x4=$(u 32 4)
proj as_is slots_as_they_are_gb_per_s "$(sum "$G3" "$G3" "$G3")"
proj as_is slots_fixed_gb_per_s "$(sum "$G3" "$G4" "$G4")"
proj gen4x4 slots_as_they_are_gb_per_s "$(sum "$G4" "$G3" "$G3")"
proj gen4x4 slots_fixed_gb_per_s "$(sum "$G4" "$G4" "$G4")"
proj gen5x4 slots_as_they_are_gb_per_s "$(sum "$G5x4" "$G3" "$G3")"
proj gen5x4 slots_fixed_gb_per_s "$(sum "$G5x4" "$G5x4" "$G5x4")"
check_eq "projection today" "$(sum "$G3" "$G3" "$G3")" "$(json_get "$TMPD/p.json" "'%.2f' % d['projection']['today_gb_per_s']")"
check_match "projection names the slots" "slot 1 \(8 GT/s x4\), slot 2 \(8 GT/s x4\)" \
	"$(json_get "$TMPD/p.json" "d['projection']['scenarios'][1]['slots_as_they_are_gb_per_s']['held_back_by']")"
check_eq "fixed: nothing holds back" "None" "$(json_get "$TMPD/p.json" "d['projection']['scenarios'][1]['slots_fixed_gb_per_s']['held_back_by']")"
out=$("$P" --pci-dump "$G5" --project)
check_match "--project table" "every drive Gen4 x4 +$(sum "$G4" "$G3" "$G3") +$(sum "$G4" "$G4" "$G4")" "$out"
check_match "--project: RDMA unknown in a dump" "RDMA port state unknown for 3 drives" "$out"
# A shared Gen2 x8 uplink: the per-drive sum counts it twice; the capped sum once.
"$P" --pci-dump "$D/switch_gen2_x8.lspci" --project --json >"$TMPD/s.json"
check_eq "shared uplink: per-drive sum" "$(sum "$(u 5 8)" "$(u 5 8)")" "$(json_get "$TMPD/s.json" "'%.2f' % d['projection']['scenarios'][1]['slots_fixed_gb_per_s']['usable']")"
check_eq "shared uplink: capped" "$(r2 "$(u 5 8)")" "$(json_get "$TMPD/s.json" "'%.2f' % d['projection']['scenarios'][1]['slots_fixed_gb_per_s']['shared_links_capped']")"
# The headline and the table say the uplink, not the per-drive sum.
check_eq "shared uplink: today capped" "$(r2 "$(u 5 8)") $(sum "$(u 5 8)" "$(u 5 8)")" \
	"$(json_get "$TMPD/s.json" "'%.2f %.2f' % (d['projection']['today_gb_per_s'], d['projection']['today_summed_gb_per_s'])")"
check_match "shared uplink: today capped by" "^hop 0000:01:00.0 \(5 GT/s x8: $(r2 "$(u 5 8)") GB/s for 2 drives\)$" \
	"$(json_get "$TMPD/s.json" "d['projection']['today_capped_by']")"
check_eq "shared uplink: each drive names it" "0000:01:00.0 2 0000:01:00.0 2" \
	"$(json_get "$TMPD/s.json" "' '.join('%s %d' % (x['shared_uplink']['bdf'], x['shared_uplink']['drives']) for x in d['devices'])")"
check_eq "own uplinks: none shared" "[None, None, None]" \
	"$(json_get "$TMPD/p.json" "[x['shared_uplink'] for x in d['devices']]")"
out=$("$P" --pci-dump "$D/switch_gen2_x8.lspci" --project)
check_match "shared uplink: headline" "today, as trained: $(r2 "$(u 5 8)")\)" "$out"
check_match "shared uplink: the table marks it" "shared uplink: hop 0000:01:00.0 \(5 GT/s x8" "$out"
check_match "shared uplink: scenario capped" "drives as they are +$(r2 "$(u 5 8)") +$(r2 "$(u 5 8)")" "$out"
check_match "shared uplink: held back by the hop" "hop 0000:01:00.0 \(5 GT/s x8\)" "$(json_get "$TMPD/s.json" "d['projection']['scenarios'][1]['slots_fixed_gb_per_s']['held_back_by']")"
# Bifurcated x2: fixing the slot's speed cannot add lanes.
"$P" --pci-dump "$D/bifurcated_x2.lspci" --project --json >"$TMPD/b.json"
check_eq "x2 slots, Gen5 drives, slots fixed" "$(sum "$(u 32 2)" "$(u 32 2)")" "$(json_get "$TMPD/b.json" "'%.2f' % d['projection']['scenarios'][2]['slots_fixed_gb_per_s']['usable']")"
# Payload: MPS set (DevCtl) against the largest both ends support (DevCap), and MRRS.
M=$D/mps_lowered.lspci
j=$TMPD/mps_lowered.lspci.json
lk() { json_get "$j" "[x for x in d['devices'] if x['bdf']=='$1'][0]['links'][0]$2"; }
check_eq "MPS 128 of 512: sizes" "128 512" "$(lk 0000:01:00.0 "['mps']") $(lk 0000:01:00.0 "['mps_supported']")"
check_eq "MPS 128 of 512: usable set, usable supported" "3.32 3.76" \
	"$(json_get "$j" "'%.2f %.2f' % tuple(x['links'][0][k] for x in d['devices'] if x['bdf']=='0000:01:00.0' for k in ('usable_gb_per_s', 'usable_at_supported_mps_gb_per_s'))")"
check_eq "MPS 128 of 512: the finding" "MPS 128 where 512 is supported: usable 3.32 of 3.94 GB/s raw, 3.76 at MPS 512" \
	"$(lk 0000:01:00.0 "['payload']")"
check_eq "MRRS 128 below MPS 256: the finding" "MRRS 128 below MPS 256: its reads of memory usable 3.32 GB/s" \
	"$(lk 0000:02:00.0 "['payload']")"
check_eq "MRRS: usable reads, MPS as supported" "3.32 256 256" \
	"$(json_get "$j" "' '.join(str(v) for x in d['devices'] if x['bdf']=='0000:02:00.0' for v in ('%.2f' % x['links'][0]['usable_reads_gb_per_s'], x['links'][0]['mps'], x['links'][0]['mps_supported']))")"
check_eq "MPS 512 of 512: no finding" "None" "$(lk 0000:03:00.0 "['payload']")"
check_eq "no other fixture has a payload finding" "" \
	"$(for f in "$TMPD"/*.lspci.json; do case $f in */mps_lowered.*) continue ;; esac; json_get "$f" "' '.join(l['payload'] for x in d['devices'] for l in x['links'] if l['payload'])"; done | tr -d '\n')"
out=$("$P" --pci-dump "$M")
check_match "the table: payload line under the row" "payload: link 0000:00:01.0 <- 0000:01:00.0: MPS 128 where 512 is supported" "$out"
expect_exit 3 "0000:01:00.0: expectation not met: link 0000:00:01.0 <- 0000:01:00.0: MPS 128 where 512" \
	"$P" --pci-dump "$M" --expect mps --dev 0000:01:00.0
expect_exit 3 "0000:02:00.0: expectation not met: link 0000:00:02.0 <- 0000:02:00.0: MRRS 128 below MPS 256" \
	"$P" --pci-dump "$M" --expect mps --dev 0000:02:00.0
expect_exit 0 "" "$P" --pci-dump "$M" --expect gen3x4
expect_exit 0 "" "$P" --pci-dump "$M" --expect mps --dev 0000:03:00.0
"$P" --pci-dump "$M" --expect mps --expect gen3x4 --json >"$TMPD/mps.json" 2>/dev/null
check_eq "--expect mps in JSON" "True False gen3:True x4 None" \
	"$(json_get "$TMPD/mps.json" "'%s %s gen3:%s x%s %s' % (d['expect']['mps'], d['expect']['met'], d['expect']['speed_gts'] == 8, d['expect']['width'], d['devices'][2]['expectation']['reason'])")"
finish
