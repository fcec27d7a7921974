# Acceptance: million-token prompts from what dipmap ships (issue 45 item 5). The shipped
# needle set and datasets/books-haystack.jsonl.gz map 2 questions x 3 depths at 1m
# (1,048,576 tokens) end to end against serve-sim with a 1M context: every trial's prompt is
# exactly the target as the server counted it (usage.prompt_tokens, cl100k on both sides) and
# as dipmap built it (realized_length), every trial is answered, and the report is written.
# Before the books haystack the only shipped filler for the needle set (nq-haystack, ~295k
# tokens) stopped at about 300k: "not enough distractor material" at 512k and 1m.
# serve-sim takes --ctx 1048576, and like vLLM counts the answer budget in it: a 1m prompt
# plus --max-tokens does not fit, which dipmap's context check says before building a prompt;
# the mapped server has room for the answer (1m + 1k).
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
run_million() {
    "$DIPMAP" run --endpoint "$SIM_URL" --model dipmap-sim --dataset "$REPO/datasets/needle.jsonl" \
        --haystack "$REPO/datasets/books-haystack.jsonl.gz" --template needle --lengths 1m \
        --depths 0,50,100 --questions 2 --concurrency 2 --progress none --db t.db --run million
}
start_sim full --dataset "$REPO/datasets/needle.jsonl" --ctx 1048576
expect_code 2 run_million
assert_contains err "length 1048576 plus --max-tokens 256 needs 1048832 tokens, but the server's context is 1048576"
stop_sim "$SIM_PID"
start_sim sim --dataset "$REPO/datasets/needle.jsonl" --ctx 1049600
expect_code 0 run_million
assert_contains out "run million: complete"
[ "$(n_trials million)" = 6 ] || fail "expected 6 trials, got $(n_trials million)"
[ "$(n_trials million "t.usage_prompt_tokens = 1048576 and t.realized_length = 1048576 and t.length = 1048576")" = 6 ] ||
    fail "not every trial counts 1048576 tokens: $(q t.db 'select length, realized_length, usage_prompt_tokens from trials')"
[ "$(n_trials million "t.outcome in ('correct', 'wrong')")" = 6 ] ||
    fail "not every trial was answered: $(q t.db 'select outcome from trials')"
expect_code 0 "$DIPMAP" report million --db t.db --out rep --format md --no-plots
[ -s rep/summary.md ] || fail "report not written"
assert_contains rep/summary.md "| 1m (1048576) |"
