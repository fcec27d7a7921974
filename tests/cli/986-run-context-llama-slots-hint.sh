# The context check against a llama.cpp server (GET /props: n_ctx, total_slots; serve-sim
# answers it the same way) says that llama.cpp splits -c across its slots (issue 43 item 14):
# a user who started llama-server with -c 16384 -np 2 reads "the server's context is 8192"
# and is told the -c that fits. A one-slot server gets no slot hint.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 3
start_sim sim --dataset golden.jsonl --ctx 8192 --slots 2
run_args
expect_code 2 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 4k,16k --depths 0 --db t.db --run c --max-tokens 256
assert_contains err "error: run: length 16384 plus --max-tokens 256 needs 16640 tokens, but the server's context is 8192"
assert_contains err "hint: llama.cpp splits -c across its slots: this server has 2 slots of 8192 tokens (-c 16384 -np 2); for 16640 tokens a request start it with -c 33280 -np 2, or -np 1 -c 16640"
[ "$(grep -c '/completions' sim.log)" = 0 ] || fail "trials were sent despite the refusal"
start_sim one --dataset golden.jsonl --ctx 8192 --slots 1
run_args
expect_code 2 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 16k --depths 0 --db t.db --run c --max-tokens 256
assert_contains err "but the server's context is 8192"
assert_not_contains err "slots"
