# Report input errors exit 2 with a message naming the problem; a golden set
# that has moved only costs the questions in the failure list.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/7xx-lib.bash"
expect_code 2 "$DIPMAP" report r1 --db missing.db
assert_contains err "missing.db"
make_run t.db --run r1 --golden gold.jsonl
expect_code 2 "$DIPMAP" report nope --db t.db
assert_contains err "error: report: no run named 'nope' in t.db"
expect_code 2 "$DIPMAP" report --db t.db
assert_contains err "error: report: which run?"
expect_code 2 "$DIPMAP" report r1 r2 --db t.db
assert_contains err "error: report: give exactly one run name"
expect_code 2 "$DIPMAP" report r1 --db t.db --format md,pdf
assert_contains err "error: report: unknown format 'pdf' (expected md, json, html)"
expect_code 2 "$DIPMAP" report r1 --db t.db --bogus
[ -e reports ] && fail "an error still wrote reports/"
# --out names a file, not a folder
: >afile
expect_code 2 "$DIPMAP" report r1 --db t.db --out afile
assert_contains err "afile"

# the golden set is gone: report still written, questions marked unavailable
mv gold.jsonl moved.jsonl
expect_code 0 "$DIPMAP" report r1 --db t.db --no-plots
assert_contains reports/r1/report.html "The golden set gold.jsonl is not readable from here"
assert_contains reports/r1/report.html "(not available)"
exit 0
