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
expect_code 4 "$DIPMAP" compare ra rb --db t.db --junit junit.xml
assert_contains err "error: runs 'ra' and 'rb' are not comparable:"
assert_contains err "golden set differs: golden_sha256 "
assert_contains err "--allow-different-inputs"
[ -s out ] && fail "nothing should be printed on stdout when refusing"
[ -e junit.xml ] && fail "no JUnit file when refusing"
# allowed: the comparison runs, with a warning on stderr and in the summary
expect_code 0 "$DIPMAP" compare ra rb --db t.db --allow-different-inputs --min-pairs 12
assert_contains err "warning: comparing runs with different inputs: golden set differs"
assert_contains out "inputs differ (--allow-different-inputs)"
assert_contains out "## dipmap compare: PASS"
