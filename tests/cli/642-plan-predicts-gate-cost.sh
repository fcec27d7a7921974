# dipmap plan predicts the cost of the gate it plans for: the questions `dipmap gate` takes to
# a decision under the rule it runs (compare's anytime-valid betting tests after every round),
# simulated with compare's own code. A planted unchanged model (98% at every depth, serve-sim):
# three gates over real HTTP, each baseline and candidate their own seeds; the mean questions
# they took to PASS must lie within 40 questions (two rounds) of plan's predicted mean, below
# the questions plan says 95% of gates need, and not every gate may take longer than plan's 80%
# figure (if plan were right, all three would with probability 0.8%). The previous planner (the
# normal model of the old Gaussian rule) printed no mean and said 80% of gates PASS by 101
# questions and 95% by 146 (this curve); these gates took 120, 140 and 160.
# sanitizers: skip: a statistical check: plan's gate simulations; unit test_power runs its code
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
need80=$(sed -n 's/.* needs \([0-9]*\) questions to PASS with 80% probability.*/\1/p' plan.txt | head -1)
[ -n "$predicted" ] || fail "plan predicts no mean questions for the gate"
[ -n "$need95" ] && [ -n "$need80" ] || fail "plan states no questions for 80% and 95% of gates to PASS"
total=0
within80=0
for i in 1 2 3; do
    expect_code 0 "$DIPMAP" gate "${GATE_ARGS[@]}" --baseline-model b$i --model c$i --db g.db \
        --name u$i --round 20 --max-questions 300 --json c$i.json
    [ "$(gate_json c$i.json 'd["sequential"]["rounds"][-1]["compare_verdict"]')" = PASS ] ||
        fail "gate $i did not PASS"
    n=$(gate_json c$i.json 'int(d["sequential"]["rounds"][-1]["questions"])')
    total=$((total + n))
    [ "$n" -le "$need80" ] && within80=$((within80 + 1))
done
measured=$((total / 3))
echo "plan predicts $predicted questions (95% of gates by $need95); the gates took $measured on average" >&2
diff=$((measured - predicted))
[ "${diff#-}" -le 40 ] ||
    fail "the gates took $measured questions on average, plan predicted $predicted (tolerance 40)"
[ "$measured" -le "$need95" ] ||
    fail "the gates took $measured questions on average, above plan's 95% figure $need95"
[ "$within80" -ge 1 ] || fail "every gate took longer than plan's 80% figure $need80"
