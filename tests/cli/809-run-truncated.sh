# Silent server-side truncation (llama.cpp context shift): usage.prompt_tokens below what was sent
# -> stored as truncated, never scored.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 3
start_sim sim --dataset golden.jsonl --shift-ctx 1500
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k,2k --depths 0,50,100 --db t.db --run t \
    --no-context-check
[ "$(q t.db "select count(*) from trials where length=2048 and outcome='truncated'")" = 9 ] ||
    fail "2k trials not truncated: $(q t.db "select length, outcome, usage_prompt_tokens, realized_length from trials")"
[ "$(q t.db "select count(*) from trials where length=2048 and usage_prompt_tokens < realized_length")" = 9 ] ||
    fail "usage.prompt_tokens not recorded"
[ "$(q t.db "select count(*) from trials where length=1024 and outcome in ('correct','wrong')")" = 9 ] ||
    fail "1k trials not scored"
assert_contains out "of 9 scored trials)"
