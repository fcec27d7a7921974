# `gate --max-questions 400` on a 10-question set warns up front (the first line on stderr,
# before any round) that the cap is above the set and the gate stops at 10; when it ends
# without a decision, it names the limit it reached: every question of the golden set, not
# "--max-questions (10)" (issue 43 item 10). A cap below the set is still named as the cap.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
. "$TESTS/cli/lib/gate-lib.sh"
gate_setup 10 --model base:edge=0.9,dip=0.2,flat=1 --model same:edge=0.9,dip=0.2,flat=1,seed=2
expect_code 4 "$DIPMAP" gate "${GATE_ARGS[@]}" --baseline-model base --model same --db g.db \
    --name m --round 5 --max-questions 400
head -1 err | grep -qF "warning: gate: --max-questions 400 is more than the golden set's 10 questions: the gate stops at 10 (every question of golden.jsonl)" ||
    fail "no warning up front: $(head -3 err)"
assert_contains out "The gate reached every question of the golden set (10) without a decision"
assert_not_contains out "reached --max-questions"
# a cap below the set: no warning, and the cap is the limit named
expect_code 4 "$DIPMAP" gate "${GATE_ARGS[@]}" --baseline-model base --model same --db g2.db \
    --name m --round 4 --max-questions 8
assert_not_contains err "is more than the golden set"
assert_contains out "The gate reached --max-questions (8) without a decision"
exit 0
