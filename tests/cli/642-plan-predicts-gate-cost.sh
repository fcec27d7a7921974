# dipmap plan predicts the cost of the gate it plans for: the questions `dipmap gate` takes to
# a decision under the rule it runs (compare's anytime-valid betting tests after every round),
# simulated with compare's own code. A planted unchanged model (98% at every depth, serve-sim):
# three gates over real HTTP, each baseline and candidate their own seeds; the mean questions
# they took to PASS must lie within 40 questions (two rounds) of plan's predicted mean, and
# below the questions plan says 95% of gates need. The previous planner (the normal model of
# the old Gaussian rule) printed no mean and said 95% of them PASS by 146 questions (this curve).
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
. "$TESTS/cli/lib/gate-lib.sh"
curve=edge=0.98,dip=0,flat=1
gate_setup 300 --model b1:$curve,seed=11 --model c1:$curve,seed=21 \
    --model b2:$curve,seed=12 --model c2:$curve,seed=22 \
    --model b3:$curve,seed=13 --model c3:$curve,seed=23
expect_code 0 "$DIPMAP" plan --questions 300 --lengths 1000 --depths 0:100:10 --accuracy 0.98 \
    --round 20 --gates 200
cp out plan.txt
predicted=$(sed -n 's/.* after \([0-9]*\) questions on average.*/\1/p' plan.txt | head -1)
need95=$(sed -n 's/.* and \([0-9]*\) with 95%.*/\1/p' plan.txt | head -1)
[ -n "$predicted" ] || fail "plan predicts no mean questions for the gate"
[ -n "$need95" ] || fail "plan states no questions for 95% of gates to PASS"
total=0
for i in 1 2 3; do
    expect_code 0 "$DIPMAP" gate "${GATE_ARGS[@]}" --baseline-model b$i --model c$i --db g.db \
        --name u$i --round 20 --max-questions 300 --json c$i.json
    [ "$(gate_json c$i.json 'd["sequential"]["rounds"][-1]["compare_verdict"]')" = PASS ] ||
        fail "gate $i did not PASS"
    total=$((total + $(gate_json c$i.json 'int(d["sequential"]["rounds"][-1]["questions"])')))
done
measured=$((total / 3))
echo "plan predicts $predicted questions (95% of gates by $need95); the gates took $measured on average" >&2
diff=$((measured - predicted))
[ "${diff#-}" -le 40 ] ||
    fail "the gates took $measured questions on average, plan predicted $predicted (tolerance 40)"
[ "$measured" -le "$need95" ] ||
    fail "the gates took $measured questions on average, above plan's 95% figure $need95"
