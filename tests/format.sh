#!/bin/bash
# format.sh: the C sources follow .clang-format (kernel style) exactly, and no
# line of them is over 100 columns (tabs at 8), so that the format cannot drift;
# no C file of the tools and libraries is over 700 lines, and no folder holds
# more than 15 C files (the house's sizes, see HACKING).
# Skips (77) only where clang-format is not installed (CI installs it).
. "$(dirname "$0")/lib.sh"
command -v clang-format >/dev/null || skip "clang-format not installed (apt-get install clang-format)"
cd "$abs_top_srcdir" || exit 1
files=$(find common nvme_read_bw nvme_write_bw_remote nvme_link_probe tests -name '*.[ch]' | sort)
[ -n "$files" ] || { fail "no C sources found"; finish; }
bad=""
for f in $files; do
	clang-format --style=file --dry-run -Werror "$f" >/dev/null 2>&1 || bad="$bad $f"
done
check_eq "files clang-format would change" "" "${bad# }"
long=$(for f in $files; do expand -t8 "$f" | awk -v f="$f" 'length > 100 { print f ":" NR }'; done)
check_eq "lines over 100 columns" "" "$long"
big=$(for f in $files; do
	case $f in tests/*) continue ;; esac
	n=$(wc -l <"$f")
	[ "$n" -le 700 ] || echo "$f:$n"
done)
check_eq "tool and library C files over 700 lines" "" "$big"
crowded=$(for f in $files; do case $f in *.c) dirname "$f" ;; esac; done | sort | uniq -c |
	awk '$1 > 15 { print $2 ":" $1 }')
check_eq "folders over 15 C files" "" "$crowded"
finish
