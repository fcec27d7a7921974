# Real llama-server with --context-shift and a 2048-token context: a prompt of 2047 tokens
# leaves no room for the answer, and the server drops half the prompt (its log says
# "slot context shift") yet answers "stop" with usage unchanged. dipmap sees that prompt +
# answer exceed the context (GET /props) and records the trial as truncated, never as
# correct or wrong (without the check all 12 were scored). --completions, so the server
# counts exactly dipmap's realized length (996).
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/llama/lib.sh"
llama_require
llama_tokenizer
llama_golden 4 21
llama_start srv -c 2048 -np 1 --context-shift
llama_run cs --completions --lengths 2047 --depths 0,50,100 --max-tokens 8 --no-context-check
q t.db "select realized_length, usage_prompt_tokens, completion_tokens, outcome, error from trials" >trials.txt
cat trials.txt
shifts=$(grep -c 'slot context shift' "$LLAMA_LOG")
trunc=$(q t.db "select count(*) from trials where outcome = 'truncated' and error like '%context shift%'")
[ "$shifts" -ge 1 ] || fail "no prompt reached the end of the context (no shift in the server log)"
[ "$trunc" = "$shifts" ] || fail "the server shifted $shifts times, $trunc trials recorded as truncated"
[ "$(q t.db "select count(*) from trials where outcome in ('correct','wrong') and usage_prompt_tokens + completion_tokens > 2048")" = 0 ] ||
    fail "an answer written after a context shift was scored"
[ "$(q t.db "select count(*) from trials where outcome in ('correct','wrong','truncated')")" = 12 ] ||
    fail "outcomes: $(q t.db "select outcome, count(*) from trials group by 1")"
