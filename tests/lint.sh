#!/bin/bash
# lint.sh: the Python and the shell scripts of the tree are lint-clean, as format.sh
# keeps the C. pyflakes3 reads every Python file of scripts/ and tests/ (*.py and the
# python3 entry points); a line marked "# noqa" (an import made for its effect) is
# let through, as flake8 does. shellcheck reads the shell scripts of scripts/
# (entry points, *.sh, vlab.d/), deploy/ and tests/ (*.sh, the fakes, the lab's host
# and guest scripts), with the settings of .shellcheckrc. Any finding fails the
# test; it skips (77) only where a linter is not installed (CI installs both). The
# shape of scripts/ is checked too: no file over 700 lines, no function-local import
# in the package but a "# lazy: " one, no Python in a shell script.
. "$(dirname "$0")/lib.sh"
cd "$abs_top_srcdir" || exit 1

# The files to lint: by name (*.py, *.sh, *.sbatch) or, without a dot in the name,
# by their #! line. Fixtures' data and hidden directories are left out.
py=() sh=()
while IFS= read -r f; do
	case ${f##*/} in
	*.py) py+=("$f") ;;
	*.sh | *.sbatch) case $f in tests/fixtures/*) ;; *) sh+=("$f") ;; esac ;;
	*.*) ;;
	*)
		first=$(head -c 128 "$f" | head -n1 | tr -d '\0')
		case $first in
		'#!'*python3*) py+=("$f") ;;
		'#!'*/sh | '#!'*/bash | '#!'*' sh' | '#!'*' bash') sh+=("$f") ;;
		esac
		;;
	esac
done < <(find python scripts deploy tests -path '*/.*' -prune -o -type f -print | LC_ALL=C sort)
[ ${#py[@]} -ge 120 ] || fail "only ${#py[@]} Python files found"
[ ${#sh[@]} -ge 60 ] || fail "only ${#sh[@]} shell scripts found"
echo "lint: ${#py[@]} Python files, ${#sh[@]} shell scripts"

missing=()
if command -v pyflakes3 >/dev/null; then
	# A finding on a line that says "# noqa" is let through.
	found=$(pyflakes3 "${py[@]}" 2>&1 | while IFS= read -r line; do
		f=${line%%:*} rest=${line#*:}
		n=${rest%%:*}
		if [[ $n =~ ^[0-9]+$ ]] && sed -n "${n}p" "$f" 2>/dev/null | grep -q '# noqa'; then
			continue
		fi
		printf '%s\n' "$line"
	done)
	check_eq "pyflakes3 findings" "" "$found"
else
	missing+=("pyflakes3 (apt-get install pyflakes3)")
fi
if command -v shellcheck >/dev/null; then
	found=$(shellcheck -f gcc "${sh[@]}" 2>&1)
	check_eq "shellcheck findings" "" "$found"
else
	missing+=("shellcheck (apt-get install shellcheck)")
fi

# The shape of scripts/ and python/ (no linter needed): no file over 700 lines; no import
# inside a function of the package but a lazy one that says why ("# lazy: ..."); no Python in a
# shell script (a heredoc, or a python3 -c over several lines: pyflakes cannot read it;
# a module run by nbw_py instead).
check_eq "files of scripts/ and python/ over 700 lines" "" \
	"$(find scripts python -type f -not -path '*/__pycache__/*' -exec awk 'END { if (NR > 700) print FILENAME ": " NR }' {} \;)"
[ -d python/nbw ] || fail "no python/nbw: the package moved?"
check_eq "imports inside a function of python/nbw" "" \
	"$(grep -rnE '^[[:space:]]+(from [.[:alnum:]_]+ import|import [.[:alnum:]_]+)' --include='*.py' python/nbw |
		grep -v '# lazy: ')"
check_eq "Python in the shell scripts of scripts/" "" \
	"$(grep -nE "(python3?|PYTHON3[}\"]*)[^|;&]*(<<[^<]|-c +'[^']*\$)" "${sh[@]}" | grep '^scripts/')"
[ ${#missing[@]} = 0 ] || [ "$T_FAILS" != 0 ] || skip "not installed: ${missing[*]}"
finish
