# A tokenizer mismatch is never taken for template overhead: a template adds the same tokens to
# every request, so run measures the overhead on two requests (the bare question and the first
# trial at the shortest length) and stops before any trial (exit 2) when they differ -- here the
# server counts GPT-2 tokens, more than the run's cl100k, which used to pass as "template overhead:
# N tokens per request" -- or when the server counts fewer. A run stopped on its first answers for
# a mismatch records the answer that showed it, and its report says MISMATCH, never "local counts
# agree with the server's usage".
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 4
GPT2="$REPO/tests/data/tokenizer/gpt2/tokenizer.json.gz"
KV=(--dataset golden.jsonl --haystack hay.jsonl --template "$REPO/prompts/kv.txt" --scorer kv
    --lengths 1k --depths 0:100:50 --progress none --db t.db)
start_sim more --dataset golden.jsonl --tokenizer "$GPT2"
expect_code 2 "$DIPMAP" run --endpoint "$SIM_URL" --model dipmap-sim "${KV[@]}" --run more
assert_contains err "tokenizer mismatch: the server counted "
assert_contains err "for a longer one"
assert_contains err "use --tokenizer server"
assert_not_contains err "template overhead: "
[ "$(grep -c '"route":"/v1/chat/completions"' more.log)" = 0 ] || fail "trials were sent"
[ "$(q t.db "select count(*) from runs")" = 0 ] || fail "a run row was stored"
# allowed: a warning, and the run goes on
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" --model dipmap-sim "${KV[@]}" --run more \
    --allow-tokenizer-mismatch
assert_contains err "warning: tokenizer mismatch: the server counted "
# the overhead given by hand is not measured: the first answers stop the run, the answer that
# showed the mismatch is kept, and the report says so
expect_code 2 "$DIPMAP" run --endpoint "$SIM_URL" --model dipmap-sim "${KV[@]}" --run given \
    --template-overhead 0
assert_contains err "tokenizer mismatch: the server counted "
# its hint does not repeat the command that stopped (it would stop the same way)
assert_not_contains err "hint: resume with"
assert_contains err "hint: count with the model's tokens: --tokenizer server"
[ "$(n_trials given "t.usage_prompt_tokens > t.realized_length * 1.02")" -ge 1 ] ||
    fail "the mismatched answer was not recorded"
expect_code 0 "$DIPMAP" report given --db t.db --out rep --format md --no-plots
grep -rq "MISMATCH" rep || fail "the report does not name the mismatch"
if grep -rq "local counts agree" rep; then fail "the report of a mismatch stop says the counts agree"; fi
