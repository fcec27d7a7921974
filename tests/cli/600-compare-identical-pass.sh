# dipmap compare: two runs of the same model on the same inputs -> PASS, exit 0;
# JUnit parses (xmllint) with GitLab's fields, JSON parses, the step summary is
# appended, and no ::error annotation is printed.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/compare-lib.sh"
cmp_gen g 30 1
cmp_sim g.jsonl
cmp_run r1 base g 8k 0:100:50
cmp_run r2 base g 8k 0:100:50
echo "previous step text" >summary.md
GITHUB_ACTIONS=true GITHUB_STEP_SUMMARY=$PWD/summary.md \
    expect_code 0 "$DIPMAP" compare r1 r2 --db t.db --junit junit.xml --json cmp.json --out outdir
assert_contains out "## dipmap compare: PASS"
assert_contains out "0 regressions, 0 improvements, 0 tests without enough data; 90 valid pairs of 90 trial keys"
assert_contains out "| 8k @ 50% | 30 |"
assert_not_contains out "::error"
assert_contains summary.md "previous step text"
assert_contains summary.md "## dipmap compare: PASS"
xmllint --noout junit.xml || fail "junit.xml is not well-formed"
[ "$(xmllint --xpath 'count(//testcase)' junit.xml)" = 5 ] || fail "expected 3 cells + 1 length + overall"
[ "$(xmllint --xpath 'count(//testcase[@classname and @name and @time])' junit.xml)" = 5 ] ||
    fail "testcases need classname, name and time"
[ "$(xmllint --xpath 'count(//failure)' junit.xml)" = 0 ] || fail "no failure expected"
xmllint --xpath 'string(//testcase[@name="depth 50%"]/@classname)' junit.xml | grep -qx 'dipmap.compare.length.8k' ||
    fail "cell classname"
python3 -c 'import json,sys; d=json.load(open("cmp.json")); assert d["verdict"]=="PASS", d["verdict"]; assert len(d["tests"])==5' ||
    fail "cmp.json"
for f in compare.md compare.json junit.xml; do [ -s "outdir/$f" ] || fail "outdir/$f missing"; done
