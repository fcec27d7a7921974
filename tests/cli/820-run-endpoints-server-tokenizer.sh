# Several --endpoint values share the load; --tokenizer server counts with the endpoint's
# /tokenize (cached in the store); --completions uses the legacy endpoint.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 4
start_sim a --dataset golden.jsonl --latency-ms 30
A=$SIM_URL
start_sim b --dataset golden.jsonl --latency-ms 30
B=$SIM_URL
SIM_URL=$A run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --endpoint "$B" --lengths 1k --depths 0:100:10 --db t.db --run two --concurrency 4
assert_contains out "run two: complete"
na=$(grep -c '/chat/completions' a.log)
nb=$(grep -c '/chat/completions' b.log)
[ $((na + nb)) = 44 ] && [ "$na" -ge 10 ] && [ "$nb" -ge 10 ] || fail "load not spread: $na + $nb"
[ "$(q t.db "select endpoints from runs")" = "$A,$B" ] || fail "endpoints: $(q t.db "select endpoints from runs")"
# server-side token counts: same lengths as the sim's tokenizer, counts cached in the store
SIM_URL=$A run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,100 --db t.db --run srv --tokenizer server
[ "$(q t.db "select tokenizer_name from runs where name='srv'")" = "server:dipmap-sim" ] || fail "tokenizer name"
[ "$(q t.db "select count(*) from token_counts")" -gt 0 ] || fail "no cached counts"
[ "$(n_trials srv "usage_prompt_tokens = realized_length")" = 8 ] ||
    fail "server counts differ from usage"
grep -q '"route":"/tokenize"' a.log || fail "/tokenize not used"
# legacy completions
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,100 --db t.db --run legacy --completions
assert_contains out "run legacy: complete"
grep -q '"route":"/v1/completions"' a.log || fail "/v1/completions not used"
