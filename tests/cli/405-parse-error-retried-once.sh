# HTTP 500 "Failed to parse input" is llama.cpp's chat parser rejecting the model's own
# output: the same prompt at the same seed fails the same way, so it gets 2 attempts
# (not --max-attempts) and ends as an error naming the server's message; a plain 500
# still gets every attempt. Same shape as llama-server 0253fb21f5 (common/chat.cpp).
# (--template-overhead 0: the fake server adds no tokens, and a probe request would shift its script)
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
. "$TESTS/servers/fake.sh"
make_kv 1
parse500='{"status":500,"json":{"error":{"code":500,"message":"Failed to parse input at pos 5: <tool_call>x","type":"server_error"}}}'
start_fake fake "{\"/v1/models\":[$(models_json m)],\"/v1/chat/completions\":[$parse500]}"
expect_code 3 "$DIPMAP" run --endpoint "$FAKE_URL" --model m --template-overhead 0 --dataset golden.jsonl \
    --haystack hay.jsonl --template "$REPO/prompts/kv.txt" --scorer kv --progress none \
    --lengths 1k --depths 0 --concurrency 1 --retry-base-ms 10 --max-attempts 6 --db t.db --run r
[ "$(fake_count fake /v1/chat/completions)" = 2 ] ||
    fail "expected 2 attempts, saw $(fake_count fake /v1/chat/completions) requests"
[ "$(q t.db "select count(*) from trials where outcome = 'error' and attempts = 2 and http_status = 500")" = 1 ] ||
    fail "trials: $(q t.db "select outcome, attempts, http_status from trials")"
[ "$(q t.db "select count(*) from trials where error like 'Failed to parse input at pos 5%'")" = 1 ] ||
    fail "errors: $(q t.db "select error from trials")"
# a 500 without that message is retried up to --max-attempts
fake_script fake "{\"/v1/models\":[$(models_json m)],\"/v1/chat/completions\":[{\"status\":500,\"json\":{\"error\":{\"code\":500,\"message\":\"boom\",\"type\":\"server_error\"}}}]}"
expect_code 3 "$DIPMAP" run --endpoint "$FAKE_URL" --model m --template-overhead 0 --dataset golden.jsonl \
    --haystack hay.jsonl --template "$REPO/prompts/kv.txt" --scorer kv --progress none \
    --lengths 1k --depths 0 --concurrency 1 --retry-base-ms 10 --max-attempts 3 --db t.db --run r2
[ "$(fake_count fake /v1/chat/completions)" = 3 ] ||
    fail "expected 3 attempts for a plain 500, saw $(fake_count fake /v1/chat/completions)"
