# --completions sends {"prompt", "max_tokens"} to /v1/completions; a reasoning model name gets
# max_completion_tokens under --max-tokens-field auto, and --max-tokens-field max_tokens wins.
# (--template-overhead 0: the fake server adds no tokens, and a probe request would shift its script)
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
. "$TESTS/servers/fake.sh"
make_kv 1
start_fake fake "{\"/v1/models\":[$(models_json m o3-mini)],\"/v1/chat/completions\":[$(chat_ok 'x')],\"/v1/completions\":[{\"json\":{\"choices\":[{\"index\":0,\"text\":\" x\",\"finish_reason\":\"stop\"}]}}]}"
ARGS=(--endpoint "$FAKE_URL" --template-overhead 0 --dataset golden.jsonl --haystack hay.jsonl --template "$REPO/prompts/kv.txt"
    --scorer kv --progress none --lengths 1k --depths 0 --max-tokens 40 --db t.db)
expect_code 0 "$DIPMAP" run "${ARGS[@]}" --model m --completions --run legacy
expect_code 0 "$DIPMAP" run "${ARGS[@]}" --model o3-mini --run reasoning
expect_code 0 "$DIPMAP" run "${ARGS[@]}" --model o3-mini --max-tokens-field max_tokens --run forced
python3 - fake.log <<'PY' || fail "request bodies"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if "completions" in json.loads(l)["path"]]
assert len(rows) == 3, len(rows)
legacy, reasoning, forced = rows
assert legacy["path"] == "/v1/completions", legacy["path"]
b = legacy["body"]
assert isinstance(b["prompt"], str) and "messages" not in b and b["max_tokens"] == 40, b
b = reasoning["body"]
assert reasoning["path"] == "/v1/chat/completions"
assert b["max_completion_tokens"] == 40 and "max_tokens" not in b, b
b = forced["body"]
assert b["max_tokens"] == 40 and "max_completion_tokens" not in b, b
PY
