#!/bin/bash
# Lab test: nvme_read_bw on the real NVMe driver, 4096-byte logical blocks,
# with the fio anchor (see read_bw_lib.sh).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
lbs=4096 anchors=fio
. "$(dirname "$0")/read_bw_lib.sh"
