#!/bin/bash
# The remote tool's rails by affinity against nvme_link_probe --topology on the same
# fixture tree (tests/fixtures/pci/gen.py sysfs --topo): for every drive the source's
# preferred ports (source/affinity.c, through tests/remote/test_affinity) are the probe's
# nearest ACTIVE RDMA device and those as near, with the same relation.
. "$abs_top_srcdir/tests/lib.sh"
command -v "$PYTHON3" >/dev/null || skip "python3 not installed"
R=$TMPD/topo
"$PYTHON3" "$FIXTURES/pci/gen.py" sysfs "$R" --topo
"$NVME_LINK_PROBE" --sysfs-root "$R" --topology --json >"$TMPD/t.json" || fail "probe exit $?"
want=$(json_get "$TMPD/t.json" "'\n'.join(' '.join([n['bdf'], 'pcie', x['relation']] + sorted([x['rdma']] + x['equally_near'])) for x in d['topology']['nearest_rdma'] for n in d['topology']['devices'] if n['name'] == x['name'])")
bdfs=$(json_get "$TMPD/t.json" "' '.join(n['bdf'] for n in d['topology']['devices'] if n['kind'] == 'nvme')")
# shellcheck disable=SC2086 # one argument per drive
got=$("$abs_top_builddir/tests/remote/test_affinity" "$R" $bdfs)
check_eq "five drives placed" 5 "$(printf '%s\n' "$want" | wc -l)"
check_eq "the source's ports per drive = the probe's nearest" "$want" "$got"
check_match "nvme1 (PXB) takes mlx5_0" "0000:08:00.0 pcie PXB mlx5_0$" "$got"
check_match "nvme2 (PHB) takes mlx5_0 and rxe0" "0000:09:00.0 pcie PHB mlx5_0 rxe0$" "$got"
# A drive the tree does not hold: numa for all, and why.
got=$("$abs_top_builddir/tests/remote/test_affinity" "$R" 0000:03:00.0 0000:77:00.0)
check_eq "a drive outside the tree: numa" "0000:03:00.0 numa - 0000:77:00.0 numa -" "$(printf '%s' "$got" | tr '\n' ' ')"
finish
