# What goes on the wire: Bearer key, extra headers, no Expect header, explicit sampling
# parameters and n=1; with -v the exchange is logged on stderr with the key redacted, and the
# key appears nowhere in the output or the store.
# (--template-overhead 0: the fake server adds no tokens, and a probe request would shift its script)
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
. "$TESTS/servers/fake.sh"
make_kv 1
start_fake fake "{\"/v1/models\":[$(models_json m)],\"/v1/chat/completions\":[$(chat_ok 'x')]}"
export CLI_TEST_KEY=sk-cli-secret-4242
expect_code 0 "$DIPMAP" run --endpoint "$FAKE_URL/v1/" --model m --template-overhead 0 --dataset golden.jsonl \
    --haystack hay.jsonl --template "$REPO/prompts/kv.txt" --scorer kv --progress none \
    --lengths 1k --depths 0 --api-key-env CLI_TEST_KEY -H 'X-Team: dipmap' -v \
    --temperature 0.5 --top-p 0.9 --seed 77 --max-tokens 64 --db t.db --run r
assert_contains err "Authorization: <redacted>"
assert_contains err "POST /v1/chat/completions"
assert_not_contains err sk-cli-secret-4242
assert_not_contains out sk-cli-secret-4242
if grep -q sk-cli-secret-4242 t.db*; then fail "the key is in the store"; fi
python3 - fake.log <<'PY' || fail "request shape"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
gen = [r for r in rows if r["path"] == "/v1/chat/completions"]
assert len(gen) == 1, len(gen)
h, b = gen[0]["headers"], gen[0]["body"]
assert h["authorization"] == "Bearer sk-cli-secret-4242", h
assert h["x-team"] == "dipmap", h
assert "expect" not in h, h
assert h["content-type"] == "application/json", h
assert b["model"] == "m" and b["n"] == 1 and b["stream"] is False, b
assert b["temperature"] == 0.5 and b["top_p"] == 0.9 and b["seed"] == 77, b
assert b["max_tokens"] == 64 and "max_completion_tokens" not in b, b
assert [m["role"] for m in b["messages"]][-1] == "user", b["messages"]
# the preflight asked for the model list with the key too
models = [r for r in rows if r["path"] == "/v1/models"]
assert models and models[0]["headers"]["authorization"] == "Bearer sk-cli-secret-4242"
PY
