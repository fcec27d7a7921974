# run --dry-run prints the matrix size, prompt tokens per length and the cost; sends nothing
source "$TESTS/cli/lib/lib.sh"
expect_code 0 "$DIPMAP" run --dry-run --dataset "$REPO/datasets/needle.jsonl" --haystack "$REPO/datasets/nq-haystack.jsonl.gz" \
    --lengths 8k,32k --depths 0:100:10 --repeats 2 --max-tokens 50 --price-in 2.5 --price-out 10 --db none.db
assert_contains out "trials: 1,584 = 36 questions x 2 lengths x 11 depths x 2 repeats"
assert_contains out "length 8192: 792 trials, 6,488,064 prompt tokens"
assert_contains out "length 32768: 792 trials, 25,952,256 prompt tokens"
assert_contains out "total: 32,440,320 prompt tokens, at most 79,200 completion tokens"
assert_contains out 'estimated cost: at most $81.89'
[ -e none.db ] && fail "dry run must not create the store"
expect_code 0 "$DIPMAP" run --dry-run --dataset "$REPO/datasets/needle.jsonl" --haystack "$REPO/datasets/nq-haystack.jsonl.gz" --lengths 8k --depths 0,50,100 --shard 2/3
assert_contains out "(shard 2/3 of 108)"
expect_code 2 "$DIPMAP" run --dry-run --dataset "$REPO/datasets/needle.jsonl" --depths 0:120:10
assert_contains err "--depths"
expect_code 2 "$DIPMAP" run --dry-run --dataset "$REPO/datasets/needle.jsonl" --lengths 8k,eight
assert_contains err "--lengths: 'eight' is not a token count"
exit 0
