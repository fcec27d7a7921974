# Server delay hints are honoured (gaps measured in the server's request log): Retry-After as an
# HTTP-date, and the larger of x-ratelimit-reset-requests / -tokens given as durations ("1.2s").
# (--template-overhead 0: the fake server adds no tokens, and a probe request would shift its script)
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
. "$TESTS/servers/fake.sh"
make_kv 1
start_fake fake "{\"/v1/models\":[$(models_json m)],\"/v1/chat/completions\":[
 {\"status\":429,\"retry_after_date\":2,\"json\":{\"error\":{\"message\":\"Rate limit reached\",\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}},
 {\"status\":503,\"headers\":{\"x-ratelimit-reset-requests\":\"500ms\",\"x-ratelimit-reset-tokens\":\"1.2s\"},\"body\":\"\"},
 $(chat_ok 'x')]}"
expect_code 0 "$DIPMAP" run --endpoint "$FAKE_URL" --model m --template-overhead 0 --dataset golden.jsonl \
    --haystack hay.jsonl --template "$REPO/prompts/kv.txt" --scorer kv --progress none \
    --lengths 1k --depths 0 --concurrency 1 --retry-base-ms 10 --db t.db --run r
assert_contains out "run r: complete"
python3 - fake.log <<'PY' || fail "delay hints not honoured"
import json, sys
t = [json.loads(l)["t"] for l in open(sys.argv[1]) if "/completions" in l]
assert len(t) == 3, "expected 3 requests, saw %d" % len(t)
g1, g2 = t[1] - t[0], t[2] - t[1]
print("gaps %.3f %.3f" % (g1, g2))
# an HTTP-date 2 s ahead, with 1-second resolution: at least 1 s
assert g1 >= 1.0, "Retry-After date: retried after %.3f s" % g1
assert g2 >= 1.2, "x-ratelimit-reset-tokens 1.2s: retried after %.3f s" % g2
PY
