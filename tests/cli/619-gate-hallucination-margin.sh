# dipmap gate --hallucination-margin D: the hallucination rate on needle-absent trials (both runs
# with --run-arg=--absent=P) as a secondary endpoint. A candidate that answers 60% of the absent
# twins where the baseline answers 5% (serve-sim halluc=, the same curve and draws otherwise)
# FAILs with its own reason; the same candidate without the option, and a candidate that
# hallucinates no more than the baseline with it, do not FAIL.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
. "$TESTS/cli/lib/gate-lib.sh"
start_sim sim --dataset "$REPO/datasets/needle.jsonl" --model base:edge=0.95,dip=0.1,flat=1,halluc=0.05 \
    --model same:edge=0.95,dip=0.1,flat=1,halluc=0.05 --model bad:edge=0.95,dip=0.1,flat=1,halluc=0.6
args=(--endpoint "$SIM_URL" --dataset "$REPO/datasets/needle.jsonl" --template qa-absent
    --haystack "$REPO/datasets/nq-haystack.jsonl.gz" --lengths 1k --depths 0:100:25 --seed 7
    --round 12 --max-questions 36 --run-arg=--absent=0.5 --baseline-model base)
expect_code 1 "$DIPMAP" gate "${args[@]}" --model bad --hallucination-margin 0.1 --db bad.db \
    --json bad.json
assert_contains out "FAIL: the hallucination rate on needle-absent trials rose"
[ "$(gate_json bad.json 'd["verdict"]')" = FAIL ] || fail "compare.json verdict is not FAIL"
gate_json bad.json '[t["status"] for t in d["tests"] if t["scope"] == "hallucination"]' >st
grep -q regression st || fail "the hallucination endpoint is not the regression: $(cat st)"
[ "$(gate_json bad.json 'd["sequential"]["hallucination_margin"]')" = 0.1 ] || fail "margin not recorded"
# without the option the same candidate does not FAIL (its curve equals the baseline's)
"$DIPMAP" gate "${args[@]}" --model bad --db off.db --json off.json >out 2>err
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 4 ] || fail "without --hallucination-margin: exit $rc (expected PASS or INCONCLUSIVE)"
assert_not_contains out "hallucination"
# a candidate that hallucinates no more than the baseline does not FAIL with it
"$DIPMAP" gate "${args[@]}" --model same --hallucination-margin 0.1 --db same.db --json same.json >out 2>err
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 4 ] || fail "an unchanged candidate: exit $rc (expected PASS or INCONCLUSIVE)"
gate_json same.json '[t["status"] for t in d["tests"] if t["scope"] == "hallucination"]' >st
grep -q "'ok'" st || fail "the hallucination endpoint of an unchanged candidate is not ok: $(cat st)"
# a PASS claims the hallucination rate did not rise by the margin: the no-option gate's runs
# (baseline 5%, candidate 60% of the twins) compared at a margin above the rise (no FAIL) and a
# tolerance every primary endpoint meets are INCONCLUSIVE, not PASS, while the rise's upper bound
# reaches the margin; at a margin far above it they PASS
runs=$("$DIPMAP" runs --db off.db --format json 2>/dev/null | python3 -c 'import json,sys; print(" ".join(r["name"] for r in json.load(sys.stdin)))' 2>/dev/null) ||
    runs=$(q off.db "select name from runs order by id" | tr '\n' ' ')
set -- $runs
[ $# = 2 ] || fail "the gate's two runs: '$runs'"
expect_code 4 "$DIPMAP" compare --db off.db "$1" "$2" --tolerance 0.5 --hallucination-margin 0.6
assert_contains out "a rise that large is not ruled out"
expect_code 0 "$DIPMAP" compare --db off.db "$1" "$2" --tolerance 0.5 --hallucination-margin 0.99
