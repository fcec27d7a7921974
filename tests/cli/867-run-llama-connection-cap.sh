# Against llama.cpp (its /props has total_slots) dipmap keeps at most slots + 4 connections
# to the server, the HTTP threads llama-server starts with by default (a connection beyond
# them can wait for another's 5 s keep-alive; BENCHMARKS.md "The same sweep against a real
# llama-server"), and queues the rest of --concurrency itself. serve-sim --slots answers
# /props like llama.cpp; its --log records how many requests were in flight on arrival.
# Answers take 600 ms on serve-sim's clock so that the lower bounds on requests in flight hold
# on a busy machine too (at 200 ms a client starved of CPU could send 7 requests too slowly).
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 6
max_inflight() { # LOG -> the most chat requests in flight at once
    python3 -c 'import json, sys
print(max(json.loads(l)["inflight"] for l in open(sys.argv[1]) if json.loads(l)["route"] == "/v1/chat/completions"))' "$1"
}
for slots in 2 4; do
    start_sim "s$slots" --dataset golden.jsonl --prefix-cache 1m --slots "$slots" --latency-ms 600
    run_args
    expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:25 --db "t$slots.db" \
        --run r -c 8 --schedule shuffle
    assert_contains out "trials: 30 of 30 done"
    m=$(max_inflight "s$slots.log")
    echo "slots $slots, --concurrency 8: at most $m requests in flight at the server"
    if [ "$slots" = 2 ]; then
        assert_contains err "connections: at most 6 per llama.cpp server (2 slots + 4, the HTTP threads it starts with by default); the other 2 of --concurrency 8 wait here"
        [ "$m" -le 6 ] || fail "$m requests in flight at a server of 2 slots (at most 6)"
        [ "$m" -ge 5 ] || fail "only $m requests in flight (the cap is 6)"
    else
        assert_not_contains err "connections:"
        [ "$m" -ge 7 ] || fail "only $m requests in flight with 4 slots (nothing to cap at 8)"
    fi
done
# a server that is not llama.cpp: nothing capped
start_sim vllm --dataset golden.jsonl --owned-by vllm --latency-ms 600
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:25 --db v.db --run r -c 8
assert_not_contains err "connections:"
m=$(max_inflight vllm.log)
[ "$m" -ge 7 ] || fail "only $m requests in flight at vLLM with --concurrency 8"
