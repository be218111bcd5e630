# tests/lab/link_probe_check.sh: the host side of the nvme_link_probe lab checks
# (sourced; see link_probe.sh): $out holds what link_probe_guest.sh recorded in a
# node with three drives behind root ports of 8 GT/s x4, 16 GT/s x4 and 2.5 GT/s x16
# (the last behind a switch). smoke.sh runs them in its boot; link_probe.sh
# alone boots a lab for them (by hand).
# shellcheck shell=bash disable=SC2154 # out: the caller's, with lab_lib.sh's PY, fail, note
[ -s "$out/probe.json" ] || fail "guest wrote no probe.json: $(cat "$out/probe.err" 2>/dev/null)"
[ "$(cat "$out/probe.rc")" = 0 ] || fail "probe exit $(cat "$out/probe.rc"): $(cat "$out/probe.err")"
j=$out/probe.json
q() { "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

speeds=(8 16 2.5)
widths=(4 4 16)
i=0
while read -r _ ctrl bdf; do
	sel="[x for x in d['devices'] if x['name']=='$ctrl'][0]"
	got=$(q "$j" "${sel}['bdf']")
	[ "$got" = "$bdf" ] || fail "$ctrl: probe says $got, sysfs $bdf"
	got=$(q "$j" "${sel}['path'][-1]['role'], ${sel}['path'][-1]['max_speed_gts'], ${sel}['path'][-1]['max_width']" | tr -d "(),'")
	want="root_port ${speeds[i]} ${widths[i]}"
	[ "$got" = "${want/root_port 8 /root_port 8.0 }" ] || [ "$got" = "$want" ] ||
		[ "$got" = "root_port ${speeds[i]}.0 ${widths[i]}" ] || fail "$ctrl: root port '$got', wanted '$want'"
	got=$(q "$j" "${sel}['link']['speed_gts'], ${sel}['link']['width'], ${sel}['verdict'], ${sel}['limited_by']" | tr -d "(),'")
	# Behind the switch, QEMU's downstream port advertises no LnkCap: the drive is at
	# its own maximum (device), but whether the port could do more is unknown (ok).
	want="2.5 1 downgraded device"
	[ $i = 2 ] && want="2.5 1 ok device"
	[ "$got" = "$want" ] || fail "$ctrl: link '$got', wanted '$want'"
	# The port's LnkCap and the drive's LnkSta as lspci prints them in the guest.
	rp=$(q "$j" "${sel}['path'][-1]['bdf']")
	line=$(grep "^$rp|" "$out/lspci.txt") || fail "$ctrl: lspci has no $rp"
	case $line in
	*"LnkCap: Port #"*", Speed ${speeds[i]}GT/s, Width x${widths[i]},"*) ;;
	*) fail "$ctrl: lspci for $rp: $line" ;;
	esac
	line=$(grep "^$bdf|" "$out/lspci.txt") || fail "$ctrl: lspci has no $bdf"
	case $line in
	*"LnkSta: Speed 2.5GT/s"*", Width x1"*) ;;
	*) fail "$ctrl: lspci LnkSta of $bdf: $line" ;;
	esac
	note "$ctrl ($bdf): root port $rp ${speeds[i]} GT/s x${widths[i]}, link 2.5 GT/s x1, limited_by device"
	# The slot: number from the port's SltCap, name from the kernel, as lspci says.
	port=$(q "$j" "${sel}['path'][1]['bdf']")
	want_num=$(grep "^$port|" "$out/slots.txt" | cut -d'|' -f3)
	want_name=$(grep "^$bdf|" "$out/slots.txt" | cut -d'|' -f2)
	got=$(q "$j" "((${sel}['slot'] or {}).get('number'), (${sel}['slot'] or {}).get('name'))" | tr -d "(),'")
	[ "$got" = "${want_num:-None} ${want_name:-None}" ] ||
		fail "$ctrl: slot '$got', lspci: port $port Slot #${want_num:-none}, Physical Slot ${want_name:-none} ($(tr '\n' ' ' <"$out/kslots.txt"))"
	[ $i = 2 ] || [ "$want_num" = $((i + 1)) ] || fail "$ctrl: lspci shows slot '$want_num' for $port, vlab passed slot=$((i + 1))"
	note "$ctrl: slot number ${want_num:-none} name ${want_name:-none} (= lspci)"
	if [ $i = 2 ]; then
		n=$(q "$j" "len(${sel}['path'])")
		[ "$n" -ge 4 ] || fail "$ctrl: path of $n hops, expected a switch in it"
		note "$ctrl: path of $n hops through the switch"
	fi
	i=$((i + 1))
done <"$out/drives.txt"
[ $i = 3 ] || fail "guest listed $i drives"

# Sorted by slot; --slot 1 selects the drive in slot 1; the bay short is named.
got=$(q "$j" "' '.join(str((x['slot'] or {}).get('number')) for x in d['devices'] if x['kind']=='nvme')")
# shellcheck disable=SC2086 # $got: the slot numbers, one a word
[ "$got" = "$(printf '%s\n' $got | sort -n | tr '\n' ' ' | sed 's/ $//')" ] || fail "drives not sorted by slot: $got"
note "drives in slot order: $got"
got=$(q "$out/slot1.json" "' '.join(str(x['slot']['number']) for x in d['devices'])")
[ "$got" = 1 ] || fail "--slot 1 selected slots '$got'"
[ "$(cat "$out/site.rc")" = 3 ] || fail "--expect-file exit $(cat "$out/site.rc"), expected 3: $(cat "$out/site.err")"
[ "$(wc -l <"$out/site.err")" = 1 ] || fail "--expect-file: not one line: $(cat "$out/site.err")"
grep -Eq "^nvme_link_probe: slot 2: expected 5 GT/s x1 \(.*site.spec:3\), nvme[0-9]+ \(0000:[0-9a-f:.]+\) runs at 2.5 GT/s x1$" "$out/site.err" ||
	fail "--expect-file message: $(cat "$out/site.err")"
note "site file: $(cat "$out/site.err")"

rd=$(guest_env a VLAB_RDMA_DEV)
got=$(q "$out/rdma.json" "d['devices'][0]['name'], d['devices'][0]['verdict'], d['devices'][0]['bdf']" | tr -d "(),'")
[ "$got" = "$rd no_link None" ] || fail "$rd: '$got' ($(cat "$out/rdma-sysfs.txt"))"
note "$rd: $(q "$out/rdma.json" "d['devices'][0]['reason']")"

[ "$(cat "$out/expect.rc")" = 3 ] || fail "--expect-width 4 exit $(cat "$out/expect.rc"), expected 3"
grep -q "expectation not met" "$out/expect.err" || fail "no audit message: $(cat "$out/expect.err")"

# nvme_read_bw's link ceiling is the probe's usable ceiling.
c0=$(q "$j" "'%.3f' % [x for x in d['devices'] if x['kind']=='nvme'][0]['ceiling_gb_per_s']['usable']")
c1=$(q "$out/read.json" "'%.3f' % d['drives'][0]['link_ceiling_gb_per_s']" 2>/dev/null) ||
	fail "nvme_read_bw JSON: $(head -c 300 "$out/read.json") $(cat "$out/read.err")"
[ "$c0" = "$c1" ] || fail "nvme_read_bw link ceiling $c1, probe $c0"
note "nvme_read_bw link_ceiling_gb_per_s $c1 = probe usable ceiling"

# The affinity matrix of the node's drives and its RDMA device, against its PCI tree.
[ "$(cat "$out/topo.rc")" = 0 ] || fail "--topology exit $(cat "$out/topo.rc"): $(cat "$out/topo.err")"
topo=$("$PY" "$srcdir/tests/lab/link_probe_topo.py" "$out" "$rd" 2>&1) || fail "matrix: $topo"
note "matrix: $(printf '%s\n' "$topo" | wc -l) pairs as the PCI tree places them ($(printf '%s\n' "$topo" | head -n1))"
grep -q "$rd" "$out/topo.txt" || fail "--topology text does not name $rd: $(head -c 400 "$out/topo.txt")"
