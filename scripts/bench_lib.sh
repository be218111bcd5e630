# scripts/bench_lib.sh: what run_bench.sh, scale_sweep.sh and bench_remote.sh share,
# sourced from the directory they are in (scripts/ in the source tree, $(pkgdatadir)
# once installed), where the package nbw sits too. The caller sets prog (its name in
# messages).
# shellcheck shell=bash disable=SC2154 # prog: set by the script that sources this

# The package nbw (the suite's Python): beside this file once installed ($(pkgdatadir)),
# in ../python/ in the source tree.
nbw_lib_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ -d "$nbw_lib_dir/nbw" ] || nbw_lib_dir=$(cd "$nbw_lib_dir/../python" 2>/dev/null && pwd) || nbw_lib_dir=

# nbw_py MODULE ARG...: python3 -m nbw.MODULE ARG... ($PYTHON3 names another python3).
nbw_py() {
	PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$nbw_lib_dir${PYTHONPATH:+:$PYTHONPATH} \
		"${PYTHON3:-python3}" -m "nbw.$1" "${@:2}"
}

say() { echo "$prog: $*" >&2; }

die_usage() {
	say "$*"
	exit 2
}

# new_run_dir BASE: the directory of a new run, created: BASE/$RUN_NAME when
# RUN_NAME is set (an existing one is used as it is), else BASE/<UTC time
# stamp>, with .1, .2, ... appended while that name is taken. Prints the path;
# status 1 after a message when it cannot be created.
new_run_dir() {
	local name=${RUN_NAME:-$(date -u +%Y%m%dT%H%M%SZ)} dir n=1
	dir=$1/$name
	if [ -z "${RUN_NAME:-}" ]; then
		while [ -e "$dir" ]; do dir=$1/$name.$n; n=$((n + 1)); done
	fi
	mkdir -p "$dir" || { say "cannot create $dir"; return 1; }
	printf '%s\n' "$dir"
}
