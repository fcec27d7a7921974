# dipmap compare: a candidate with a deeper middle dip -> FAIL, exit 1, naming
# the middle cell; edges are not flagged; JUnit has a failure for that cell;
# GitHub annotations (at most 10) name it.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/compare-lib.sh"
cmp_gen g 30 1
cmp_sim g.jsonl
cmp_run base1 base g 8k 0:100:50
cmp_run deep1 deep g 8k 0:100:50
GITHUB_ACTIONS=true GITHUB_STEP_SUMMARY=$PWD/summary.md \
    expect_code 1 "$DIPMAP" compare base1 deep1 --db t.db --junit junit.xml --json cmp.json
assert_contains out "## dipmap compare: FAIL"
assert_contains out "### Secondary regressions and improvements"
grep -q '^| 8k @ 50% |.*| regression (not gated) |$' out || fail "the 50% cell is not named as a regression"
grep -q '^| 8k @ 0% |.*| regression' out && fail "the 0% edge must not regress"
grep -q '^| 8k @ 100% |.*| regression' out && fail "the 100% edge must not regress"
# the primary endpoints fail the gate (::error, first); a secondary cell is a ::warning after them
assert_contains out "::warning title=dipmap secondary 8k @ 50%25::8k @ 50%25: accuracy"
grep -m1 '^::' out | grep -q '^::error title=dipmap regression 8k \(middle\|dip\|(all\)' || fail "the first annotation is not a primary endpoint: $(grep -m1 '^::' out)"
[ "$(grep -c '^::error' out)" -le 10 ] || fail "more than 10 annotations"
assert_contains summary.md "## dipmap compare: FAIL"
xmllint --noout junit.xml || fail "junit.xml is not well-formed"
# the 50% cell regressed, but a secondary cell is not a JUnit failure (--gate cells makes it one)
[ "$(xmllint --xpath 'count(//testcase[@name="depth 50%"]/failure)' junit.xml)" = 0 ] ||
    fail "a JUnit failure for the secondary 50% cell"
xmllint --xpath 'string(//testcase[@name="depth 50%"]/system-out)' junit.xml | grep -q "regression (not gated)" ||
    fail "the 50% cell's testcase does not say it regressed"
[ "$(xmllint --xpath 'count(//testcase[@name="overall"]/failure)' junit.xml)" = 1 ] ||
    fail "no overall failure"
python3 -c '
import json
d = json.load(open("cmp.json"))
assert d["verdict"] == "FAIL"
bad = [t for t in d["tests"] if t["status"] == "regression" and t["scope"] == "cell"]
assert [t["depth"] for t in bad] == [0.5], bad
' || fail "cmp.json"
# a huge tolerance turns this into a pass: at 90 pp (margin 45 pp) the 50 pp drop is no FAIL,
# and 30 questions bound every primary endpoint below 90 pp (the dip's anytime-valid bound is
# about 76 pp)
expect_code 0 "$DIPMAP" compare base1 deep1 --db t.db --tolerance 0.9
assert_contains out "## dipmap compare: PASS"
