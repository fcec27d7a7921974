# dipmap compare: two runs of the same model on the same inputs -> PASS, exit 0 (160
# questions: enough for every primary upper bound to fall below the 5 pp tolerance);
# JUnit parses (xmllint) with GitLab's fields, JSON parses, the step summary is
# appended, and no ::error annotation is printed.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/compare-lib.sh"
cmp_gen g 160 1
cmp_sim g.jsonl
cmp_run r1 base g 8k 0:100:50
cmp_run r2 base g 8k 0:100:50
echo "previous step text" >summary.md
GITHUB_ACTIONS=true GITHUB_STEP_SUMMARY=$PWD/summary.md \
    expect_code 0 "$DIPMAP" compare r1 r2 --db t.db --junit junit.xml --json cmp.json --out outdir
assert_contains out "## dipmap compare: PASS"
assert_contains out "PASS: 0 of 3 primary endpoints regressed, 0 improved, 0 without enough data, 0 undecided"
assert_contains out "480 valid pairs of 480 trial keys"
assert_contains out "| 8k @ 50% | 160 |"
assert_contains out "PASS: no primary endpoint worsened by 5.0 pp or more, at 95% confidence"
assert_contains out "| 8k middle (25-75%) | 160 | "
assert_not_contains out "::error"
assert_contains summary.md "previous step text"
assert_contains summary.md "## dipmap compare: PASS"
xmllint --noout junit.xml || fail "junit.xml is not well-formed"
[ "$(xmllint --xpath 'count(//testcase)' junit.xml)" = 7 ] ||
    fail "expected 3 cells + the length's all depths, middle and dip + overall"
[ "$(xmllint --xpath 'count(//testcase[@classname and @name and @time])' junit.xml)" = 7 ] ||
    fail "testcases need classname, name and time"
[ "$(xmllint --xpath 'count(//failure)' junit.xml)" = 0 ] || fail "no failure expected"
xmllint --xpath 'string(//testcase[@name="depth 50%"]/@classname)' junit.xml | grep -qx 'dipmap.compare.length.8k' ||
    fail "cell classname"
python3 -c 'import json,sys; d=json.load(open("cmp.json")); assert d["verdict"]=="PASS", d["verdict"]; assert len(d["tests"])==7' ||
    fail "cmp.json"
for f in compare.md compare.json junit.xml; do [ -s "outdir/$f" ] || fail "outdir/$f missing"; done
# compare.md and compare.html lead with the primary table (before any per-cell table)
for f in outdir/compare.md outdir/compare.html; do
    p=$(grep -n "Primary endpoints (the gate)" "$f" | head -1 | cut -d: -f1)
    c=$(grep -n "8k @ 50%\|<td>50%</td>" "$f" | head -1 | cut -d: -f1)
    [ -n "$p" ] && [ -n "$c" ] && [ "$p" -lt "$c" ] || fail "$f does not lead with the primary table"
done
