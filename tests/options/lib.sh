# tests/options/lib.sh: the man-page check of a tool's options, derived from its option
# table, and a driver of the bash completion (sourced after lib.sh by manpages.sh,
# completion.sh and options/table.sh, never run).
# shellcheck shell=bash

# opts_table BIN: the long options of BIN's table ("BIN --options-table": the rows its
# --help prints), one per line.
opts_table() { "$1" --options-table | awk '{ print $1 }' | LC_ALL=C sort -u; }
# opts_help BIN: every long option --help names, in an option line or in a text.
opts_help() { "$1" --help | grep -oE -- '--[A-Za-z][A-Za-z0-9_-]+' | LC_ALL=C sort -u; }
# Long options as the man page writes them: \-\-name (escaped) in the source.
opts_man() { sed -e 's/\\f[BIRP]//g' -e 's/\\//g' "$1" | grep -oE -- '--[A-Za-z][A-Za-z0-9_-]+' | LC_ALL=C sort -u; }

# man_check NAME BIN PAGE: the table's options all in PAGE, PAGE's all in the table, and
# --help naming exactly the table's.
man_check() {
	local name=$1 bin=$2 page=$3
	check_eq "$name: --help options missing from the man page" "" \
		"$(LC_ALL=C comm -23 <(opts_table "$bin") <(opts_man "$page") | tr '\n' ' ')"
	check_eq "$name: man page options unknown to --help" "" \
		"$(LC_ALL=C comm -13 <(opts_table "$bin") <(opts_man "$page") | tr '\n' ' ')"
	check_eq "$name: --help names the table's options" "$(opts_table "$bin" | tr '\n' ' ')" \
		"$(opts_help "$bin" | tr '\n' ' ')"
}

# complete_line LINE: the sorted completions bash offers at the end of LINE (a trailing
# space means an empty word), one per line. Words split on blanks, and on '=' as
# COMP_WORDBREAKS does.
complete_line() {
	local line=$1 w
	local -a raw
	read -r -a raw <<<"$line"
	[[ $line == *' ' ]] && raw+=("")
	COMP_WORDS=()
	for w in "${raw[@]}"; do
		if [[ $w == --*=* ]]; then
			COMP_WORDS+=("${w%%=*}" "=" "${w#*=}")
		else
			COMP_WORDS+=("$w")
		fi
	done
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE=$line
	COMP_POINT=${#line}
	COMPREPLY=()
	# The function the command's completion registered (complete -F FN NAME).
	local fn
	fn=$(complete -p "${COMP_WORDS[0]##*/}" 2>/dev/null | sed -n 's/.* -F \([^ ]*\) .*/\1/p')
	"${fn:-_nvme_bw_suite}" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	[ ${#COMPREPLY[@]} -gt 0 ] && printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort
}
words() { complete_line "$1" | tr '\n' ' ' | sed 's/ $//'; }
