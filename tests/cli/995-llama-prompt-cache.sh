# Real llama-server, one slot, one request at a time: the prompt cache use that the
# server reports in `timings` is stored per trial (cache_n tokens reused, prompt_n
# computed, prompt_ms), it adds up to the server's usage.prompt_tokens, trials of one
# question share the distractors before the gold chunk so some reuse happens, and the
# run's summary line reports the same reuse share as the store.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/llama/lib.sh"
llama_require
llama_tokenizer
llama_golden 1 9
llama_start srv -c 16384 -np 1
llama_run pc --lengths 2k,4k,8k --depths 0:100:25 --concurrency 1 --max-tokens 8
[ "$LLAMA_RC" = 0 ] || { cat run-pc.err >&2; fail "run exited $LLAMA_RC"; }
[ "$(q t.db "select count(*) from trials where cache_n is null or prompt_n is null or prompt_ms is null")" = 0 ] ||
    fail "timings not stored: $(q t.db "select cache_n, prompt_n, prompt_ms from trials limit 3")"
[ "$(q t.db "select count(*) from trials where cache_n + prompt_n <> usage_prompt_tokens")" = 0 ] ||
    fail "cache_n + prompt_n differs from usage.prompt_tokens: $(q t.db "select cache_n, prompt_n, usage_prompt_tokens from trials limit 5")"
reused=$(q t.db "select sum(cache_n) from trials")
total=$(q t.db "select sum(cache_n + prompt_n) from trials")
[ "$reused" -gt 0 ] || fail "no prompt cache reuse at all"
pct=$(python3 -c "print('%.1f%%' % (100.0 * $reused / $total))")
assert_contains run-pc.out "prompt cache: $reused of $total prompt tokens reused ($pct), from the server's timings of 15 trials"
# per length: trials; cold ones (nothing reused) and their mean prefill ms; warm ones and
# theirs; share of prompt tokens reused (BENCHMARKS.md "llama-server")
echo "length trials cold cold_ms warm warm_ms reused%"
q t.db "select length, count(*), sum(cache_n = 0), round(avg(case when cache_n = 0 then prompt_ms end)),
        sum(cache_n > 0), round(avg(case when cache_n > 0 then prompt_ms end)),
        round(100.0 * sum(cache_n) / sum(cache_n + prompt_n), 1) from trials group by length order by length"
