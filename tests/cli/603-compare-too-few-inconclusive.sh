# dipmap compare: too few valid pairs per cell -> INCONCLUSIVE, exit 4, saying
# which cells lack data; JUnit marks them skipped. Lowering --min-pairs decides.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/compare-lib.sh"
cmp_gen g 4 1
cmp_sim g.jsonl
cmp_run r1 base g 1k 0,50,100
cmp_run r2 base g 1k 0,50,100
expect_code 4 "$DIPMAP" compare r1 r2 --db t.db --junit junit.xml
assert_contains out "## dipmap compare: INCONCLUSIVE"
assert_contains out "### Inconclusive because"
# the middle band (the 50% cell) is a primary endpoint: its lack of data decides
assert_contains out "1 middle band without enough data (need 10 valid pairs and 80% coverage)"
assert_contains out "1k middle (25-75%) (4 pairs, 100% coverage)"
assert_not_contains out "3 cells without enough data"
xmllint --noout junit.xml || fail "junit.xml is not well-formed"
[ "$(xmllint --xpath 'count(//testcase/skipped)' junit.xml)" = 4 ] ||
    fail "3 cells + the middle band should be skipped (the length and dip have 12 pairs)"
[ "$(xmllint --xpath 'count(//testcase[@name="all depths"]/skipped)' junit.xml)" = 0 ] ||
    fail "the length has enough pairs"
# INCONCLUSIVE is not green: the overall testcase fails
[ "$(xmllint --xpath 'count(//testcase[@name="overall"]/failure[@type="inconclusive"])' junit.xml)" = 1 ] ||
    fail "INCONCLUSIVE must be a failure in JUnit"
[ "$(xmllint --xpath 'string(//testsuites/@failures)' junit.xml)" != 0 ] || fail "failures=0"
# --gate cells: the cells must have data too
expect_code 4 "$DIPMAP" compare r1 r2 --db t.db --gate cells
assert_contains out "3 cells without enough data (need 10 valid pairs and 80% coverage)"
assert_contains out "1k @ 50% (4 pairs, 100% coverage)"
# with enough pairs allowed, 4 questions still cannot bound a drop below 5 pp ...
expect_code 4 "$DIPMAP" compare r1 r2 --db t.db --min-pairs 4
assert_contains out "a decision needs about"
# ... and the old rule passes, saying what it does not show
expect_code 0 "$DIPMAP" compare r1 r2 --db t.db --min-pairs 4 --pass-rule no-regression
assert_contains out "## dipmap compare: PASS"
assert_contains out "does not rule out a drop"
# a run that does not exist is an input error
expect_code 2 "$DIPMAP" compare r1 nope --db t.db
assert_contains err "t.db: no run named 'nope'"
