# tests/expected/mask.sed: what legitimately varies between two runs of a golden case,
# replaced by a word before tests/golden.sh compares the output with its expected file.
# Every rule of the golden test is here, but for three that golden.sh adds in front,
# since they are this run's values: the test's scratch directory -> TMP, the source and
# the build tree -> TOP, the package version (configure's) -> VERSION.
# Extended regular expressions (sed -E). A rule masks values, or drops a line only some
# hosts print; the words around them stay as printed, so a changed heading, column or
# wording still fails. A new rule goes here, with what it hides and why it varies.

# The header line every text report starts with: host name, UTC date, kernel release.
s/^( Host\/date\/kernel: ).*/\1HOST  DATE  KERNEL/
# A date and time anywhere else (the ISO form the tools and scripts print).
s/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?Z/DATE/g

# An unbuilt choice in --help ("io_uring (not built)" without liburing): the expected
# files are those of a build with every feature.
s/ \(not built\)//g

# nvme_read_bw over a file (read_bw/*.txt): what this host's memory limits and the
# reads' timing decide. The buffers' locking and huge pages (RLIMIT_MEMLOCK, THP), and
# the note a user whose memlock limit is too small gets (deleted: a root run has none):
s/^( Buffers +: [0-9]+ x [0-9A-Za-z]+), .*/\1, MEM/
/^ note: buffers not locked: /d
# Between the drives' heading and the next rule line: each drive's bytes, seconds, GB/s,
# IOPS and zero %, and the total's bytes, seconds, GB/s and IOPS (the row's name and its
# link columns stay; the padding before the bytes goes with them, as the figures' widths
# set it).
/^ drive +bytes +seconds +G[Bb]\/s +IOPS/,/^-+$/{
s/^( [^ ]+) +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9]+ +[0-9.]+ /\1 BYTES SECONDS GB\/S IOPS ZERO% /
s/^( total) +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9]+$/\1 BYTES SECONDS GB\/S IOPS/
}
# The per-second line of a drive: how many seconds (a window stretched by a loaded host
# has one more), min, max, variation and an UNSTEADY note; and the total's "not to be
# trusted" line that such a note brings (tests/read_bw/unsteady.sh checks both).
s/^( [^ ]+ +)[0-9]+ s: min .*/\1N s: min RATES/
/^ total not to be trusted: unsteady .*\(see each drive's seconds above\)$/d
# The processor time the reads cost.
s/^( CPU +)[0-9.]+ (s per GiB read \()[0-9.]+ (s user .*)/\1SECONDS \2SECONDS \3/
s/^( CPU +)[0-9.]+ (us per read)$/\1MICROSECONDS \2/

# nvme_link_probe's "missing:" line as a user who is not root sees it (the expected files
# are root's, as the tests run): the hint that the rest of config space needs root.
s/^(    missing: .*) \(config space beyond the header needs root\)$/\1/
