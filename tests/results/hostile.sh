#!/bin/bash
# nbw-results against hostile documents and a hostile record: a drive name holding a
# newline, a gnuplot command and terminal escapes is recorded escaped, and even written
# into the record raw it never reaches gnuplot's script (trend --out and report run
# nothing) nor a terminal (list, show, trend); a document nested past the bound or
# holding a lone surrogate is refused in one line, the record unchanged; a line of the
# record nested 100,000 deep is skipped like any bad line and list and show still work.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"
command -v "$PYTHON3" >/dev/null || skip "python3 not installed"
NR_PY="$abs_top_srcdir/scripts/nbw-results"
NR() { "$PYTHON3" "$NR_PY" "$@"; }
unset NBW_RESULTS NBW_RESULTS_INDEX NBW_RESULTS_TEST_FSTYPE NBW_RESULTS_TEST_CRASH_AFTER
export NBW_RESULTS=$TMPD/db
edit() {
	"$PYTHON3" -c 'import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[2])
open(sys.argv[1], "w").write(json.dumps(d))' "$1" "$2"
}
state() { sha256sum "$NBW_RESULTS/runs.jsonl" 2>/dev/null | cut -c1-16 || echo none; }
# no_control FILE...: the number of control bytes in them but newlines.
no_control() { cat "$@" | tr -d '\n' | LC_ALL=C grep -c '[[:cntrl:]]'; }

make_pattern "$TMPD/d.img" $((4 << 20)) 1
"$NVME_READ_BW" --disks "$TMPD/d.img" -t 1 -s 64K --warmup 0 -D 0.3 --json >"$TMPD/rb.json" 2>/dev/null ||
	fail "nvme_read_bw rb.json"
cp "$TMPD/rb.json" "$TMPD/evil.json"
P=$TMPD/pwned
edit "$TMPD/evil.json" "d['drives'][0]['name'] = d['drives'][0]['path'] = 'x\\nsystem(\"touch $P\")\\n\\x1b]0;owned\\x07'"
NR record "$TMPD/evil.json" >"$TMPD/out" 2>"$TMPD/err"
check_eq "a drive name with a newline, a command and escapes: recorded" 0 $?
NR show latest --json >"$TMPD/show.json"
check_eq "... escaped at record time" "x\\x0asystem(\"touch $P\")\\x0a\\x1b]0;owned\\x07" \
	"$(json_get "$TMPD/show.json" '[f["drive"] for f in d["figures"] if f["drive"]][0]')"
# The same line written into the record raw (an older suite's, or written by hand), its
# note and drive name holding a newline and a gnuplot command.
"$PYTHON3" -c 'import json, sys, uuid
e = json.loads(open(sys.argv[1]).readline())
e["uuid"] = str(uuid.uuid4())
e["note"] = "n\nsystem(\"touch p\")\n"  # a label keeps 40 characters
for f in e["figures"]:
    if f["drive"]:
        f["drive"] = "y\nsystem(\"touch %s\")\n\x1b[2J" % sys.argv[2]
open(sys.argv[1], "a").write(json.dumps(e) + "\n")' "$NBW_RESULTS/runs.jsonl" "$P"
NR list >"$TMPD/list" 2>&1
NR show latest >"$TMPD/show" 2>&1
NR trend read --node "$(json_get "$TMPD/show.json" 'd["figures"][0]["node"]')" >"$TMPD/trend" 2>&1
check_eq "list, show, trend: no control byte reaches the terminal" 0 \
	"$(no_control "$TMPD/list" "$TMPD/show" "$TMPD/trend")"
check_match "... the raw name shown escaped" "y\\\\x0asystem" "$(cat "$TMPD/show")"
if command -v gnuplot >/dev/null; then
	(cd "$TMPD" && NR trend read --out "$TMPD/t.png" && NR report --out "$TMPD/r.html") >/dev/null 2>&1
	check_eq "trend --out, report: gnuplot ran no recorded word" "no a PNG" \
		"$([ -e "$P" ] || [ -e "$TMPD/p" ] && echo yes || echo no) $([ "$(head -c 4 "$TMPD/t.png" | od -An -tx1 | tr -d ' \n')" = 89504e47 ] && echo a PNG)"
else
	echo "gnuplot not installed: trend --out not checked"
fi

before=$(state)
# Documents of runs of their own (no run id recorded already).
edit "$TMPD/rb.json" "d['provenance'].pop('run_id', None)"
cp "$TMPD/rb.json" "$TMPD/deep.json"
edit "$TMPD/deep.json" "x = []
for _ in range(70): x = [x]
d['drives'][0]['health'] = x"
expect_exit 1 "deep\\.json: nested deeper than 60 levels: not a tool's JSON, refused$" "$PYTHON3" "$NR_PY" record "$TMPD/deep.json"
"$PYTHON3" -c 'import sys
t = open(sys.argv[1]).read().replace("\"firmware\":", "\"firmware\": \"\\udc80\", \"was\":", 1)
open(sys.argv[2], "w").write(t)' "$TMPD/rb.json" "$TMPD/sur.json"
expect_exit 1 "sur\\.json: text that cannot be stored \\(a lone surrogate\\): refused, nothing recorded$" "$PYTHON3" "$NR_PY" record "$TMPD/sur.json"
check_eq "... the record unchanged" "$before" "$(state)"

# A line nested 100,000 deep in the record: skipped, every command still works.
"$PYTHON3" -c 'import sys
open(sys.argv[1], "a").write("{\"kind\":\"run\",\"uuid\":\"z\",\"figures\":[],\"inventory\":" + "[" * 100000 + "]" * 100000 + "}\n")' "$NBW_RESULTS/runs.jsonl"
NR list >"$TMPD/list" 2>"$TMPD/err"
check_eq "a nested line: list works" "0 2" "$? $(grep -c '^latest' "$TMPD/list")"
check_match "... the line skipped, said" "line 3: not valid JSON \\(nested deeper than 64 levels\\) \\(skipped\\)" "$(cat "$TMPD/err")"
NR show latest >/dev/null 2>&1
check_eq "... show works" 0 $?
"$NVME_READ_BW" --disks "$TMPD/d.img" -t 1 -s 64K --warmup 0 -D 0.3 --json >"$TMPD/rb2.json" 2>/dev/null
NR record "$TMPD/rb2.json" >/dev/null 2>&1
check_eq "... record works and the index holds it" "0 3" "$? $(NR list 2>/dev/null | grep -c '^latest')"
finish
