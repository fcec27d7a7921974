# Fatal answers stop the run at once, not retried: 429 insufficient_quota exits 3 (infra),
# 400 unsupported_parameter exits 2 (config) with the server's message; one request each. (A
# refused budget field is switched once when the auto rule chose it, cli/856; given by hand it
# is fatal like the rest.)
# (--template-overhead 0: the fake server adds no tokens, and a probe request would shift its script)
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
. "$TESTS/servers/fake.sh"
make_kv 2
start_fake fake "{\"/v1/models\":[$(models_json m)],\"/v1/chat/completions\":[{\"status\":429,\"json\":{\"error\":{\"message\":\"You exceeded your current quota, please check your plan and billing details.\",\"type\":\"insufficient_quota\",\"param\":null,\"code\":\"insufficient_quota\"}}}]}"
ARGS=(--endpoint "$FAKE_URL" --template-overhead 0 --model m --dataset golden.jsonl --haystack hay.jsonl
    --template "$REPO/prompts/kv.txt" --scorer kv --progress none --lengths 1k --depths 0,100
    --concurrency 1 --retry-base-ms 10 --db t.db)
expect_code 3 "$DIPMAP" run "${ARGS[@]}" --run quota
assert_contains err "exceeded your current quota"
[ "$(fake_count fake /v1/chat/completions)" = 1 ] || fail "quota error was retried: $(fake_count fake /v1/chat/completions) requests"

fake_script fake "{\"/v1/models\":[$(models_json m)],\"/v1/chat/completions\":[{\"status\":400,\"json\":{\"error\":{\"message\":\"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.\",\"type\":\"invalid_request_error\",\"param\":\"max_tokens\",\"code\":\"unsupported_parameter\"}}}]}"
expect_code 2 "$DIPMAP" run "${ARGS[@]}" --run param --max-tokens-field max_tokens
assert_contains err "Use 'max_completion_tokens' instead"
[ "$(fake_count fake /v1/chat/completions)" = 1 ] || fail "unsupported parameter was retried"
fake_script fake "{\"/v1/models\":[$(models_json m)],\"/v1/chat/completions\":[{\"status\":400,\"json\":{\"error\":{\"message\":\"Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.\",\"type\":\"invalid_request_error\",\"param\":\"temperature\",\"code\":\"unsupported_value\"}}}]}"
expect_code 2 "$DIPMAP" run "${ARGS[@]}" --run param2
assert_contains err "does not support 0 with this model"
[ "$(fake_count fake /v1/chat/completions)" = 1 ] || fail "unsupported value was retried"
[ "$(q t.db "pragma integrity_check")" = ok ] || fail "store corrupted"
