# Real llama-server, --completions (POST /v1/completions with the rendered prompt as text):
# every trial is answered and scored, no chat template is added (the server's
# usage.prompt_tokens equals dipmap's realized length), and lengths land on target.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/llama/lib.sh"
llama_require
llama_tokenizer
llama_golden 3 5
llama_start srv -c 8192 -np 1
llama_run c --completions --lengths 1k,3k --depths 0,50,100 --max-tokens 8
[ "$LLAMA_RC" = 0 ] || { cat run-c.err >&2; fail "run exited $LLAMA_RC"; }
assert_contains run-c.out "run c: complete"
[ "$(q t.db "select count(*) from trials where outcome in ('correct','wrong')")" = 18 ] ||
    fail "not all 18 trials scored: $(q t.db "select outcome, error from trials where outcome not in ('correct','wrong') limit 5")"
[ "$(q t.db "select count(*) from trials where usage_prompt_tokens <> realized_length")" = 0 ] ||
    fail "server and dipmap counts differ: $(q t.db "select length, realized_length, usage_prompt_tokens from trials where usage_prompt_tokens <> realized_length limit 5")"
[ "$(q t.db "select count(*) from trials where realized_length > length")" = 0 ] || fail "a prompt above its target length"
on=$(q t.db "select count(*) from trials where realized_length = length")
[ "$on" -ge 17 ] || fail "only $on of 18 prompts exactly on target: $(q t.db "select length, realized_length from trials")"
[ "$(q t.db "select count(*) from trials where answer is null or answer = ''")" = 0 ] || fail "empty answers stored"
