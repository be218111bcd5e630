#!/bin/bash
# package.sh: debian/ builds a .deb from a clean copy of the source tree, the .deb
# installs into this system, its three tools report configure's version, man finds
# its four pages, bash-completion loads its completion, and dpkg -r removes it all.
#
# The copy: in a git work tree, the files a clean clone would hold if everything were
# committed (tracked and untracked-but-not-ignored, as they are now: no generated file
# can slip in, and uncommitted work is tested too); elsewhere (a release tarball, make
# distcheck) the whole source tree, which is then that tarball. Needs root (dpkg -i).
. "$(dirname "$0")/lib.sh"

PKG=nvme-rdma-bw
TOOLS="nvme_read_bw nvme_write_bw_remote nvme_link_probe"

# The package's relations, read from debian/control (no root needed): nbw-results and
# nbw-fleet are python3 programs, so python3 is a dependency; RDMA needs a verbs
# provider (the kernel's drivers' user-space half), so ibverbs-providers is recommended.
field() { # field NAME: the binary package's NAME, continuation lines joined
	awk -v f="$1:" '/^$/ { p = 0 } /^Package:/ { p = 1 } /^[A-Za-z-]+:/ { cur = $1 }
		p && cur == f { sub(/^[A-Za-z-]+:/, ""); printf "%s", $0 }' "$abs_top_srcdir/debian/control"
}
check_match "debian/control: python3 in Depends" '(^|[ ,])python3([ ,(]|$)' "$(field Depends)"
check_match "debian/control: ibverbs-providers in Recommends" '(^|[ ,])ibverbs-providers([ ,(]|$)' "$(field Recommends)"
check_eq "debian/control: neither only Suggested" "" "$(field Suggests | grep -oE '(^|[ ,])(python3|ibverbs-providers)([ ,]|$)')"
[ "$T_FAILS" = 0 ] || { finish; exit 1; }

[ "$(id -u)" = 0 ] || skip "not root: installing the package needs dpkg -i as root"
for c in dpkg-buildpackage dpkg-checkbuilddeps dh man; do
	command -v "$c" >/dev/null || skip "$c not found (Debian: dpkg-dev debhelper man-db)"
done
ver=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' "$abs_top_builddir/config.h")
[ -n "$ver" ] || { fail "no PACKAGE_VERSION in $abs_top_builddir/config.h"; finish; }

# One package test at a time on this machine (dpkg has a single lock, and the package
# is installed system-wide); then refuse to replace a copy installed by someone else.
exec 9>/run/lock/nvme-rdma-bw-package-test.lock
flock -w 900 9 || skip "another package test held the lock for 15 minutes"
if dpkg-query -W -f='${Status}\n' "$PKG" 2>/dev/null | grep -q ' installed$'; then
	skip "$PKG is already installed on this system; not replacing it"
fi
for t in $TOOLS; do
	[ ! -e "/usr/bin/$t" ] || skip "/usr/bin/$t exists (not from this test); not overwriting it"
done

# The source copy.
src="$TMPD/$PKG-$ver"
mkdir -p "$src"
if [ "$(git -C "$abs_top_srcdir" rev-parse --show-toplevel 2>/dev/null)" = "$abs_top_srcdir" ]; then
	how="git work tree"
	(cd "$abs_top_srcdir" && git ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
		tar --null -T - -cf -) | tar -C "$src" -xf - ||
		{ fail "copying the git work tree"; finish; }
else
	how="source tree (release tarball)"
	# Without build trees inside it (make distcheck builds in _build/sub, installs in
	# _inst): any top-level directory holding a config.status.
	excl=(--exclude=./_build --exclude=./_inst)
	for d in "$abs_top_srcdir"/*/config.status "$abs_top_srcdir"/*/*/config.status; do
		[ -f "$d" ] || continue
		d=${d#"$abs_top_srcdir"/}
		excl+=("--exclude=./${d%%/*}")
	done
	(tar -C "$abs_top_srcdir" "${excl[@]}" -cf - .) | tar -C "$src" -xf - && chmod -R u+w "$src" ||
		{ fail "copying $abs_top_srcdir"; finish; }
	# A tarball configured in place: back to the tarball's state first.
	[ ! -f "$src/Makefile" ] || make -C "$src" -s distclean >/dev/null 2>&1
fi
echo "source: $how, copied to $src"

unmet=$(cd "$src" && dpkg-checkbuilddeps 2>&1) ||
	skip "build dependencies missing: ${unmet#*: }"

# Nothing of the make running this test may reach the package's own make (a
# "make check TESTS=tests/package.sh" would otherwise run this test again inside).
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES DESTDIR
# nocheck: the package's test step (debian/rules: the unit tests, built again with the
# package's flags) is half of the build's time, and make check runs those unit tests
# already; NBW_PACKAGE_CHECK=1 keeps it.
opts="parallel=$(nproc)"
[ "${NBW_PACKAGE_CHECK:-0}" = 1 ] || opts="$opts nocheck"
start=$(date +%s)
if ! (cd "$src" && DEB_BUILD_OPTIONS="$opts" dpkg-buildpackage -b -us -uc) \
	>"$TMPD/build.log" 2>&1; then
	tail -n 40 "$TMPD/build.log"
	fail "dpkg-buildpackage -b -us -uc failed (last lines above)"
	finish
fi
echo "dpkg-buildpackage (DEB_BUILD_OPTIONS=$opts): $(($(date +%s) - start)) s"
grep -E '^(PASS|FAIL|SKIP|ERROR|XPASS|XFAIL): ' "$TMPD/build.log"

deb="$TMPD/${PKG}_${ver}_$(dpkg --print-architecture).deb"
[ -f "$deb" ] || { fail "no $deb; built: $(ls "$TMPD"/*.deb 2>/dev/null)"; finish; }
check_eq "package version = PACKAGE_VERSION" "$ver" "$(dpkg-deb -f "$deb" Version)"

# Its contents, before installing.
contents=$(dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's#^\./#/#')
want="/usr/share/man/man7/nvme-bw-suite.7.gz"
for t in $TOOLS; do
	want="$want /usr/bin/$t /usr/share/man/man1/$t.1.gz /usr/share/bash-completion/completions/$t"
done
# The scripts' Python package beside the entry points that import it.
want="$want /usr/bin/nbw-results /usr/share/$PKG/ladder_report /usr/share/$PKG/nbw/__init__.py"
want="$want /usr/share/$PKG/nbw/results/cli.py /usr/share/$PKG/nbw/ladder/report.py"
want="$want /usr/share/$PKG/nbw/summary.py /usr/share/$PKG/nbw/sweep.py"
# run_bench.sh's launcher (a sourced file over nbw.launcher) and the ladder's model.
want="$want /usr/share/$PKG/bench_node.sh /usr/share/$PKG/nbw/launcher.py"
want="$want /usr/share/$PKG/nbw/ladder/model.py /usr/share/$PKG/nbw/ladder/text.py"
# The completion of the commands with verbs.
for c in nbw-results nbw-fleet run_bench.sh; do
	want="$want /usr/share/bash-completion/completions/$c"
done
for f in $want; do
	T_CHECKS=$((T_CHECKS + 1))
	if printf '%s\n' "$contents" | grep -qxF -- "$f"; then ok "the .deb holds $f"; else fail "the .deb lacks $f"; fi
done

# Install (re-including our paths should dpkg be set to drop man pages), use, remove.
t_cleanup_hooks+=("dpkg -r $PKG >/dev/null 2>&1 || true")
if ! dpkg --path-include='/usr/share/man/man[17]/nvme*' -i "$deb" >"$TMPD/install.log" 2>&1; then
	cat "$TMPD/install.log"
	fail "dpkg -i $deb"
	finish
fi
check_eq "dpkg status after dpkg -i" "install ok installed" "$(dpkg-query -W -f='${Status}' "$PKG")"

for t in $TOOLS; do
	check_eq "dpkg -S /usr/bin/$t" "$PKG: /usr/bin/$t" "$(dpkg -S "/usr/bin/$t" 2>&1)"
	out=$("/usr/bin/$t" --version 2>&1)
	rc=$?
	check_eq "/usr/bin/$t --version: exit status" 0 "$rc"
	check_eq "/usr/bin/$t --version: program" "$t" "${out%% *}"
	check_eq "/usr/bin/$t --version: version" "$ver" "${out##* }"
	# The system's man, but only the package's tree (not a copy under /usr/local).
	check_eq "man -w $t" "/usr/share/man/man1/$t.1.gz" "$(man -M /usr/share/man -w "$t" 2>&1)"
done
# The installed entry points find the package (nbw-results from $(bindir), through the
# directory make install wrote into it), from a directory where no nbw/ lies beside.
check_eq "/usr/bin/nbw-results --version" "nbw-results record format 1" \
	"$(cd / && /usr/bin/nbw-results --version 2>&1)"
check_match "/usr/share/$PKG/ladder_report --help" '^Usage: ladder_report ' \
	"$(cd / && "/usr/share/$PKG/ladder_report" --help 2>&1 | head -n1)"
mkdir -p "$TMPD/run/r"
printf '{"tool": "nvme_read_bw", "drives": [{}], "total": {"gb_per_s": 3.5}}\n' >"$TMPD/run/r/local-n1.json"
check_match "/usr/share/$PKG/run_bench.sh summary: the package's table" '^local +n1 +all drives +1 +3\.500 ' \
	"$(cd / && "/usr/share/$PKG/run_bench.sh" summary "$TMPD/run/r" 2>&1)"
check_eq "man -w 7 nvme-bw-suite" "/usr/share/man/man7/nvme-bw-suite.7.gz" \
	"$(man -M /usr/share/man -w 7 nvme-bw-suite 2>&1)"
check_match "man 7 nvme-bw-suite renders the reference result" "21\.41 GB/s" \
	"$(MANWIDTH=100 man -M /usr/share/man -P cat 7 nvme-bw-suite 2>/dev/null | tr -s ' ')"

# bash-completion's on-demand loader finds each command's file.
if [ -r /usr/share/bash-completion/bash_completion ]; then
	for t in $TOOLS; do
		spec=$(bash -c '. /usr/share/bash-completion/bash_completion; __load_completion "$1"; complete -p "$1"' \
			_ "$t" 2>&1)
		check_eq "bash-completion loads $t" "complete -F _nvme_bw_suite $t" "$spec"
	done
	for c in nbw-results nbw-fleet run_bench.sh; do
		spec=$(bash -c '. /usr/share/bash-completion/bash_completion; __load_completion "$1"; complete -p "$1"' \
			_ "$c" 2>&1)
		check_eq "bash-completion loads $c" "complete -F _nbw_cmd $c" "$spec"
	done
	# What they read: the installed commands' tables.
	check_match "/usr/bin/nbw-results --options-table" '^- record verb' "$(cd / && /usr/bin/nbw-results --options-table 2>&1)"
	check_match "/usr/bin/nbw-fleet --options-table" '^- judge verb' "$(cd / && /usr/bin/nbw-fleet --options-table 2>&1)"
	check_match "/usr/share/$PKG/run_bench.sh --options-table" '^check - positional - - aggregate,' \
		"$(cd / && "/usr/share/$PKG/run_bench.sh" --options-table 2>&1)"
fi

if dpkg -r "$PKG" >"$TMPD/remove.log" 2>&1; then ok "dpkg -r $PKG"; else fail "dpkg -r: $(cat "$TMPD/remove.log")"; fi
check_eq "dpkg status after dpkg -r" "" \
	"$(dpkg-query -W -f='${Status}' "$PKG" 2>/dev/null | grep ' installed$')"
left=
for f in $want; do [ ! -e "$f" ] || left="$left $f"; done
check_eq "files left after dpkg -r" "" "$left"
finish
