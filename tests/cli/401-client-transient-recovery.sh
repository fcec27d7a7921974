# Transient failures are retried until the answer comes: a dropped connection, a 200 whose body
# was cut short (not JSON; a 200 HTML page is not transient and stops the run: test 972), a 502 page, a 200 carrying an error object, 408 and 500. The run completes with every
# trial scored, and the attempts are recorded.
# (--template-overhead 0: the fake server adds no tokens, and a probe request would shift its script)
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
. "$TESTS/servers/fake.sh"
make_kv 2
start_fake fake "{\"/v1/models\":[$(models_json m)],\"/v1/chat/completions\":[
 {\"drop\":true},
 {\"status\":200,\"body\":\"{\\\"id\\\":\\\"c1\\\",\\\"choices\\\":[{\\\"mess\"},
 {\"status\":502,\"body\":\"<html>502 Bad Gateway</html>\",\"headers\":{\"Content-Type\":\"text/html\"}},
 {\"status\":200,\"json\":{\"error\":\"Request failed during generation: Server error\"}},
 {\"status\":408,\"body\":\"\"},
 {\"status\":500,\"json\":{\"error\":{\"message\":\"boom\",\"type\":\"server_error\",\"code\":500}}},
 $(chat_ok 'no idea')]}"
expect_code 0 "$DIPMAP" run --endpoint "$FAKE_URL" --model m --template-overhead 0 --dataset golden.jsonl \
    --haystack hay.jsonl --template "$REPO/prompts/kv.txt" --scorer kv --progress none \
    --lengths 1k --depths 0,100 --concurrency 1 --retry-base-ms 10 --max-attempts 8 \
    --db t.db --run r
assert_contains out "run r: complete"
[ "$(q t.db "select count(*) from trials where outcome in ('correct','wrong')")" = 4 ] ||
    fail "not all trials scored: $(q t.db "select outcome, count(*) from trials group by 1")"
# 6 failures then 4 answers
[ "$(fake_count fake /v1/chat/completions)" = 10 ] || fail "expected 10 requests, saw $(fake_count fake /v1/chat/completions)"
[ "$(q t.db "select sum(attempts) from trials")" = 10 ] || fail "attempts: $(q t.db "select attempts from trials")"
[ "$(q t.db "select max(attempts) from trials")" = 7 ] || fail "attempts: $(q t.db "select attempts from trials")"
