# serve-sim --ctx (400 context_length_exceeded; limits advertised in /v1/models, /props,
# /tokenize), --shift-ctx (keeps the last N tokens, reports the smaller usage.prompt_tokens,
# a gold chunk shifted out is never found), --reasoning P (empty content, reasoning_content,
# finish_reason length, at rate ~P), --api-key-env (401 without the key; /health stays open).
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/sim-lib.sh"

pylib -c 'import simclient; simclient.make_dataset("ds.jsonl", 400)'

# --ctx
start_sim ctx --dataset ds.jsonl --model m:edge=1,dip=0 --ctx 2k
pylib - "$SIM_PORT" <<'EOF' || exit 1
import sys, simclient as sc
from simclient import check
port = int(sys.argv[1])
r = sc.get(port, "/v1/models")
check(r.json["data"][0]["max_model_len"] == 2048, "max_model_len: %r" % r.json)
check(sc.get(port, "/props").json["default_generation_settings"]["n_ctx"] == 2048, "props n_ctx")
check(sc.post(port, "/tokenize", {"prompt": "x"}).json["max_model_len"] == 2048, "tokenize max_model_len")
small = sc.prompt_at(1, 900, 0.5, sc.rng(1))
big = sc.prompt_at(2, 2500, 0.5, sc.rng(2))
r = sc.chat(port, small, model="m", max_tokens=100)
check(r.status == 200 and sc.content_of(r) == "PASS-1-OK", "fits: %r" % r)
pt = r.json["usage"]["prompt_tokens"]
r = sc.chat(port, big, model="m")
e = r.json["error"]
check(r.status == 400 and e["code"] == "context_length_exceeded" and e["type"] == "invalid_request_error"
      and "maximum context length is 2048 tokens" in e["message"], "over-long: %r" % r)
# the prompt fits but prompt + max_tokens does not
r = sc.chat(port, small, model="m", max_tokens=2048 - pt + 1)
check(r.status == 400 and r.json["error"]["code"] == "context_length_exceeded"
      and "%d in the messages" % pt in r.json["error"]["message"], "prompt+max_tokens: %r" % r)
r = sc.chat(port, small, model="m", max_tokens=2048 - pt)
check(r.status == 200, "exactly fits: %r" % r)
EOF
stop_sim "$SIM_PID"

# --shift-ctx: llama.cpp-style silent truncation to the last N tokens
start_sim shift --dataset ds.jsonl --model m:edge=1,dip=0 --shift-ctx 1000 --log shift.jsonl
pylib - "$SIM_PORT" <<'EOF' || exit 1
import sys, simclient as sc
from simclient import check
port = int(sys.argv[1])
for i in range(10, 40):
    head = sc.chat(port, sc.prompt_at(i, 3000, 0.0, sc.rng(i), negative=False), model="m")
    tail = sc.chat(port, sc.prompt_at(i, 3000, 1.0, sc.rng(i), negative=False), model="m")
    for r in (head, tail):
        check(r.status == 200 and 990 <= r.json["usage"]["prompt_tokens"] <= 1000,
              "shifted usage.prompt_tokens: %r" % r.json["usage"])
    check(sc.content_of(head) == "I don't know", "gold shifted out, still answered: %r" % head.json)
    check(sc.content_of(tail) == "PASS-%d-OK" % i, "gold kept in the tail: %r" % tail.json)
short = sc.chat(port, sc.prompt_at(5, 300, 0.5, sc.rng(5)), model="m")
check(short.json["usage"]["prompt_tokens"] < 1000 and sc.content_of(short) == "PASS-5-OK", "short: %r" % short.json)
log = [l for l in sc.read_log("shift.jsonl") if l["route"] == "/v1/chat/completions"]
check(all(l["sent_tokens"] > 3000 and l["T"] <= 1000 for l in log[:60]), "log sent_tokens/T: %r" % log[0])
check(sc.get(port, "/props").json["default_generation_settings"]["n_ctx"] == 1000, "props n_ctx = shift ctx")
EOF
stop_sim "$SIM_PID"

# --reasoning
start_sim reason --dataset ds.jsonl --model m:edge=1,dip=0 --reasoning 0.3
pylib - "$SIM_PORT" <<'EOF' || exit 1
import sys, simclient as sc
from simclient import check
port = int(sys.argv[1])
N = 300
def one(i):
    return sc.chat(port, sc.prompt_at(i, 200, 0.5, sc.rng(i)), model="m", max_tokens=64)
res = sc.parallel(one, range(N))
empty = 0
for i, r in enumerate(res):
    msg, c = r.json["choices"][0]["message"], r.json["choices"][0]
    if msg["content"] == "":
        empty += 1
        check(c["finish_reason"] == "length" and msg["reasoning_content"]
              and r.json["usage"]["completion_tokens"] == 64
              and r.json["usage"]["completion_tokens_details"]["reasoning_tokens"] == 64, "reasoning: %r" % r.json)
    else:
        check(msg["content"] == "PASS-%d-OK" % i and c["finish_reason"] == "stop"
              and "reasoning_content" not in msg, "normal: %r" % r.json)
ok, mean, sd = sc.within(empty, [0.3] * N)
print("reasoning-only answers: %d of %d (expected %.0f +- %.1f)" % (empty, N, mean, sd))
check(ok, "reasoning rate off: %d of %d" % (empty, N))
# the same prompt gets the same treatment (a model property, not a transient fault)
check([sc.content_of(one(i)) for i in range(20)] == [sc.content_of(r) for r in res[:20]], "not deterministic")
EOF
stop_sim "$SIM_PID"

# --api-key-env (the key never needs to be on the command line)
export SIM_TEST_KEY=s3cret-key
start_sim auth --model m --api-key-env SIM_TEST_KEY
pylib - "$SIM_PORT" <<'EOF' || exit 1
import sys, simclient as sc
from simclient import check
port = int(sys.argv[1])
r = sc.chat(port, "hello", model="m")
check(r.status == 401 and r.json["error"]["code"] == "invalid_api_key", "no key: %r" % r)
r = sc.request(port, "POST", "/v1/chat/completions", {"model": "m", "messages": [{"role": "user", "content": "hi"}]},
               headers={"Authorization": "Bearer wrong"})
check(r.status == 401, "wrong key: %r" % r)
r = sc.request(port, "POST", "/v1/chat/completions", {"model": "m", "messages": [{"role": "user", "content": "hi"}]},
               headers={"Authorization": "Bearer s3cret-key"})
check(r.status == 200 and sc.content_of(r) == "I don't know", "right key: %r" % r)
r = sc.request(port, "POST", "/tokenize", {"prompt": "hi"}, headers={"api-key": "s3cret-key"})
check(r.status == 200, "azure-style api-key header: %r" % r)
check(sc.get(port, "/v1/models").status == 401, "models need the key")
check(sc.get(port, "/health").status == 200, "health is open")
EOF
stop_sim "$SIM_PID"
assert_not_contains auth.err "s3cret-key"
expect_code 2 env -u SIM_TEST_KEY "$DIPMAP" serve-sim --port 0 --api-key-env SIM_TEST_KEY
assert_contains err "SIM_TEST_KEY"
exit 0
