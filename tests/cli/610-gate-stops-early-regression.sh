# dipmap gate on a clear middle regression (serve-sim mid=0.3: the middle band 30 pp lower, the
# edges the same) stops with FAIL (exit 1) after a few rounds of 10 questions instead of mapping
# all 100: fewer requests than the fixed design's 2200, every round in the store and in
# compare.json, a progress line per round, JUnit with the failure and the step summary.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
. "$TESTS/cli/lib/gate-lib.sh"
gate_setup 100 --model base:edge=0.95,dip=0.1,flat=1 --model bad:edge=0.95,dip=0.1,flat=1,mid=0.3,seed=2
GITHUB_STEP_SUMMARY=$PWD/summary.md expect_code 1 "$DIPMAP" gate "${GATE_ARGS[@]}" \
    --baseline-model base --model bad --db g.db --name g --round 10 --max-questions 100 \
    --json cmp.json --junit junit.xml
assert_contains out "## dipmap gate: FAIL after"
assert_contains err "gate round 1/10: 10 of 100 questions"
rounds=$(gate_json cmp.json 'd["sequential"]["decided_round"]')
[ "$rounds" -lt 10 ] || fail "the gate did not stop early (round $rounds of 10)"
[ "$(grep -c '^gate round ' err)" = "$rounds" ] || fail "expected one progress line per round"
[ "$(gate_json cmp.json 'd["verdict"]')" = FAIL ] || fail "compare.json verdict is not FAIL"
[ "$(gate_json cmp.json 'len(d["sequential"]["rounds"])')" = "$rounds" ] || fail "rounds missing in compare.json"
[ "$(gate_json cmp.json 'd["sequential"]["rounds"][-1]["decision"]')" = FAIL ] || fail "last round not FAIL"
gate_json cmp.json '[e["name"] for e in d["sequential"]["rounds"][-1]["endpoints"] if e["status"] == "regression"]' >reg
grep -q "middle" reg || fail "the middle band is not the regression: $(cat reg)"
# the store holds each round; only the rounds' questions were mapped
[ "$(q g.db "select count(*) from gate_rounds where gate = 'g'")" = "$rounds" ] || fail "rounds not stored"
n=$(gate_requests)
[ "$n" = $((rounds * 10 * 11 * 2)) ] || fail "expected $((rounds * 220)) requests, got $n"
[ "$n" -lt 2200 ] || fail "no saving over the fixed design"
[ "$(q g.db "select count(distinct question_id) from trials")" = $((rounds * 10)) ] || fail "questions"
xmllint --noout junit.xml || fail "junit.xml is not well-formed"
[ "$(xmllint --xpath 'count(//failure)' junit.xml)" -ge 1 ] || fail "no JUnit failure"
assert_contains summary.md "## dipmap gate: FAIL"
