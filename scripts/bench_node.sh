# scripts/bench_node.sh: how run_bench.sh runs a command on a node (sourced by it from
# beside itself; not a command): through the launcher (nbw.launcher's rule, nbw-fleet's
# too: LAUNCHER, LAUNCHER_QUOTE, kubectl), bounded by a time limit on the node and here,
# its pid left on the node so that an interrupted run can stop it; a node that is this
# machine runs it itself. Uses bench_lib.sh's nbw_py and run_bench.sh's run_id.
# shellcheck shell=bash disable=SC2154 # run_id: set by run_bench.sh

# launcher_py VERB ARG...: nbw.launcher (LAUNCHER... HOST CMD..., one rule with nbw-fleet)
# with this run's launcher settings.
launcher_py() {
	LAUNCHER=${LAUNCHER:-} LAUNCHER_QUOTE=${LAUNCHER_QUOTE:-} nbw_py launcher "$@"
}

# launcher_words VERB ARG...: launcher_py's NUL-separated words into the array lw,
# through a file, not a process substitution: a host without /dev/fd (the virtual
# lab's guests) has none, and the command line came out empty. 1: no words.
launcher_words() {
	local f
	lw=()
	f=$(mktemp "${TMPDIR:-/tmp}/nbw-launcher.XXXXXX") || return 1
	launcher_py "$@" >"$f"
	mapfile -d '' lw <"$f"
	rm -f "$f"
	[ ${#lw[@]} -gt 0 ]
}

this_machine=() # its names, asked once (launcher_py here)
is_this_machine() {
	local n lw
	if [ ${#this_machine[@]} = 0 ] && launcher_words here; then
		this_machine=("${lw[@]}")
	fi
	for n in "${this_machine[@]}"; do [ "$1" = "$n" ] && return 0; done
	return 1
}

# The remote side of every command: timeout-bounded, its pid in PIDFILE so that
# an interrupted run can stop it (ssh, pdsh and kubectl exec leave a remote command
# running when the client dies).
remote_wrapper='pf=$1; shift; timeout -k 5 "$@" & echo $! >"$pf"; wait $!; rc=$?; rm -f "$pf"; exit $rc'

# node_cmd NODE LIMIT TAG CMD...: the local command line (in run_cmd) that runs
# CMD on NODE, bounded to LIMIT seconds there and LIMIT + 30 here. TAG names
# the command's pidfile on the node (for stop_on_node).
node_cmd() {
	local node=$1 limit=$2 tag=$3 lw
	shift 3
	if is_this_machine "$node"; then
		run_cmd=(timeout -k 5 "$limit" "$@")
		return
	fi
	if ! launcher_words argv "$node" \
		sh -c "$remote_wrapper" sh "/tmp/nbw-run_bench.$run_id.$tag.pid" "$limit" "$@"; then
		say "$node: the launcher's rule gave no command line (nbw.launcher failed)"
		run_cmd=(false)
		return
	fi
	run_cmd=(timeout -k 5 $((limit + 30)) "${lw[@]}")
}

# stop_on_node NODE TAG: end the command that was started on NODE with TAG.
stop_on_node() {
	local node=$1 tag=$2 run_cmd
	is_this_machine "$node" && return 0
	node_cmd "$node" 20 "stop-$tag" sh -c \
		'[ -s "$1" ] && kill -TERM "$(cat "$1")" 2>/dev/null; rm -f "$1"; exit 0' \
		sh "/tmp/nbw-run_bench.$run_id.$tag.pid"
	"${run_cmd[@]}" </dev/null >/dev/null 2>&1
}

started=() # "pid node tag" of the commands running in the background
# start_bg OUT ERR NODE LIMIT TAG CMD...: CMD on NODE in the background, its
# stdout into OUT, its stderr into ERR; the local pid in bg_pid.
start_bg() {
	local out=$1 err=$2 run_cmd
	shift 2
	node_cmd "$@"
	(exec "${run_cmd[@]}") </dev/null >"$out" 2>"$err" &
	bg_pid=$!
	started+=("$bg_pid $1 $3")
}
