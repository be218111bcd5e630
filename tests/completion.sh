#!/bin/bash
# completion.sh: the bash completion (completions/) completes what the built tools offer:
# option names from each tool's option table (the same as its --help), engines, paths for
# --disks/--json=/--sysfs-root,
# RDMA devices and their netdevs from <sysfs>/class/infiniband; the two stub files load the same function.
. "$(dirname "$0")/lib.sh"

BC=/usr/share/bash-completion/bash_completion
[ -r "$BC" ] || skip "bash-completion is not installed ($BC; Debian: bash-completion)"
COMPDIR="$abs_top_srcdir/completions"

# The built tools come first in PATH: the completion runs "$1 --options-table" as typed.
PATH="$abs_top_builddir/nvme_read_bw:$abs_top_builddir/nvme_write_bw_remote:$abs_top_builddir/nvme_link_probe:$PATH"
# shellcheck disable=SC1090
. "$BC"
# shellcheck disable=SC1090
# shellcheck source=/dev/null # the completion under test, found at run time
. "$COMPDIR/nvme_read_bw"
# Outside a real completion compopt refuses to run; record nothing, succeed.
compopt() { :; }
# complete_line and words: what bash offers at the end of a line (tests/options/lib.sh).
. "$(dirname "$0")/options/lib.sh"

# Scratch files for the path completions, and a captured sysfs with two RDMA devices.
mkdir -p "$TMPD/d/sub" "$TMPD/sys/class/infiniband/mlx5_0" "$TMPD/sys/class/infiniband/rxe0" \
	"$TMPD/sys/class/nvme/nvme0" "$TMPD/sys/class/nvme/nvme1"
: >"$TMPD/d/a1"
: >"$TMPD/d/a2"
: >"$TMPD/d/b1"

# Option names.
check_eq "nvme_read_bw --eng<TAB>" "--engine" "$(words 'nvme_read_bw --eng')"
check_eq "nvme_read_bw --dur<TAB>" "--duration" "$(words 'nvme_read_bw --dur')"
check_eq "nvme_read_bw --js<TAB> (optional value: both forms)" "--json --json=" "$(words 'nvme_read_bw --js')"
check_eq "nvme_read_bw --no-such<TAB>" "" "$(words 'nvme_read_bw --no-such')"

# Every long option of every tool's --help, and nothing else, completes from "--".
for tool in nvme_read_bw nvme_write_bw_remote nvme_link_probe; do
	bin="$abs_top_builddir/$tool/$tool"
	[ -x "$bin" ] || { fail "$tool not built"; continue; }
	want=$("$bin" --help | grep -oE -- '--[A-Za-z0-9][A-Za-z0-9_-]*' | LC_ALL=C sort -u | tr '\n' ' ')
	got=$(complete_line "$tool --" | grep -v '=$' | tr '\n' ' ')
	check_eq "$tool --<TAB>: the options of its --help" "$want" "$got"
	# A tool with -d, --ib-dev: the short form completes RDMA devices too.
	if "$bin" --help | grep -Eq -- '-d, --ib-dev'; then
		check_eq "$tool --sysfs-root SYS -d <TAB>" "mlx5_0 rxe0" "$(words "$tool --sysfs-root $TMPD/sys -d ")"
	fi
done
# nvme_write_bw_remote's -d takes a port's netdev too: those under each device offered.
mkdir -p "$TMPD/sysnd/class/infiniband/mlx5_0/device/net/ens1f0np0" \
	"$TMPD/sysnd/class/infiniband/rxe0"
check_eq "nvme_write_bw_remote --sysfs-root SYS -d <TAB>: devices and netdevs" \
	"ens1f0np0 mlx5_0 rxe0" "$(words "nvme_write_bw_remote --sysfs-root $TMPD/sysnd -d ")"

# Engines: the completion's list, each named on nvme_read_bw's --engine help line.
check_eq "nvme_read_bw --engine <TAB>" "io_uring psync" "$(words 'nvme_read_bw --engine ')"
check_eq "nvme_read_bw --engine io<TAB>" "io_uring" "$(words 'nvme_read_bw --engine io')"
check_eq "nvme_read_bw --engine=<TAB>" "io_uring psync" "$(words 'nvme_read_bw --engine=')"
engine_help=$("$NVME_READ_BW" --help | grep -E -- '--engine ')
for e in $(words 'nvme_read_bw --engine '); do
	check_match "engine '$e' is in nvme_read_bw --help" "(^|[^a-z_])$e([^a-z_]|$)" "$engine_help"
done
check_eq "nvme_read_bw --numa <TAB> (choices in --help)" "auto off" "$(words 'nvme_read_bw --numa ')"
check_eq "nvme_read_bw --pattern <TAB> (choices in --help)" "rand seq" "$(words 'nvme_read_bw --pattern ')"
check_eq "nvme_read_bw --sweep-d<TAB>" "--sweep-depth" "$(words 'nvme_read_bw --sweep-d')"
if "$NVME_WRITE_BW_REMOTE" --help 2>/dev/null | grep -q -- '--source disk|mem'; then
	check_eq "nvme_write_bw_remote --source <TAB>" "disk mem" "$(words 'nvme_write_bw_remote --source ')"
	check_eq "nvme_write_bw_remote --local-disks DIR/b<TAB>" "$TMPD/d/b1" \
		"$(words "nvme_write_bw_remote --local-disks $TMPD/d/b")"
fi

# Options with a value the completion cannot guess: nothing, not option names.
check_eq "nvme_read_bw --threads <TAB>" "" "$(words 'nvme_read_bw --threads ')"
check_eq "nvme_read_bw -s <TAB>" "" "$(words 'nvme_read_bw -s ')"

# Paths.
check_eq "nvme_read_bw --disks DIR/a<TAB>" "$TMPD/d/a1 $TMPD/d/a2" "$(words "nvme_read_bw --disks $TMPD/d/a")"
check_eq "nvme_read_bw --disks DIR/a1,DIR/b<TAB> (list)" "$TMPD/d/a1,$TMPD/d/b1" \
	"$(words "nvme_read_bw --disks $TMPD/d/a1,$TMPD/d/b")"
check_eq "nvme_read_bw --disks DIR/s<TAB> (directory)" "$TMPD/d/sub/" "$(words "nvme_read_bw --disks $TMPD/d/s")"
check_eq "nvme_read_bw --json=DIR/a<TAB>" "$TMPD/d/a1 $TMPD/d/a2" "$(words "nvme_read_bw --json=$TMPD/d/a")"
check_eq "nvme_read_bw --sysfs-root DIR/<TAB> (directories only)" "$TMPD/d/sub" \
	"$(words "nvme_read_bw --sysfs-root $TMPD/d/")"
check_eq "nvme_link_probe --pci-dump DIR/b<TAB>" "$TMPD/d/b1" "$(words "nvme_link_probe --pci-dump $TMPD/d/b")"
check_eq "nvme_link_probe --expect-file DIR/b<TAB>" "$TMPD/d/b1" "$(words "nvme_link_probe --expect-file $TMPD/d/b")"
mkdir -p "$TMPD/sys/bus/pci/slots/6" "$TMPD/sys/bus/pci/slots/OCP0"
check_eq "nvme_link_probe --sysfs-root SYS --slot 6,<TAB>" "6,6 6,OCP0" \
	"$(words "nvme_link_probe --sysfs-root $TMPD/sys --slot 6,")"

# RDMA devices, from the sysfs named on the line.
check_eq "--sysfs-root SYS --ib-dev <TAB>" "mlx5_0 rxe0" "$(words "nvme_read_bw --sysfs-root $TMPD/sys --ib-dev ")"
check_eq "--sysfs-root=SYS --ib-dev r<TAB>" "rxe0" "$(words "nvme_read_bw --sysfs-root=$TMPD/sys --ib-dev r")"
check_eq "--sysfs-root SYS --ib-dev rxe0,m<TAB> (list)" "rxe0,mlx5_0" \
	"$(words "nvme_read_bw --sysfs-root $TMPD/sys --ib-dev rxe0,m")"
check_eq "nvme_link_probe --sysfs-root SYS --dev <TAB>" "mlx5_0 nvme0 nvme1 rxe0" \
	"$(words "nvme_link_probe --sysfs-root $TMPD/sys --dev ")"
check_eq "nvme_link_probe --sysfs-root SYS --dev nvme0,n<TAB> (list)" "nvme0,nvme0 nvme0,nvme1" \
	"$(words "nvme_link_probe --sysfs-root $TMPD/sys --dev nvme0,n")"

# The stubs: each name, loaded on its own as bash-completion would, gets the function.
for tool in nvme_write_bw_remote nvme_link_probe; do
	spec=$(bash -c '. "$1"; . "$2"; complete -p "$3"' _ "$BC" "$COMPDIR/$tool" "$tool" 2>&1)
	check_eq "completions/$tool registers" "complete -F _nvme_bw_suite $tool" "$spec"
done
finish
