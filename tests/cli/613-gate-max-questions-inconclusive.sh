# dipmap gate that reaches --max-questions without a decision is INCONCLUSIVE (exit 4): two
# rounds of 10 questions of an unchanged model cannot bound the drop under 5 pp; the JSON says
# so, JUnit is not green, and no question beyond the cap is mapped. Bad options exit 2.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
. "$TESTS/cli/lib/gate-lib.sh"
gate_setup 60 --model base:edge=0.9,dip=0.2,flat=1 --model same:edge=0.9,dip=0.2,flat=1,seed=2
expect_code 4 "$DIPMAP" gate "${GATE_ARGS[@]}" --baseline-model base --model same --db g.db \
    --name m --round 10 --max-questions 20 --json cmp.json --junit junit.xml
assert_contains out "## dipmap gate: INCONCLUSIVE after 20 of 20 questions (round 2 of 2)"
[ "$(gate_json cmp.json 'd["sequential"]["decision"]')" = INCONCLUSIVE ] || fail "decision"
[ "$(gate_json cmp.json 'd["verdict"]')" = INCONCLUSIVE ] || fail "verdict"
[ "$(q g.db "select count(distinct question_id) from trials")" = 20 ] || fail "mapped beyond the cap"
[ "$(gate_requests)" = 440 ] || fail "expected 440 requests"
xmllint --noout junit.xml || fail "junit.xml is not well-formed"
[ "$(xmllint --xpath 'count(//failure) + count(//error)' junit.xml)" -ge 1 ] ||
    fail "an INCONCLUSIVE gate is green in JUnit"
expect_code 2 "$DIPMAP" gate "${GATE_ARGS[@]}" --baseline-model base --model same --round 0
assert_contains err "--round must be at least 1"
expect_code 2 "$DIPMAP" gate "${GATE_ARGS[@]}" --baseline-model base --model same --spending x
assert_contains err "--spending must be pocock or obf"
# the same gate name with other settings is refused
expect_code 2 "$DIPMAP" gate "${GATE_ARGS[@]}" --baseline-model base --model same --db g.db \
    --name m --round 5 --max-questions 20
assert_contains err "was started with other settings"
