# dipmap compare: runs built from different golden sets are refused with exit 4
# and the differing hash named, unless --allow-different-inputs.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/compare-lib.sh"
cmp_gen a 12 1
# the same questions written differently: another golden-set file, another hash
sed 's/, "/,"/g' a.jsonl >b.jsonl
cp a-hay.jsonl b-hay.jsonl
cmp a.jsonl b.jsonl >/dev/null && fail "b.jsonl should differ from a.jsonl"
cmp_sim a.jsonl
cmp_run ra base a 1k 0,50,100
cmp_run rb base b 1k 0,50,100
echo "previous step" >summary.md
GITHUB_STEP_SUMMARY=$PWD/summary.md \
    expect_code 4 "$DIPMAP" compare ra rb --db t.db --junit junit.xml --json c.json --out o
assert_contains err "error: runs 'ra' and 'rb' are not comparable:"
assert_contains err "golden set differs: golden_sha256 "
assert_contains err "--allow-different-inputs"
[ -s out ] && fail "nothing should be printed on stdout when refusing"
# the CI outputs still appear (issue 29): a JUnit report step finds one error testcase saying
# why, the step summary says it was not compared, --json and --out hold the refusal
for f in junit.xml o/junit.xml; do
    xmllint --noout "$f" || fail "$f is not well-formed"
    [ "$(xmllint --xpath 'count(//testcase)' "$f")" = 1 ] || fail "$f: one testcase"
    [ "$(xmllint --xpath 'count(//testcase/error[@type="refused"])' "$f")" = 1 ] || fail "$f: error"
    xmllint --xpath 'string(//testcase/error/@message)' "$f" | grep -q "golden set differs" ||
        fail "$f: the error does not say why"
done
assert_contains summary.md "previous step"
assert_contains summary.md "## dipmap compare: INCONCLUSIVE"
assert_contains summary.md "golden set differs"
assert_contains o/compare.md "not compared"
python3 - <<'PY' || fail "compare JSON of a refusal"
import json
for f in ("c.json", "o/compare.json"):
    d = json.load(open(f))
    assert d["verdict"] == "INCONCLUSIVE" and d["refused"] is True, d
    assert "golden set differs" in d["reasons"][0], d
    assert d["tests"] == [], d
PY
# under GitHub Actions an annotation says why
GITHUB_ACTIONS=true expect_code 4 "$DIPMAP" compare ra rb --db t.db
assert_contains out "::error title=dipmap compare refused::runs 'ra' and 'rb' are not comparable"
# allowed: the comparison runs, with a warning on stderr and in the summary
expect_code 0 "$DIPMAP" compare ra rb --db t.db --allow-different-inputs --min-pairs 12 \
    --pass-rule no-regression
assert_contains err "warning: comparing runs with different inputs: golden set differs"
assert_contains out "inputs differ (--allow-different-inputs)"
assert_contains out "## dipmap compare: PASS"
