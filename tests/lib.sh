# tests/lib.sh: helpers for the suite's shell tests (sourced, never run).
# Each test is a bash script run by automake's harness: exit 0 pass, 77 skip, else fail.
# The harness exports abs_top_builddir and abs_top_srcdir.
# shellcheck shell=bash disable=SC2034 # the paths are the tests'
set -u

: "${abs_top_builddir:=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
: "${abs_top_srcdir:=$abs_top_builddir}"
NVME_READ_BW="$abs_top_builddir/nvme_read_bw/nvme_read_bw"
NVME_WRITE_BW_REMOTE="$abs_top_builddir/nvme_write_bw_remote/nvme_write_bw_remote"
NVME_LINK_PROBE="$abs_top_builddir/nvme_link_probe/nvme_link_probe"
BLOCKDIGEST="$abs_top_builddir/tests/blockdigest"
FIXTURES="$abs_top_srcdir/tests/fixtures"
: "${PYTHON3:=python3}"

T_FAILS=0
T_CHECKS=0

# vlab_py CODE [ARG...]: run the Python CODE with the lab's package (python/nbw/lab)
# seen as one module `vlab` (its ARGs are sys.argv[3:]): vlab.NAME is NAME of whichever
# of the package's modules defines it, and vlab.NAME = VALUE replaces NAME in every
# module that uses it (so a test can stand in for err, Qmp, ...); no bytecode is
# written into the source tree.
vlab_py() {
	PYTHONDONTWRITEBYTECODE=1 "$PYTHON3" - "$abs_top_srcdir/python" "$@" <<'PY'
import importlib, pkgutil, sys, types
sys.path.insert(0, sys.argv[1])
import nbw.lab
mods = [importlib.import_module("nbw.lab." + m.name) for m in pkgutil.iter_modules(nbw.lab.__path__)]
class Lab(types.ModuleType):
    def __getattr__(self, name):
        for m in mods:
            if name in vars(m):
                return vars(m)[name]
        raise AttributeError(name)
    def __setattr__(self, name, value):
        for m in mods:
            if name in vars(m):
                setattr(m, name, value)
vlab = Lab("vlab")
exec(sys.argv[2])
PY
}

# A private scratch directory, removed on exit.
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/nbwtest.XXXXXX")
t_cleanup_hooks=()
t_cleanup() {
	local h
	for h in "${t_cleanup_hooks[@]}"; do eval "$h"; done
	rm -rf "$TMPD"
}
trap t_cleanup EXIT

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; T_FAILS=$((T_FAILS + 1)); }
ok() { echo "ok: $*"; }

# check_eq WHAT EXPECTED ACTUAL
check_eq() {
	T_CHECKS=$((T_CHECKS + 1))
	if [ "$2" = "$3" ]; then ok "$1 = $3"; else fail "$1: expected '$2', got '$3'"; fi
}

# check_match WHAT REGEX TEXT (extended regex)
check_match() {
	T_CHECKS=$((T_CHECKS + 1))
	if printf '%s' "$3" | grep -Eq -- "$2"; then ok "$1"; else fail "$1: '$3' does not match /$2/"; fi
}

# expect_exit CODE REGEX CMD...: runs CMD with a 60 s limit; its exit code must be CODE and its
# stderr exactly one line matching REGEX (when REGEX is non-empty), plus an optional
# "Try ... --help" hint for usage errors.
expect_exit() {
	local code=$1 re=$2 rc lines
	shift 2
	T_CHECKS=$((T_CHECKS + 1))
	timeout 60 "$@" >"$TMPD/out" 2>"$TMPD/err"
	rc=$?
	lines=$(grep -vc "^Try '.* --help' for more information.$" "$TMPD/err")
	if [ "$rc" != "$code" ]; then
		fail "'$*': exit $rc, expected $code; stderr: $(head -c 400 "$TMPD/err")"
	elif [ -n "$re" ] && ! grep -Eq -- "$re" "$TMPD/err"; then
		fail "'$*': stderr '$(head -c 400 "$TMPD/err")' does not match /$re/"
	elif [ -n "$re" ] && [ "$lines" != 1 ]; then
		fail "'$*': $lines lines on stderr, expected one: $(head -c 400 "$TMPD/err")"
	else
		ok "'$*' -> exit $code: $(head -n1 "$TMPD/err")"
	fi
}

# json_get FILE EXPR: evaluates a Python expression on the parsed document 'd'.
json_get() {
	"$PYTHON3" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# json_valid FILE: the file holds exactly one JSON document.
json_valid() {
	"$PYTHON3" -c 'import json,sys; json.load(open(sys.argv[1]))' "$1" 2>/dev/null
}

# make_pattern FILE BYTES [ID]: the lab's position-dependent pattern
# (scripts/vlab.d/pattern.py: every 8-byte word names its own offset and ID).
make_pattern() {
	"$PYTHON3" "$abs_top_srcdir/scripts/vlab.d/pattern.py" write "$1" "$2" "${3:-0}"
}

# finish: exit status from the checks made.
finish() {
	echo "$T_CHECKS checks, $T_FAILS failed"
	[ "$T_CHECKS" -gt 0 ] || { echo "FAIL: no checks ran"; exit 1; }
	[ "$T_FAILS" -eq 0 ]
}
