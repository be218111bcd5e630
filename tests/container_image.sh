#!/bin/bash
# make check-slow: the OCI image built from the Debian archive (scripts/container build,
# minutes: mmdebstrap, the .deb, the runtime packages), then checked from inside:
# every tool's --version is configure's, nvme_read_bw --checksum of a bind-mounted
# pattern file equals tests/blockdigest of it, the unit tests pass in the image, and
# `scripts/container run --minimal` grants what it says. Not part of make check.
# Needs root, podman and mmdebstrap (apt-get install podman mmdebstrap runc).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"
C=$abs_top_srcdir/scripts/container
[ "$(id -u)" = 0 ] || skip "not root (mmdebstrap --mode=root, podman import)"
for c in podman mmdebstrap; do command -v $c >/dev/null || skip "$c not found (apt-get install podman mmdebstrap runc)"; done
ver=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' "$abs_top_builddir/config.h")
[ -n "$ver" ] || { fail "no PACKAGE_VERSION in $abs_top_builddir/config.h"; finish; }
check_eq "scripts/container version = configure's" "$ver" "$("$C" version)"
IMG=$("$C" image)

# --- the build ----------------------------------------------------------------------
t0=$(date +%s)
"$C" build ${CONTAINER_REBUILD_BASE:+--rebuild-base} >"$TMPD/build.out" 2>"$TMPD/build.err"
rc=$?
cat "$TMPD/build.err" "$TMPD/build.out"
check_eq "scripts/container build: exit status" 0 "$rc"
[ "$rc" = 0 ] || { finish; exit 1; }
echo "build: $(($(date +%s) - t0)) s; image size: $(podman image inspect --format '{{.Size}}' "$IMG") bytes"
check_match "build prints the image and its size" "^$IMG: built in [0-9]+ s, [0-9]+ MB" "$(cat "$TMPD/build.out")"

# run ARGS... -- CMD: scripts/container run, stdout in $TMPD/run.out, stderr in run.err
run() { timeout 300 "$C" run "$@" >"$TMPD/run.out" 2>"$TMPD/run.err"; }

# --- the tools' versions ---------------------------------------------------------------
for t in nvme_read_bw nvme_write_bw_remote nvme_link_probe; do
	run --minimal -- "$t" --version
	check_eq "in the image: $t --version" "0 $t (nvme-rdma-bw) $ver" "$? $(cat "$TMPD/run.out")"
done
run --minimal -- sh -c 'for c in ib_write_bw lspci; do command -v $c >/dev/null || echo "no $c"; done
	ls /usr/lib/*/libibverbs/librxe-rdmav*.so >/dev/null 2>&1 || echo "no verbs providers"
	[ -e /lib/udev/rules.d/60-rdma-persistent-naming.rules ] || echo "no rdma-core"
	for p in build-essential gcc debhelper; do dpkg -s $p >/dev/null 2>&1 && echo "build tool $p"; done; echo end'
check_eq "in the image: perftest, pciutils, providers, rdma-core; no build tools" "end" "$(cat "$TMPD/run.out")"
run --minimal -- nvme_write_bw_remote --help
check_eq "in the image: --psk-file built in (libcrypto)" "1 0" \
	"$(grep -c -- '--psk-file FILE' "$TMPD/run.out") $(grep -c 'not built' "$TMPD/run.out")"

# --- a bind-mounted pattern file: the digest of what was read is the file's -----------
make_pattern "$TMPD/pattern" $((16 * 1024 * 1024 + 8192)) 3
want=$("$BLOCKDIGEST" "$TMPD/pattern")
run --minimal -v "$TMPD/pattern:/data/pattern:ro" -- \
	nvme_read_bw --disks /data/pattern -t 2 -s 256K --warmup 0 -D 1 --checksum --json
check_eq "in the image: nvme_read_bw --disks FILE: exit status" 0 $?
check_eq "in the image: digest of the bind-mounted file = tests/blockdigest" "$want" \
	"$(json_get "$TMPD/run.out" 'd["drives"][0]["checksum"]["digest"]')"
check_eq "in the image: the first sweep complete" True "$(json_get "$TMPD/run.out" 'd["drives"][0]["checksum"]["complete"]')"

# --- --minimal grants only IPC_LOCK and SYS_NICE, and says so; default is privileged ---
run --minimal -- sh -c 'grep ^CapEff /proc/self/status'
check_eq "--minimal: CapEff = IPC_LOCK | SYS_NICE" "CapEff:	0000000000804000" "$(cat "$TMPD/run.out")"
check_match "--minimal: prints what it granted" 'granted: --cap-add IPC_LOCK: ' "$(cat "$TMPD/run.err")"
check_match "--minimal: memlock said" 'granted: --ulimit memlock=' "$(cat "$TMPD/run.err")"
run -- sh -c 'grep ^CapEff /proc/self/status'
cap=$(awk '{ print $2 }' "$TMPD/run.out")
# Privileged: every capability this machine's root has (SYS_ADMIN = bit 21 among them).
check_eq "default: privileged (CapEff = the host's bounding set)" \
	"$(awk '/^CapBnd/ { print $2 }' /proc/self/status) 1" "$cap $(((0x${cap:-0} >> 21) & 1))"
check_match "default: says --privileged" 'granted: --privileged' "$(cat "$TMPD/run.err")"
run --minimal --io-uring -- sh -c 'grep ^Seccomp: /proc/self/status'
check_eq "--minimal --io-uring: no seccomp filter" "Seccomp:	0" "$(cat "$TMPD/run.out")"
check_match "--minimal --io-uring: says why" 'granted: --security-opt seccomp=unconfined: io_uring' "$(cat "$TMPD/run.err")"

# --- the unit tests, run in the image (the build tree mounted read-only; io_uring
# allowed, as test_region sweeps a file with both engines) ---------------------------
# Those make check runs as they are (test_linkload, run by tests/unit/linkload.sh on the tree
# it writes first, takes an argument: not here). The Makefile's own TESTS: without the
# MAKEFLAGS of the make that runs this test, whose TESTS= (check-slow's) would win.
unit=$(printf 'print-tests:\n\t@echo $(TESTS)\n' | env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
	make -s --no-print-directory -C "$abs_top_builddir" -f Makefile -f - print-tests |
	tr ' ' '\n' | grep '^tests/unit/test_')
n=0
for t in $unit; do
	t=$abs_top_builddir/$t
	[ -x "$t" ] && [ -f "$t" ] || continue
	n=$((n + 1))
	run --minimal --io-uring -v "$abs_top_builddir:$abs_top_builddir:ro" -v "$abs_top_srcdir:$abs_top_srcdir:ro" -- \
		sh -c 'cd /tmp && exec "$0"' "$t"
	rc=$?
	check_eq "in the image: ${t##*/}" 0 "$rc"
	[ "$rc" = 0 ] || tail -n 20 "$TMPD/run.out" "$TMPD/run.err"
done
check_eq "unit tests found (make check-slow builds them)" yes "$([ "$n" -ge 4 ] && echo yes || echo no)"
finish
