#!/bin/bash
# tests/read_bw/discovery.sh: nvme_read_bw finds NVMe namespaces in sysfs trees laid out as the
# kernel does (written by tests/fixtures/sysfs/mksysfs.py at test time: real sysfs links
# loop, which a release tarball cannot hold): each namespace once, hidden multipath paths
# skipped, two namespaces of one controller both found, details from the controller.
. "$(dirname "$0")/../lib.sh"
fx="$TMPD/sysfs"
"$PYTHON3" "$FIXTURES/sysfs/mksysfs.py" "$fx" || fail "mksysfs.py exited $?"

"$NVME_READ_BW" --sysfs-root "$fx/two-ns" --list --json >"$TMPD/two.json" || fail "--list exited $?"
j() { json_get "$TMPD/two.json" "$1"; }
check_eq "two-ns: namespaces, sorted, no sda/loop0" \
	"['/dev/nvme0n1', '/dev/nvme0n2', '/dev/nvme1n1', '/dev/nvme2n1']" "$(j '[x["path"] for x in d["drives"]]')"
check_eq "two-ns: both namespaces of nvme0 on its controller" "['nvme0', 'nvme0']" \
	"$(j '[x["controller"] for x in d["drives"][:2]]')"
check_eq "two-ns: model (padding stripped)" "Vendor Gen4 3.84TB" "$(j 'd["drives"][0]["model"]')"
check_eq "two-ns: PCI address" "0000:82:00.0" "$(j 'd["drives"][2]["pci_address"]')"
check_eq "two-ns: NUMA nodes" "[0, 0, 1, -1]" "$(j '[x["numa_node"] for x in d["drives"]]')"
check_eq "two-ns: logical block sizes" "[512, 4096, 512, 512]" \
	"$(j '[x["logical_block_size"] for x in d["drives"]]')"
check_eq "two-ns: size from sectors" 3840755982336 "$(j 'd["drives"][0]["size"]')"
check_eq "two-ns: fabric controller has no PCI address" "tcp None" \
	"$(j 'd["drives"][3]["transport"] + " " + str(d["drives"][3]["pci_address"])')"

"$NVME_READ_BW" --sysfs-root "$fx/multipath" --list --json >"$TMPD/mp.json" || fail "--list exited $?"
j() { json_get "$TMPD/mp.json" "$1"; }
check_eq "multipath: heads counted once, hidden paths skipped" \
	"['/dev/nvme0n1', '/dev/nvme0n2', '/dev/nvme2n1']" "$(j '[x["path"] for x in d["drives"]]')"
check_eq "multipath: paths per namespace" "[2, 2, 1]" "$(j '[x["paths"] for x in d["drives"]]')"
check_eq "multipath: lowest controller speaks for the head" "nvme0 0000:3b:00.0 1" \
	"$(j 'd["drives"][0]["controller"] + " " + d["drives"][0]["pci_address"] + " " + str(d["drives"][0]["numa_node"])')"
check_eq "multipath: model from the controller" "Dual Port Drive" "$(j 'd["drives"][1]["model"]')"

# Text listing: the same drives, one line each after the heading.
check_eq "text list rows" 3 "$("$NVME_READ_BW" --sysfs-root "$fx/multipath" --list | grep -c '^/dev/nvme')"
# An empty tree: a clear error, not an empty result.
mkdir -p "$TMPD/empty/class/block"
expect_exit 1 "no NVMe namespaces found under .*/class/block; name targets with --disks" \
	"$NVME_READ_BW" --sysfs-root "$TMPD/empty" -D 1
finish
