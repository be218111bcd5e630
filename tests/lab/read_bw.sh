#!/bin/bash
# Lab test: nvme_read_bw on the real NVMe driver, 512-byte blocks, with the
# fio and ib_write_bw anchors (see read_bw_lib.sh).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
lbs=512 anchors="fio ib"
. "$(dirname "$0")/read_bw_lib.sh"
