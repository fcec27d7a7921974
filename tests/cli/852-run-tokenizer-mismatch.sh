# A tokenizer mismatch is not truncation. When the server counts a prompt more than 2% off the
# run's count (template overhead included), the run stops on the first answers with exit 2,
# naming both counts and --tokenizer server -- whether the server counts more (GPT-2 on UUIDs:
# ~11% more than cl100k) or fewer (which used to turn every trial into "truncated" and exit 0);
# --allow-tokenizer-mismatch keeps going and scores the trials. truncated stays for what the
# server cut (a context shift to the context size), and a run where nothing could be scored
# never exits 0.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 4
GPT2="$REPO/tests/data/tokenizer/gpt2/tokenizer.json.gz"
KV=(--dataset golden.jsonl --haystack hay.jsonl --template "$REPO/prompts/kv.txt" --scorer kv
    --lengths 1k --depths 0:100:50 --progress none --db t.db)

# the server counts more
start_sim more --dataset golden.jsonl --tokenizer "$GPT2"
expect_code 2 "$DIPMAP" run --endpoint "$SIM_URL" --model dipmap-sim "${KV[@]}" --run more
assert_contains err "tokenizer mismatch: the server counted "
assert_contains err "prompt tokens where the run's tokenizer counted "
assert_contains err "use --tokenizer server"
assert_contains err "--allow-tokenizer-mismatch"
sent=$(grep -c '"route":"/v1/chat/completions"' more.log)
[ "$sent" -le 9 ] || fail "the run went on after the first answers ($sent requests)"
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" --model dipmap-sim "${KV[@]}" --run more \
    --allow-tokenizer-mismatch
assert_contains out "run more: complete"
assert_contains out "tokenizer mismatch: "
[ "$(n_trials more "outcome in ('correct','wrong')")" = 12 ] ||
    fail "allowed: every trial scored"

# the server counts fewer: not truncation either
start_sim fewer --dataset golden.jsonl
expect_code 2 "$DIPMAP" run --endpoint "$SIM_URL" --model dipmap-sim "${KV[@]}" --run fewer \
    --tokenizer "$GPT2"
assert_contains err "tokenizer mismatch: the server counted "
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" --model dipmap-sim "${KV[@]}" --run fewer \
    --tokenizer "$GPT2" --allow-tokenizer-mismatch
[ "$(n_trials fewer "outcome = 'truncated'")" = 0 ] ||
    fail "a count difference was recorded as truncation"
[ "$(n_trials fewer "outcome in ('correct','wrong')")" = 12 ] ||
    fail "fewer, allowed: every trial scored"

# the exact tokenizer: nothing flagged
start_sim same --dataset golden.jsonl
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" --model dipmap-sim "${KV[@]}" --run same
assert_not_contains out "mismatch"
assert_not_contains err "mismatch"

# the server cuts every prompt (context shift to 300 tokens): truncated, nothing scored, exit 4
start_sim shift --dataset golden.jsonl --shift-ctx 300
expect_code 4 "$DIPMAP" run --endpoint "$SIM_URL" --model dipmap-sim "${KV[@]}" --run shifted \
    --no-context-check
assert_contains err "no trial could be scored (12 truncated)"
[ "$(q t.db "select status from runs where name='shifted'")" = failed ] || fail "status"
