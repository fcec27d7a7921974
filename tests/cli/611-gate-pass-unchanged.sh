# dipmap gate on an unchanged model (the same curve, another seed: independent draws) PASSes
# (exit 0) before --max-questions: every primary endpoint's repeated upper bound falls under
# the tolerance at some round, with fewer requests than mapping every question.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
. "$TESTS/cli/lib/gate-lib.sh"
gate_setup 300 --model base:edge=0.99,dip=0.02,flat=1,seed=1 --model same:edge=0.99,dip=0.02,flat=1,seed=2
expect_code 0 "$DIPMAP" gate "${GATE_ARGS[@]}" --baseline-model base --model same --db g.db \
    --name u --round 20 --max-questions 300 --json cmp.json --out outdir
assert_contains out "## dipmap gate: PASS after"
rounds=$(gate_json cmp.json 'd["sequential"]["decided_round"]')
[ "$rounds" -lt "$(gate_json cmp.json 'd["sequential"]["rounds_planned"]')" ] ||
    fail "PASS only at the last round"
[ "$(gate_json cmp.json 'all(e["upper"] < 0.05 for e in d["sequential"]["rounds"][-1]["endpoints"])')" = True ] ||
    fail "a bound is not below the tolerance"
[ "$(gate_requests)" -lt $((300 * 22)) ] || fail "no saving"
for f in compare.md compare.json junit.xml; do [ -s "outdir/$f" ] || fail "outdir/$f missing"; done
assert_contains outdir/compare.md "## dipmap gate: PASS"
