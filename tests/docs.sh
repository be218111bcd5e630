#!/bin/bash
# docs.sh: the README stays a user's page (at most 300 lines, with the two-real-nodes
# section and what it must say), and every relative Markdown link of README.md,
# HACKING.md and docs/*.md leads to a file that exists, and to a heading of it when the
# link names one (GitHub's anchors: lower case, punctuation dropped, spaces to hyphens).
. "$(dirname "$0")/lib.sh"

top=$abs_top_srcdir
readme=$top/README.md

lines=$(wc -l <"$readme")
T_CHECKS=$((T_CHECKS + 1))
if [ "$lines" -le 300 ]; then ok "README.md has $lines lines (at most 300)"; else
	fail "README.md has $lines lines, more than 300: move the details to docs/"
fi

# The section a newcomer with two real nodes looks for, and what it must cover.
section=$(awk '/^## /{on = /^## Two real nodes/} on' "$readme")
check_match "README.md has a '## Two real nodes' section" . "$section"
for want in 'ulimit -l' '--dram' '18515' 'ibv_devinfo' 'rdma link' 'ACTIVE' \
	'sink first' 'must match on both sides' '`-x`' '--tclass' 'RDMA data verification: PASS'; do
	T_CHECKS=$((T_CHECKS + 1))
	case $section in
	*"$want"*) ok "two real nodes: mentions $want" ;;
	*) fail "two real nodes: no '$want' in the section" ;;
	esac
done

# slugs FILE: the anchors of FILE's headings, one a line (outside code blocks).
slugs() {
	awk '/^```/{code = !code; next} !code && /^#+ /' "$1" |
		sed -E 's/^#+ +//' | tr '[:upper:]' '[:lower:]' | sed -E 's/[^a-z0-9 _-]//g; s/ /-/g'
}

# links FILE: the targets of FILE's Markdown links, outside code blocks and code spans.
links() {
	awk '/^```/{code = !code; next} !code' "$1" | sed -E 's/`[^`]*`//g' |
		grep -oE '\]\([^) ]+\)' | sed -E 's/^\]\(//; s/\)$//'
}

files=("$readme" "$top/HACKING.md" "$top"/docs/*.md)
nlinks=0
for f in "${files[@]}"; do
	T_CHECKS=$((T_CHECKS + 1))
	[ -f "$f" ] || { fail "${f#"$top"/}: missing"; continue; }
	ok "${f#"$top"/} exists"
	dir=$(dirname "$f")
	while read -r target; do
		case $target in
		http://* | https://* | mailto:*) continue ;;
		esac
		nlinks=$((nlinks + 1))
		path=${target%%#*}
		anchor=
		[ "$path" = "$target" ] || anchor=${target#*#}
		dest=$f
		[ -z "$path" ] || dest=$dir/$path
		T_CHECKS=$((T_CHECKS + 1))
		if [ ! -e "$dest" ]; then
			fail "${f#"$top"/}: link to '$target': no such file"
			continue
		fi
		if [ -n "$anchor" ]; then
			if [ -f "$dest" ] && slugs "$dest" | grep -qxF -- "$anchor"; then
				ok "${f#"$top"/}: $target"
			else
				fail "${f#"$top"/}: link to '$target': no heading with that anchor"
			fi
		else
			ok "${f#"$top"/}: $target"
		fi
	done < <(links "$f")
done
# The pages link to each other: a link extractor that finds nothing is broken.
T_CHECKS=$((T_CHECKS + 1))
if [ "$nlinks" -ge 20 ]; then ok "$nlinks relative links checked"; else
	fail "only $nlinks relative links found in ${#files[@]} pages"
fi
finish
