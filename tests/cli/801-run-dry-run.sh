# dipmap run --dry-run: matrix size, prompt tokens per length and cost; generates nothing, needs no endpoint.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 4
start_sim sim --dataset golden.jsonl
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k,2k --depths 0:100:25 --repeats 2 \
    --dry-run --price-in 1 --price-out 2 --max-tokens 100 --db t.db
assert_contains out "trials: 80 = 4 questions x 2 lengths x 5 depths x 2 repeats"
assert_contains out "length 1024: 40 trials, 40,960 prompt tokens"
assert_contains out "length 2048: 40 trials, 81,920 prompt tokens"
# 122,880 prompt tokens at $1/M + 80 x 100 completion tokens at $2/M = $0.12 + $0.016
assert_contains out "122,880 prompt tokens"
assert_contains out "\$0.14"
# it asks the server what the run's preflight asks (models, context, token counts), never to generate
grep -q '"route":"/v1/models"' sim.log || fail "the dry run did not check the server: $(cat sim.log)"
grep -q '"route":"/v1/chat/completions"' sim.log && fail "the dry run generated: $(cat sim.log)"
[ ! -e t.db ] || fail "dry-run created the store"
# no endpoint or model needed; a shard shows its share
expect_code 0 "$DIPMAP" run --dataset golden.jsonl --haystack hay.jsonl --lengths 1k --depths 0,50,100 --shard 1/2 --dry-run
assert_contains out "trials: 6"
# --questions N: the trials of the first N questions, said as N of the set's (it printed the
# set's count beside the kept trials: "trials: 24 = 4 questions x ...")
expect_code 0 "$DIPMAP" run --dataset golden.jsonl --haystack hay.jsonl --lengths 1k,2k --depths 0,50,100 --questions 2 --dry-run
assert_contains out "trials: 12 = 2 of 4 questions (--questions) x 2 lengths x 3 depths x 1 repeats"
# named axes multiply a question's trials (it said "8 questions" for 4 questions x 2 axis values)
expect_code 0 "$DIPMAP" run --dataset golden.jsonl --haystack hay.jsonl --lengths 1k --depths 0,50,100 \
    --distractors hard,random --question-at end,start --template qa-both --dry-run
assert_contains out "trials: 48 = 4 questions x 1 lengths x 3 depths x 1 repeats x 4 axis combinations"
