# tests/scripts/lib.sh: fakes for the tests of the orchestration scripts
# (sourced after tests/lib.sh). Everything lives in $TMPD, so a leftover
# process is one whose command line names $TMPD.
#
#   $TMPD/bin/ssh          an ssh stand-in: records its argv, joins the words
#                          after HOST with spaces and runs them with sh -c
#   $TMPD/bin/fake-srun    an srun stand-in (-N1 -w HOST CMD...): records its
#                          argv, runs CMD's argv unchanged
#   $TMPD/bin/kubectl      a kubectl stand-in (exec [-i] [-n NS] [-c C] POD -- CMD...):
#                          records its argv, runs CMD's argv unchanged in a session
#                          of its own, so that, as with the real one, killing the
#                          client leaves the command running; pod "gone" is NotFound
#   $TMPD/tools/           TOOL_DIR: the real nvme_read_bw and a fake
#                          nvme_write_bw_remote driven by files in $TMPD/fake/
# shellcheck shell=bash disable=SC2034,SC2154 # lib.sh's abs_top_srcdir; the paths are the tests'
# shellcheck disable=SC2010,SC2012 # ls lists and counts the files this test made
RUN_BENCH=$abs_top_srcdir/scripts/run_bench.sh
SCALE_SWEEP=$abs_top_srcdir/scripts/scale_sweep.sh
PLOT_SCALING=$abs_top_srcdir/scripts/plot_scaling
# run_bench.sh records every run (nbw-results) unless told not to: the tests
# that check the recording set RESULTS themselves.
export RESULTS=none

make_fakes() {
	mkdir -p "$TMPD/bin" "$TMPD/tools" "$TMPD/fake" "$TMPD/calls"
	ln -sf "$NVME_READ_BW" "$TMPD/tools/nvme_read_bw"
	cat >"$TMPD/bin/ssh" <<'SH'
#!/bin/bash
# Records argv NUL-separated in calls/ssh.N, then behaves like ssh HOST WORDS...
d=$(cd "$(dirname "$0")/.." && pwd)
n=$(ls "$d/calls" | wc -l)
# Two calls at once may count the same n: the file is created exclusively (set -C),
# and the later one takes the next number, so no call overwrites another.
until (set -C; printf '%s\0' "$@" >"$d/calls/ssh.$n") 2>/dev/null; do n=$((n + 1)); done
shift
exec sh -c "$*"
SH
	cat >"$TMPD/bin/fake-srun" <<'SH'
#!/bin/bash
# Records argv NUL-separated in calls/srun.N, then runs the command's argv
# after "-N1 -w HOST", as srun does.
d=$(cd "$(dirname "$0")/.." && pwd)
n=$(ls "$d/calls" | wc -l)
# Two calls at once may count the same n: the file is created exclusively (set -C),
# and the later one takes the next number, so no call overwrites another.
until (set -C; printf '%s\0' "$@" >"$d/calls/srun.$n") 2>/dev/null; do n=$((n + 1)); done
[ "$1" = -N1 ] && [ "$2" = -w ] || { echo "fake-srun: expected -N1 -w HOST" >&2; exit 2; }
shift 3
exec "$@"
SH
	cat >"$TMPD/bin/kubectl" <<'SH'
#!/bin/bash
# Records argv NUL-separated in calls/kubectl.N, then behaves like
# kubectl exec [-i] [-n NS] [-c CONTAINER] POD -- CMD...: CMD's argv unchanged (no
# shell), its exit status; a dying client does not stop CMD (its own session).
d=$(cd "$(dirname "$0")/.." && pwd)
n=$(ls "$d/calls" | wc -l)
# Two calls at once may count the same n: the file is created exclusively (set -C),
# and the later one takes the next number, so no call overwrites another.
until (set -C; printf '%s\0' "$@" >"$d/calls/kubectl.$n") 2>/dev/null; do n=$((n + 1)); done
[ "${1:-}" = exec ] || { echo "fake kubectl: only exec" >&2; exit 1; }
shift
pod=
while [ $# -gt 0 ]; do
	case $1 in
	-i | --stdin | -t | --tty) ;;
	-n | --namespace | -c | --container) shift ;;
	--namespace=* | --container=*) ;;
	--) shift; break ;;
	-*) echo "error: unknown flag: $1" >&2; exit 1 ;;
	*) [ -z "$pod" ] || { echo "error: exec [POD] [COMMAND] is not supported anymore. Use exec [POD] -- [COMMAND] instead" >&2; exit 1; }
	   pod=$1 ;;
	esac
	shift
done
[ -n "$pod" ] || { echo "error: expected 'exec (POD | TYPE/NAME) [-c CONTAINER] [flags] -- COMMAND [args...]'." >&2; exit 1; }
[ "$pod" != gone ] || { echo "Error from server (NotFound): pods \"$pod\" not found" >&2; exit 1; }
[ $# -gt 0 ] || { echo "error: you must specify at least one command for the container" >&2; exit 1; }
setsid "$@" <&0 &
wait $!
SH
	cat >"$TMPD/tools/nvme_write_bw_remote" <<'SH'
#!/bin/bash
# Fake nvme_write_bw_remote: no peer = sink, a peer = source. Steered by files
# in ../fake: sink.fail, sink.hang, sink.invalid (total_valid false),
# source.refuse (refusals before success), source.fail, source.hang. Records
# its argv in ../fake/argv.ROLE (the last call, one word a line) and appends it
# to ../fake/calls.ROLE (one call a line, words tab-separated).
f=$(cd "$(dirname "$0")/../fake" && pwd)
last=${!#}
role=source
[ "$last" = --json ] && role=sink
# --bidir: the first of a pair plays the sink's part (waits), the second the source's.
bidir=
case " $* " in *" --bidir "*)
	bidir=1
	if mkdir "$f/bidir.first" 2>/dev/null; then role=sink; else role=source; fi ;;
esac
nsrc=1
case " $* " in *" --sources "*) nsrc=$(printf '%s\n' "$@" | sed -n '/^--sources$/{n;p;}') ;; esac
printf '%s\n' "$@" >"$f/argv.$role"
{ printf '%s\t' "$@"; echo; } >>"$f/calls.$role"
bidir_json() { # bidir_json SENT_BYTES RECEIVED_BYTES: the report --bidir prints
	printf '{"tool":"nvme_write_bw_remote","role":"bidir","send":{"role":"source","verify":"pass",'
	printf '"drives":[{"path":"x"}],"rdma":{"bytes":%d,"seconds":6}},' "$1"
	printf '"receive":{"role":"sink","verify":"pass","drives":[],"rdma":{"bytes":%d,"seconds":6}},' "$2"
	printf '"bidir":{"peer":"%s","send_gb_per_s":%s,"receive_gb_per_s":%s,"sum_gb_per_s":%s,' "$last" \
		"$(awk "BEGIN{print $1/6e9}")" "$(awk "BEGIN{print $2/6e9}")" "$(awk "BEGIN{print ($1+$2)/6e9}")"
	printf '"overlap_pct":99.5,"sum_valid":true,"sum_invalid_reason":null},"exit_status":0}\n'
}
json() { # json ROLE LOCAL_BYTES RDMA_BYTES VERIFY
	printf '{"tool":"nvme_write_bw_remote","role":"%s","ok":true,"verify":"%s",' "$1" "$4"
	printf '"drives":[{"path":"x"},{"path":"y"}],"local":{"bytes":%d,"seconds":6,"gb_per_s":%s},' "$2" "$(awk "BEGIN{print $2/6e9}")"
	printf '"rdma":{"bytes":%d,"seconds":6,"gb_per_s":%s},' "$3" "$(awk "BEGIN{print $3/6e9}")"
	printf '"total":{"bytes":%d,"seconds":6,"gb_per_s":%s},' $(($2 + $3)) "$(awk "BEGIN{print ($2+$3)/6e9}")"
	printf '"ideal_gb_per_s":1.0,"percent_of_ideal":%s,' "$(awk "BEGIN{print ($2+$3)/6e9*100}")"
	if [ "$1" != sink ]; then
		printf '"total_valid":null}\n'
	elif [ -e "$f/sink.invalid" ]; then
		printf '"total_valid":false,"total_invalid_reason":"overlap 80.0%% < 99%%"}\n'
	else
		printf '"total_valid":true,"total_invalid_reason":null}\n'
	fi
}
fanin_json() { # fanin_json N: the sink's report of N sources, each 1.5 GB in 6 s
	local i
	printf '{"tool":"nvme_write_bw_remote","role":"sink","ok":true,"verify":"pass","drives":[{"path":"x"}'
	for ((i = 2; i < $1 + 2; i++)); do printf ',{"path":"10.0.0.%d:/dev/nvme0n1"}' $i; done
	printf '],"sources":['
	for ((i = 2; i < $1 + 2; i++)); do
		[ $i = 2 ] || printf ','
		printf '{"peer":"10.0.0.%d","ok":true,"verify":"pass","rdma":{"bytes":1500000000,"seconds":6,"gb_per_s":0.25}}' $i
	done
	printf '],"local":{"bytes":3000000000,"seconds":6,"gb_per_s":0.5},'
	printf '"rdma":{"bytes":%d,"seconds":6,"gb_per_s":%s},' $(($1 * 1500000000)) "$(awk "BEGIN{print $1/4}")"
	printf '"total":{"bytes":%d,"seconds":6,"gb_per_s":%s},' $((3000000000 + $1 * 1500000000)) "$(awk "BEGIN{print 0.5+$1/4}")"
	printf '"ideal_gb_per_s":1.5,"percent_of_ideal":50,"total_valid":true,"total_invalid_reason":null}\n'
}
if [ "$role" = sink ] && [ "$nsrc" -gt 1 ]; then
	rm -f "$f"/done.*
	echo "nvme_write_bw_remote: sink: waiting for the sources on every address port 18515" >&2
	for ((i = 0; i < 600; i++)); do
		[ "$(ls "$f" | grep -c '^done\.')" -ge "$nsrc" ] && { fanin_json "$nsrc"; exit 0; }
		sleep 0.1
	done
	echo "nvme_write_bw_remote: no source connected within 60 s (--wait)" >&2
	exit 1
fi
if [ "$role" = sink ]; then
	[ -e "$f/sink.fail" ] && { echo "nvme_write_bw_remote: cannot allocate 16GiB of DRAM: Cannot allocate memory (lower --dram)" >&2; exit 1; }
	rm -f "$f/source.done" # a previous pair's (run_bench.sh ladder runs two)
	echo "nvme_write_bw_remote: sink: waiting for a source on every address port 18515" >&2
	for ((i = 0; i < 600; i++)); do
		[ -e "$f/source.done" ] && [ -n "$bidir" ] && { rmdir "$f/bidir.first"; bidir_json 1200000000 1800000000; exit 0; }
		[ -e "$f/source.done" ] && { json sink 3000000000 1500000000 pass; exit 0; }
		[ -e "$f/source.failed" ] && { echo "nvme_write_bw_remote: source: connection lost" >&2; exit 1; }
		sleep 0.1
	done
	echo "nvme_write_bw_remote: no source connected within 60 s (--wait)" >&2
	exit 1
fi
# Sources of one fan-in start side by side: the count is read and written under
# a lock, or two of them read the same count and both are refused.
tries=$(flock "$f/source.lock" sh -c \
	't=$(($(cat "$1" 2>/dev/null || echo 0) + 1)); echo "$t" >"$1"; echo "$t"' sh "$f/source.tries")
if [ "$tries" -le "$(cat "$f/source.refuse" 2>/dev/null || echo 0)" ]; then
	echo "nvme_write_bw_remote: $last port 18515: Connection refused" >&2
	exit 1
fi
if [ -e "$f/source.hang" ]; then
	while :; do sleep 0.1; done
fi
if [ -e "$f/source.fail" ]; then
	touch "$f/source.failed"
	echo "nvme_write_bw_remote: RDMA data verification: FAIL (worker 0: canary differs)" >&2
	exit 1
fi
touch "$f/source.done" "$f/done.$$"
[ -n "$bidir" ] && { bidir_json 1800000000 1200000000; exit 0; }
json source 0 1500000000 pass
SH
	chmod +x "$TMPD/bin/ssh" "$TMPD/bin/fake-srun" "$TMPD/bin/kubectl" "$TMPD/tools/nvme_write_bw_remote"
}

# reset_fakes: a fresh fake state and no recorded calls.
reset_fakes() {
	rm -rf "$TMPD/fake" "$TMPD/calls"
	mkdir -p "$TMPD/fake" "$TMPD/calls"
}

# calls_of KIND N: argv of the N-th recorded call of that launcher, one word per line
# (\n inside a word shown as \\n).
nth_call() {
	local f
	f=$(ls "$TMPD/calls/$1".* 2>/dev/null | sort -t. -k2 -n | sed -n "$2p")
	[ -n "$f" ] && tr '\n\0' '\001\n' <"$f" | sed 's/\x01/\\n/g'
}

# leftovers: processes whose command line names $TMPD (our fakes, timeouts, launchers).
leftovers() {
	pgrep -af -- "$TMPD" | grep -v "pgrep" || true
}
