# dipmap plan (issue 19): the minimum drop compare detects at 80% power per
# cell, per length and overall, --detect's questions needed, --power's FAIL
# probability, --pilot from a real run, run --dry-run's power section, and
# bad input named with exit 2.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/data/run/lib.sh"
expect_code 0 "$DIPMAP" plan --questions 60 --lengths 3000 --depths 0:100:10 --accuracy 0.85 \
    --detect 8pp --power 10pp@25-75
# 11 cells + 1 length = a Holm family of 12: single tests at 0.05/12
assert_contains out "Holm family 12 tests (cells and lengths are planned at alpha/12 = 0.00417"
assert_contains out "each cell                     1     85.0%  31.9 pp                 611"
assert_contains out "3000 (all depths)            11     85.0%  8.3 pp                  64"
assert_contains out "overall                      11     85.0%  6.8 pp                  34"
assert_contains out "power: compare says FAIL with probability"
# 4x the questions: about half the detectable drop (tolerance 2 pp so it does not bind)
expect_code 0 "$DIPMAP" plan --questions 60 --lengths 3000 --depths 0:100:10 --accuracy 0.85 \
    --tolerance 0.02
assert_contains out "3000 (all depths)            11     85.0%  8.3 pp"
expect_code 0 "$DIPMAP" plan --questions 240 --lengths 3000 --depths 0:100:10 --accuracy 0.85 \
    --tolerance 0.02
assert_contains out "3000 (all depths)            11     85.0%  3.7 pp"
# with a question effect (icc 0.5) 4 repeats buy almost nothing: 21.8 pp -> 20.9 pp
expect_code 0 "$DIPMAP" plan --questions 60 --lengths 3000 --depths 0:100:10 --accuracy 0.85 \
    --icc 0.5
assert_contains out "3000 (all depths)            11     85.0%  21.8 pp"
expect_code 0 "$DIPMAP" plan --questions 60 --repeats 4 --lengths 3000 --depths 0:100:10 \
    --accuracy 0.85 --icc 0.5
assert_contains out "3000 (all depths)            44     85.0%  20.9 pp"

# --pilot: the matrix and per-cell accuracy of a real run
make_kv 12
start_sim sim --dataset golden.jsonl --model m:edge=0.9,dip=0.6
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --model m --lengths 3000 --depths 0,50,100 \
    --db t.db --run pilot
expect_code 0 "$DIPMAP" plan --pilot pilot --db t.db --detect 20pp
assert_contains out "accuracy per cell measured from run 'pilot' (12 questions)"
assert_contains out "3000 @ 50%"
assert_contains out "questions needed"
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --model m --lengths 3000,6000 --depths 0,50,100 --dry-run
assert_contains out "assuming accuracy 70% and independent draws"
assert_contains out "6000 (all depths)"

# bad input
expect_code 2 "$DIPMAP" plan --lengths 8k
assert_contains err "plan: how many questions? give --dataset FILE, --questions N or --pilot RUN"
expect_code 2 "$DIPMAP" plan --questions 60 --detect lots
assert_contains err "plan: --detect: 'lots' is not a drop in percentage points"
expect_code 2 "$DIPMAP" plan --questions 60 --depths 0,50,100 --lengths 8k --power 1,2
assert_contains err "plan: --power: 2 drops for 3 depths"
expect_code 2 "$DIPMAP" plan --pilot nosuch --db t.db
assert_contains err "plan: no run named 'nosuch'"
