# run --dry-run makes every check the run makes before its first trial, so a dry run that passes is
# a run that starts, and one that fails exits as the run would (issue 30): lengths over the server's
# context (all of them named at once, not one per try), a missing haystack (every length it cannot
# fill named), a model the server does not serve, a tokenizer mismatch. It sends no generation
# request: the server's model list, context and counting endpoint only. Without --endpoint it
# checks the prompts and says what it could not check.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
HAY="$REPO/datasets/nq-haystack.jsonl.gz"
start_sim sim --dataset "$REPO/datasets/needle.jsonl" --ctx 32k
A=(--endpoint "$SIM_URL" --model dipmap-sim --dataset "$REPO/datasets/needle.jsonl" --depths 0,50
    --progress none --db t.db)
ctx_err="the server's context is 32768 tokens; with --max-tokens 256, 2 of 3 lengths do not fit: 32768 (needs 33024), 65536 (needs 65792)"
expect_code 2 "$DIPMAP" run "${A[@]}" --haystack "$HAY" --lengths 8k,32k,64k --dry-run
assert_contains err "$ctx_err"
assert_not_contains out "trials:"
# the run refuses the same lengths with the same words
expect_code 2 "$DIPMAP" run "${A[@]}" --haystack "$HAY" --lengths 8k,32k,64k --db real.db
assert_contains err "$ctx_err"
# one length: the singular form
expect_code 2 "$DIPMAP" run "${A[@]}" --haystack "$HAY" --lengths 8k,64k --dry-run
assert_contains err "length 65536 plus --max-tokens 256 needs 65792 tokens, but the server's context is 32768"

# no haystack: the 4 hard negatives of needle.jsonl fill neither 8k nor 16k; both are named
expect_code 2 "$DIPMAP" run "${A[@]}" --lengths 8k,16k --dry-run
assert_contains err "at length 8192, depth 0%"
assert_contains err "at length 16384, depth 0%"
assert_contains err "no haystack given"
# ... and without --endpoint too (the prompts are built locally); the server is said unchecked
expect_code 2 "$DIPMAP" run --dataset "$REPO/datasets/needle.jsonl" --lengths 8k --dry-run
assert_contains err "not enough distractor material for 8192 tokens"
expect_code 0 "$DIPMAP" run --dataset "$REPO/datasets/needle.jsonl" --haystack "$HAY" --lengths 8k \
    --depths 0,50 --dry-run
assert_contains err "dry run: not checked: the server (no --endpoint): the model, its context"
assert_contains out "trials: 72"

# a model the server does not serve
expect_code 2 "$DIPMAP" run "${A[@]}" --haystack "$HAY" --lengths 8k --model nope --dry-run
assert_contains err "model \"nope\" is not served"

# what passes: the same output as before, the server checked, nothing generated, nothing stored
expect_code 0 "$DIPMAP" run "${A[@]}" --haystack "$HAY" --lengths 8k,16k --dry-run
assert_contains out "trials: 144"
assert_contains err "template overhead: 0 tokens per request"
assert_not_contains err "not checked"
grep -q '"route":"/v1/chat/completions"' sim.log && fail "the dry run generated: $(cat sim.log)"
[ -e t.db ] && fail "the dry run created the store"

# a tokenizer mismatch stops the dry run as it stops the run (the server counts GPT-2 tokens)
make_kv 4
start_sim gpt2 --dataset golden.jsonl --tokenizer "$REPO/tests/data/tokenizer/gpt2/tokenizer.json.gz"
expect_code 2 "$DIPMAP" run --endpoint "$SIM_URL" --model dipmap-sim --dataset golden.jsonl \
    --haystack hay.jsonl --template "$REPO/prompts/kv.txt" --scorer kv --lengths 1k \
    --depths 0:100:50 --dry-run
assert_contains err "tokenizer mismatch: the server counted "
grep -q '"route":"/v1/chat/completions"' gpt2.log && fail "the dry run generated: $(cat gpt2.log)"
exit 0
