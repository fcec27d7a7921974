# compare of a run with itself (a CI typo: the same name twice) is refused with exit 2 and a
# message, also when --baseline-db names the same file by another path; the same run name in
# two different stores is a real comparison.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/compare-lib.sh"
cmp_gen g 12 1
cmp_sim g.jsonl
cmp_run r1 base g 8k 0:100:50
expect_code 2 "$DIPMAP" compare r1 r1 --db t.db
assert_contains err "error: compare: baseline and candidate are the same run ('r1' in t.db)"
[ ! -s out ] || fail "nothing on stdout expected"
expect_code 2 "$DIPMAP" compare r1 r1 --db t.db --baseline-db ./t.db
assert_contains err "same run ('r1' in t.db)"
cp t.db other.db
expect_code 0 "$DIPMAP" compare r1 r1 --db t.db --baseline-db other.db --min-pairs 1 \
    --pass-rule no-regression
assert_contains out "## dipmap compare: PASS"
