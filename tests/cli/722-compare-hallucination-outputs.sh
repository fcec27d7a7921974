# compare --hallucination-margin D in every output: two runs with --absent whose curves are the
# same and whose hallucination rates are not (serve-sim halluc=0.05 vs 0.6) FAIL (exit 1) with the
# hallucination endpoint named in the headline, compare.md's table, compare.json's tests (scope
# "hallucination", status regression) and JUnit's failure; without the option the same pair has
# no hallucination row and does not FAIL.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
start_sim sim --dataset "$REPO/datasets/needle.jsonl" --model base:halluc=0.05 --model bad:halluc=0.6
args=(--endpoint "$SIM_URL" --dataset "$REPO/datasets/needle.jsonl" --template qa-absent
    --haystack "$REPO/datasets/nq-haystack.jsonl.gz" --lengths 1k --depths 0:100:25
    --absent 0.5 --progress none --db t.db)
expect_code 0 "$DIPMAP" run "${args[@]}" --model base --run base
expect_code 0 "$DIPMAP" run "${args[@]}" --model bad --run bad
expect_code 1 "$DIPMAP" compare base bad --db t.db --hallucination-margin 0.1 --out cmp
assert_contains out "FAIL: the hallucination rate on needle-absent trials rose"
assert_contains cmp/compare.md "| hallucination on needle-absent trials |"
python3 - <<'PY' || fail "compare.json lacks the hallucination regression"
import json
d = json.load(open("cmp/compare.json"))
t = [t for t in d["tests"] if t["scope"] == "hallucination"]
assert len(t) == 1 and t[0]["status"] == "regression", t
PY
grep -q "hallucination" cmp/junit.xml || fail "junit.xml does not name the hallucination endpoint"
[ "$(xmllint --xpath 'count(//failure)' cmp/junit.xml)" -ge 1 ] || fail "no JUnit failure"
"$DIPMAP" compare base bad --db t.db --out plain >out 2>err
[ $? != 1 ] || fail "without --hallucination-margin the pair FAILs: $(cat out)"
assert_not_contains plain/compare.md "hallucination"
