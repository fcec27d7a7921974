# Real llama-server, chat: the template overhead dipmap measures (llama.cpp /apply-template +
# /tokenize) is what the server adds: for every request in the server's log, usage.prompt_tokens
# minus the server's own count of the system and user contents equals it; it is stored with the
# run; and the lengths as the server counts them land on target (never above, >= 95% exactly).
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/llama/lib.sh"
llama_require
llama_tokenizer
llama_golden 3 29
llama_start srv -c 8192 -np 1 --log-verbose
llama_run ov --lengths 1k,3k --depths 0,50,100 --max-tokens 8
[ "$LLAMA_RC" = 0 ] || { cat run-ov.err >&2; fail "run exited $LLAMA_RC"; }
ov=$(sed -n 's/.*template overhead: \([0-9]*\) tokens per request.*/\1/p' run-ov.err)
[ -n "$ov" ] && [ "$ov" -gt 0 ] || { cat run-ov.err >&2; fail "no template overhead measured"; }
[ "$(q t.db "select json_extract(settings_json, '$.\"template-overhead\"') from runs where name = 'ov'")" = "$ov" ] ||
    fail "the overhead is not stored with the run"
llama_check overhead "$LLAMA_LOG" "$LLAMA_URL" "$ov" || fail "the server added another number of tokens"
[ "$(q t.db "select count(*) from trials where usage_prompt_tokens > length")" = 0 ] ||
    fail "prompts above their length: $(q t.db "select length, usage_prompt_tokens from trials where usage_prompt_tokens > length")"
exact=$(q t.db "select count(*) from trials where usage_prompt_tokens = length")
[ $((exact * 100)) -ge $((18 * 95)) ] ||
    fail "only $exact of 18 prompts exactly on target as the server counts: $(q t.db "select length, realized_length, usage_prompt_tokens from trials")"
[ "$(q t.db "select count(*) from trials where usage_prompt_tokens <> realized_length")" = 0 ] ||
    fail "dipmap's count of the whole request differs from the server's"
