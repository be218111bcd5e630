#!/bin/bash
# The fuzz targets (tests/fuzz/*.c) under ASan/UBSan for a fixed budget: each replays its
# committed corpus (tests/fuzz/corpus/<target>/), then mutates for FUZZ_SECONDS (default 5 s
# per target, 10 s in all). Any sanitizer report, abort or signal fails the test and the
# input is kept as crash-SEED-N in the build directory. Skips (77) when the compiler could
# not link the sanitizers.
. "$abs_top_srcdir/tests/lib.sh"
secs=${FUZZ_SECONDS:-5}
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
for t in ctrl pcidump; do
	bin=$abs_top_builddir/tests/fuzz/fuzz_$t
	# The seeds the target writes are the committed ones: a message whose encoding
	# changed leaves no seed of the old form behind (hand-made seeds are extra files).
	mkdir -p "$TMPD/seeds-$t"
	if "$bin" --write-corpus "$TMPD/seeds-$t" 2>/dev/null; then
		stale=
		for f in "$TMPD/seeds-$t"/*; do
			[ -e "$f" ] || continue
			cmp -s "$f" "$abs_top_srcdir/tests/fuzz/corpus/$t/${f##*/}" || stale="$stale ${f##*/}"
		done
		check_eq "fuzz_$t: the committed seeds are the target's (--write-corpus)" "" "${stale# }"
	fi
	out=$("$bin" -t "$secs" "$abs_top_srcdir/tests/fuzz/corpus/$t" 2>"$TMPD/$t.err")
	rc=$?
	[ "$rc" = 77 ] && skip "${out#SKIP: }"
	echo "fuzz_$t: $out"
	T_CHECKS=$((T_CHECKS + 1))
	if [ "$rc" = 0 ] && [ ! -s "$TMPD/$t.err" ]; then
		ok "fuzz_$t: no finding in ${secs} s"
	else
		fail "fuzz_$t: exit $rc: $(head -c 3000 "$TMPD/$t.err")"
	fi
	check_match "fuzz_$t ran mutated inputs" "[1-9][0-9]* mutated inputs" "$out"
done
finish
