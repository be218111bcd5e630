#!/bin/bash
# scripts/container without building anything: usage errors exit 2 with one line; the
# version is configure's; `run --dry-run` with a fake podman: privileged by default,
# --minimal grants exactly IPC_LOCK and SYS_NICE (and SYS_ADMIN with --probe, no seccomp
# with --io-uring); the runtime fallback (runc, nofile/nproc limits) is used only when
# podman's defaults fail, and said; memlock falls back to the hard limit, said.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"
C=$abs_top_srcdir/scripts/container
ver=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' "$abs_top_builddir/config.h")

expect_exit 2 'which command' "$C"
expect_exit 2 "unknown command 'make'" "$C" make
expect_exit 2 'run: no command' "$C" run --minimal
expect_exit 2 "run: unknown argument 'ls'" "$C" run ls
expect_exit 2 '--probe goes with --minimal' "$C" run --probe -- true
expect_exit 2 '--io-uring goes with --minimal' "$C" run --io-uring -- true
expect_exit 2 "build: unknown argument '--fast'" "$C" build --fast
check_eq "version = configure's PACKAGE_VERSION" "$ver" "$("$C" version)"
check_eq "image name" "localhost/nvme-rdma-bw:$ver" "$("$C" image)"

# A fake podman: records its calls; FAKE_NEED_RUNC: "run" fails unless --runtime runc;
# FAKE_NO_MEMLOCK: "run" with memlock=-1:-1 fails.
mkdir -p "$TMPD/bin"
cat >"$TMPD/bin/podman" <<'SH'
#!/bin/bash
echo "$*" >>"$FAKE_LOG"
a=" $* "
case $a in *" run "*) ;; *) exit 0 ;; esac
if [ -n "${FAKE_NEED_RUNC:-}" ] && [[ $a != *" --runtime runc "* ]]; then
	echo "Error: crun: setrlimit RLIMIT_NOFILE: Operation not permitted: OCI permission denied" >&2; exit 126
fi
if [ -n "${FAKE_NO_MEMLOCK:-}" ] && [[ $a == *memlock=-1:-1* ]]; then
	echo "Error: runc: error setting rlimit type 8: operation not permitted" >&2; exit 126
fi
exit 0
SH
chmod +x "$TMPD/bin/podman"
# A fake runc too: scripts/container only asks whether one is on PATH (a script, not a
# link to `command -v true`, which names the shell builtin and would dangle).
printf '#!/bin/sh\nexit 0\n' >"$TMPD/bin/runc"
chmod +x "$TMPD/bin/runc"
export PATH=$TMPD/bin:$PATH FAKE_LOG=$TMPD/podman.log
unset CONTAINER_PODMAN_ARGS FAKE_NEED_RUNC FAKE_NO_MEMLOCK

"$C" run --dry-run -- nvme_link_probe >"$TMPD/out" 2>"$TMPD/err"
check_eq "dry-run: exit 0" 0 $?
cmd=$(cat "$TMPD/out")
check_match "default: privileged, host network" '^podman run --rm -i --network host --privileged --ulimit memlock=-1:-1 localhost/nvme-rdma-bw:[^ ]+ nvme_link_probe $' "$cmd"
check_match "default: the grants on stderr" 'granted: --privileged: ' "$(cat "$TMPD/err")"
check_eq "default runtime works: no fallback said" "" "$(grep -c 'runtime fails' "$TMPD/err" | grep -v '^0$')"

"$C" run --minimal --dry-run --disks /dev/null -- nvme_read_bw >"$TMPD/out" 2>"$TMPD/err"
check_eq "--minimal --disks /dev/null (not a block device): exit 1" 1 $?
check_match "... named" '/dev/null: not a block device' "$(cat "$TMPD/err")"
"$C" run --minimal --dry-run --disks "" -- nvme_read_bw --list >"$TMPD/out" 2>"$TMPD/err"
cmd=$(cat "$TMPD/out")
check_match "--minimal: drop all, add IPC_LOCK and SYS_NICE only" \
	'--cap-drop all --cap-add IPC_LOCK --cap-add SYS_NICE( |$)' "$cmd"
check_eq "--minimal: not privileged, no SYS_ADMIN, seccomp kept" "" "$(grep -oE -- '--privileged|SYS_ADMIN|seccomp' <<<"$cmd")"
check_eq "--minimal: every granted device is RDMA or NVMe, read-only drives" "" \
	"$(grep -oE -- '--device [^ ]+' <<<"$cmd" | grep -vE -- '--device (/dev/infiniband/[^ ]+|/dev/nvme[0-9]+n[0-9]+:/dev/nvme[0-9]+n[0-9]+:r)$')"
check_match "--minimal: IPC_LOCK said with its reason" 'granted: --cap-add IPC_LOCK: lock the buffers' "$(cat "$TMPD/err")"
"$C" run --minimal --probe --io-uring --dry-run -- true >"$TMPD/out" 2>"$TMPD/err"
check_match "--probe: SYS_ADMIN; --io-uring: seccomp=unconfined" '--cap-add SYS_ADMIN .*--security-opt seccomp=unconfined' "$(cat "$TMPD/out")"

# podman's defaults fail: the runc fallback, said once; used for the run itself.
: >"$FAKE_LOG"
FAKE_NEED_RUNC=1 "$C" run --dry-run -- true >"$TMPD/out" 2>"$TMPD/err"
check_eq "fallback: exit 0" 0 $?
check_match "fallback: said on stderr" "podman's default runtime fails here \(Error: crun: setrlimit RLIMIT_NOFILE.*\); using --runtime runc --ulimit nofile=1024:1024 --ulimit nproc=1024:1024" "$(cat "$TMPD/err")"
check_match "fallback: the run uses it" '^podman --runtime runc run --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 --rm' "$(cat "$TMPD/out")"
check_eq "fallback: tried the defaults first" "run --rm --network none localhost/nvme-rdma-bw:$ver true" "$(head -n1 "$FAKE_LOG")"
FAKE_NEED_RUNC=1 CONTAINER_PODMAN_ARGS="--runtime runc" "$C" run --dry-run -- true >"$TMPD/out" 2>"$TMPD/err"
check_eq "CONTAINER_PODMAN_ARGS: no detection, no message" "" "$(grep 'runtime fails' "$TMPD/err")"
# memlock unlimited refused: the hard limit, said.
FAKE_NO_MEMLOCK=1 "$C" run --dry-run -- true >"$TMPD/out" 2>"$TMPD/err"
check_match "memlock fallback: said" '--ulimit memlock=-1:-1 fails on this machine' "$(cat "$TMPD/err")"
hl=$(ulimit -Hl)
if [ "$hl" != unlimited ]; then
	check_match "memlock fallback: the hard limit" "--ulimit memlock=$((hl * 1024)):$((hl * 1024)) " "$(cat "$TMPD/out")"
fi
finish
