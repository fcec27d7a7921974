# dipmap plan (issues 19, 29): compare's rule planned. Per length the three primary endpoints
# (all depths, middle, dip: one Holm family), the cells as the secondary family, overall; the
# minimum drop at 80% power, --detect's questions needed, the chance an unchanged model PASSes
# and the questions it needs to, --power's FAIL/PASS/INCONCLUSIVE (--gate cells: the cells fail
# too), --accuracy per depth, --pilot from a real run, run --dry-run's power section (its gate
# line the same as plan's), and bad input named with exit 2.
# sanitizers: skip: a statistical check: plan's simulations; 009 runs plan, unit test_power its code
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
# (--gates 0: the normal model's PASS line; test 642 checks the simulated gate's)
expect_code 0 "$DIPMAP" plan --questions 60 --lengths 3000 --depths 0:100:10 --accuracy 0.85 \
    --detect 8pp --power 10pp@25-75 --gates 0
# 3 primary tests (all depths, middle, dip) at 0.05/3; the 11 cells secondary at 0.05/11
assert_contains out "primary endpoints (the gate): 3 tests, one Holm family, each planned at alpha/3 = 0.0167"
assert_contains out "3000 (all depths)            11     85.0%  6.8 pp                  47"
assert_contains out "3000 middle (25-75%)          5     85.0%  10.6 pp                 96"
assert_contains out "3000 dip                      7    +0.0pp  18.2 pp                 269"
assert_contains out "secondary (the cells; they fail the gate only with --gate cells): 11 tests, each planned at alpha/11 = 0.00455"
assert_contains out "each cell                     1     85.0%  31.6 pp                 601"
assert_contains out "overall                      11     85.0%  6.8 pp                  34"
assert_contains out "an unchanged model PASSes (every primary 95% upper bound below 5.0 pp) with probability 8.3% at 60 questions"
assert_contains out "it needs 452 questions to PASS with 80% probability and 771 with 95%"
assert_contains out "power: compare says FAIL with probability 80.1%, PASS 0.0%, INCONCLUSIVE 19.9% for the drop 10.0 pp at depths 25-75%; with no drop FAIL 2.9%, PASS 8.3% (a primary regression fails, the cells do not"
# --gate cells: the cells fail the gate too, so an unchanged model FAILs more often
expect_code 0 "$DIPMAP" plan --questions 60 --lengths 3000 --depths 0:100:10 --accuracy 0.85 \
    --power 10pp@25-75 --gate cells
assert_contains out "with no drop FAIL 5.0%, PASS 8.2% (--gate cells: a primary or a cell regression fails"
# 4x the questions: about half the detectable drop (tolerance 2 pp so it does not bind)
expect_code 0 "$DIPMAP" plan --questions 60 --lengths 3000 --depths 0:100:10 --accuracy 0.85 \
    --tolerance 0.02
assert_contains out "3000 (all depths)            11     85.0%  6.8 pp"
expect_code 0 "$DIPMAP" plan --questions 240 --lengths 3000 --depths 0:100:10 --accuracy 0.85 \
    --tolerance 0.02
assert_contains out "3000 (all depths)            11     85.0%  3.1 pp"
# with a question effect (icc 0.5) 4 repeats buy almost nothing: 17.8 pp -> 17.1 pp
expect_code 0 "$DIPMAP" plan --questions 60 --lengths 3000 --depths 0:100:10 --accuracy 0.85 \
    --icc 0.5
assert_contains out "3000 (all depths)            11     85.0%  17.8 pp"
expect_code 0 "$DIPMAP" plan --questions 60 --repeats 4 --lengths 3000 --depths 0:100:10 \
    --accuracy 0.85 --icc 0.5
assert_contains out "3000 (all depths)            44     85.0%  17.1 pp"
# --accuracy per depth (a U-curve): the baseline dip is edge - middle
expect_code 0 "$DIPMAP" plan --questions 60 --lengths 1000 --depths 0,50,100 --accuracy 0.9,0.6,0.9
assert_contains out "assumed accuracy per depth (--accuracy): 90.0% 60.0% 90.0%"
assert_contains out "1000 middle (25-75%)          1     60.0%"
assert_contains out "1000 dip                      3   +30.0pp"
assert_contains out "1000 @ 50%                    1     60.0%"

# --pilot: the matrix and per-cell accuracy of a real run
make_kv 12
start_sim sim --dataset golden.jsonl --model m:edge=0.9,dip=0.6
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --model m --lengths 3000 --depths 0,50,100 \
    --db t.db --run pilot
expect_code 0 "$DIPMAP" plan --pilot pilot --db t.db --detect 20pp
assert_contains out "accuracy per cell measured from run 'pilot' (12 questions)"
assert_contains out "3000 @ 50%"
assert_contains out "3000 dip"
assert_contains out "questions needed"
assert_contains out "questions to PASS with 80% probability"
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --model m --lengths 3000,6000 --depths 0,50,100 --dry-run
assert_contains out "assuming accuracy 70% and independent draws"
assert_contains out "6000 (all depths)"
assert_contains out "6000 dip"
assert_contains out "primary endpoints (the gate): 6 tests"
# its PASS line is plan's simulated gate (one planner, not the normal model's approximation):
# the same line as dipmap plan prints for this matrix with the dry run's 40 gates
assert_not_contains out "Monte Carlo of the normal model"
grep '^the gate (dipmap gate --round 20 --max-questions 12: ' out >dry-gate.txt ||
    fail "the dry run prints no simulated gate line"
expect_code 0 "$DIPMAP" plan --questions 12 --lengths 3000,6000 --depths 0,50,100 --gates 40
grep '^the gate (' out | cmp -s - dry-gate.txt ||
    fail "run --dry-run and plan differ: $(cat dry-gate.txt) / $(grep '^the gate (' out)"

# bad input
expect_code 2 "$DIPMAP" plan --lengths 8k
assert_contains err "plan: how many questions? give --dataset FILE, --questions N or --pilot RUN"
expect_code 2 "$DIPMAP" plan --questions 60 --detect lots
assert_contains err "plan: --detect: 'lots' is not a drop between 0 and 100 pp"
expect_code 2 "$DIPMAP" plan --questions 60 --depths 0,50,100 --lengths 8k --power 1,2
assert_contains err "plan: --power: 2 drops for 3 depths"
expect_code 2 "$DIPMAP" plan --questions 60 --depths 0,50,100 --accuracy 0.9,0.6
assert_contains err "plan: --accuracy: 2 values for 3 depths (give one, or one per depth)"
expect_code 2 "$DIPMAP" plan --questions 60 --accuracy 1.5
assert_contains err "plan: --accuracy: '1.5' is not an accuracy in [0,1]"
expect_code 2 "$DIPMAP" plan --questions 60 --gate some
assert_contains err "plan: --gate: 'some' is not primary or cells"
expect_code 2 "$DIPMAP" plan --pilot nosuch --db t.db
assert_contains err "plan: no run named 'nosuch'"
