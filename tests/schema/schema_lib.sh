# tests/schema/schema_lib.sh: helpers of the schema tests (sourced, never run): the
# documents validated against schema/*.schema.json by tests/schema/validate.py, with
# python3-jsonschema (scripts/quickstart installs it).
# shellcheck shell=bash
VALIDATE=("$PYTHON3" "$abs_top_srcdir/tests/schema/validate.py")

# need_jsonschema: go on only with python3's jsonschema. Without it the test skips and
# says why; in CI ($NBW_CI=1, .ci/run), where quickstart has installed it, it fails.
need_jsonschema() {
	"$PYTHON3" -c 'import jsonschema' 2>/dev/null && return 0
	local why="python3's jsonschema is not installed (Debian: python3-jsonschema; scripts/quickstart deps installs it)"
	if [ "${NBW_CI:-0}" = 1 ]; then
		fail "$why"
		finish
		exit 1
	fi
	skip "$why"
}

# validate [--part|--refused] [--schema NAME] FILE...: validate.py's verdict on each
# file, each a check (its lines in the log); a validator that ends without a verdict
# on every file fails too.
validate() {
	local out rc n
	out=$("${VALIDATE[@]}" "$@" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	n=$(grep -c '^\(ok\|FAIL\): ' <<<"$out")
	T_CHECKS=$((T_CHECKS + n))
	T_FAILS=$((T_FAILS + $(grep -c '^FAIL: ' <<<"$out")))
	if [ "$rc" != 0 ] && ! grep -q '^FAIL: ' <<<"$out"; then
		fail "validate.py exited $rc without a verdict"
	fi
}

# drop: for each line "FILE|OUT|PYTHON" of stdin, OUT is FILE's document with the Python
# statement applied to it (d: the document), e.g. 'del d["total"]["gb_per_s"]': broken
# copies for validate --refused (one interpreter for all).
drop() {
	"$PYTHON3" -c 'import json, sys
for line in sys.stdin:
    if line.strip():
        src, out, code = line.rstrip("\n").split("|", 2)
        d = json.load(open(src))
        exec(code)
        json.dump(d, open(out, "w"))'
}
