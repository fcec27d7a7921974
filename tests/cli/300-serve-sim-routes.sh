# serve-sim: every route answers in the vLLM / llama.cpp / OpenAI shapes (models, chat,
# completions, both /tokenize shapes, detokenize, props, health), errors have OpenAI's
# error object, --port 0 prints the port first, and --log writes one line per request.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/sim-lib.sh"

pylib -c 'import simclient; simclient.make_dataset("ds.jsonl", 20, answer=lambda i: "PASS-%d-OK" % i if i != 7 else "a very long answer " * 10)'
start_sim sim --dataset ds.jsonl --model base:edge=1,dip=0 --model cand:edge=0.9,dip=0.3,seed=4 --log log.jsonl
[ "$(wc -l <sim.out)" = 1 ] || fail "stdout should hold only the port line"
assert_contains sim.err "listening on $SIM_URL"

pylib - "$SIM_PORT" <<'EOF' || exit 1
import sys, simclient as sc
from simclient import check
port = int(sys.argv[1])
n = 0  # requests sent, to compare with the log

r = sc.get(port, "/health"); n += 1
check(r.status == 200 and r.json == {"status": "ok"}, "health: %r" % r)

r = sc.get(port, "/v1/models"); n += 1
check(r.status == 200 and r.json["object"] == "list", "models: %r" % r)
ids = [m["id"] for m in r.json["data"]]
check(ids == ["base", "cand"], "model ids %r" % ids)
check(all(m["object"] == "model" and "max_model_len" not in m for m in r.json["data"]),
      "no max_model_len without --ctx: %r" % r.json)

# chat: correct answer (edge=1, dip=0 means P=1), all response fields
p = sc.prompt_at(3, 300, 0.5, sc.rng(1))
r = sc.chat(port, p, model="base", system="Answer from the documents."); n += 1
check(r.status == 200, "chat: %r" % r)
j = r.json
check(j["object"] == "chat.completion" and j["id"].startswith("chatcmpl-") and j["model"] == "base"
      and isinstance(j["created"], int), "chat fields: %r" % j)
c = j["choices"][0]
check(c["index"] == 0 and c["message"]["role"] == "assistant" and c["finish_reason"] == "stop",
      "chat choice: %r" % c)
check(c["message"]["content"] == "PASS-3-OK", "chat answer: %r" % c)
u = j["usage"]
check(u["total_tokens"] == u["prompt_tokens"] + u["completion_tokens"] and u["completion_tokens"] > 0,
      "usage: %r" % u)

# /tokenize (vLLM, messages) counts exactly what usage.prompt_tokens counts
msgs = [{"role": "system", "content": "Answer from the documents."}, {"role": "user", "content": p}]
t = sc.post(port, "/tokenize", {"model": "base", "messages": msgs}); n += 1
check(t.status == 200 and t.json["count"] == u["prompt_tokens"] == len(t.json["tokens"]),
      "tokenize messages %r vs usage %r" % (t.json and t.json.get("count"), u))
check(t.json["max_model_len"] > 0 and t.json["token_strs"] is None, "tokenize fields %r" % t.json.keys())

# /tokenize (vLLM, prompt) with token strings
t = sc.post(port, "/tokenize", {"prompt": "hello world", "return_token_strs": True}); n += 1
check(t.status == 200 and t.json["count"] == 2 and t.json["tokens"] == [15339, 1917]
      and t.json["token_strs"] == ["hello", " world"], "tokenize prompt: %r" % t)

# /tokenize (llama.cpp, content) -> {"tokens": [...]} only; with_pieces -> [{id, piece}]
t = sc.post(port, "/tokenize", {"content": "hello world"}); n += 1
check(t.status == 200 and t.json == {"tokens": [15339, 1917]}, "tokenize content: %r" % t)
t = sc.post(port, "/tokenize", {"content": "hello world", "with_pieces": True}); n += 1
check(t.json == {"tokens": [{"id": 15339, "piece": "hello"}, {"id": 1917, "piece": " world"}]},
      "with_pieces: %r" % t)
t = sc.post(port, "/detokenize", {"tokens": [15339, 1917]}); n += 1
check(t.status == 200 and t.json["prompt"] == "hello world" and t.json["content"] == "hello world",
      "detokenize: %r" % t)

# completions: string, one-element array, token ids; model omitted = the first model
r = sc.post(port, "/v1/completions", {"model": "base", "prompt": p, "max_tokens": 50}); n += 1
check(r.status == 200 and r.json["object"] == "text_completion" and r.json["id"].startswith("cmpl-"),
      "completions: %r" % r)
check(r.json["choices"][0]["text"] == "PASS-3-OK" and r.json["choices"][0]["finish_reason"] == "stop",
      "completion answer %r" % r.json)
ids = sc.post(port, "/tokenize", {"prompt": p}).json["tokens"]; n += 1
r2 = sc.post(port, "/v1/completions", {"prompt": ids, "max_tokens": 50}); n += 1
check(r2.status == 200 and r2.json["model"] == "base" and r2.json["choices"][0]["text"] == "PASS-3-OK"
      and r2.json["usage"]["prompt_tokens"] == r.json["usage"]["prompt_tokens"], "token-id prompt: %r" % r2)
r2 = sc.post(port, "/v1/completions", {"model": "base", "prompt": [p], "max_tokens": 50}); n += 1
check(r2.status == 200 and r2.json["choices"][0]["text"] == "PASS-3-OK", "array prompt: %r" % r2)

# legacy completions default max_tokens is 16: a long answer is cut, finish_reason length
p7 = sc.prompt_at(7, 200, 0.2, sc.rng(2))
r = sc.post(port, "/v1/completions", {"model": "base", "prompt": p7}); n += 1
c = r.json["choices"][0]
check(c["finish_reason"] == "length" and r.json["usage"]["completion_tokens"] == 16
      and "a very long answer a very long" in c["text"], "default max_tokens: %r" % r.json)
r = sc.chat(port, p7, model="base", max_completion_tokens=3); n += 1
check(r.json["choices"][0]["finish_reason"] == "length" and r.json["usage"]["completion_tokens"] == 3,
      "max_completion_tokens: %r" % r.json)

# a prompt asking no known question
r = sc.chat(port, "What is the capital of France?", model="cand"); n += 1
check(r.status == 200 and sc.content_of(r) == "I don't know", "unrecognised: %r" % r)

# errors: OpenAI's error object (type invalid_request_error, param, code) for an unknown model,
# 400s, unknown route, wrong method
r = sc.chat(port, p, model="gpt-x"); n += 1
check(r.status == 404 and r.json == {"error": {"message":
      "The model `gpt-x` does not exist or you do not have access to it.",
      "type": "invalid_request_error", "param": None, "code": "model_not_found"}}, "unknown model: %r" % r)
r = sc.post(port, "/tokenize", {"model": "gpt-x", "prompt": "a"}); n += 1
check(r.status == 404 and r.json["error"]["code"] == "model_not_found", "tokenize unknown model: %r" % r)
r = sc.request(port, "POST", "/v1/chat/completions", raw=b"{not json"); n += 1
check(r.status == 400 and r.json["error"]["type"] == "invalid_request_error" and r.json["error"]["code"] is None,
      "bad json: %r" % r)
r = sc.post(port, "/v1/chat/completions", {"model": "base"}); n += 1
check(r.status == 400 and "messages" in r.json["error"]["message"], "no messages: %r" % r)
r = sc.chat(port, p, model="base", stream=True); n += 1
check(r.status == 400 and "stream" in r.json["error"]["message"], "stream: %r" % r)
r = sc.chat(port, p, model="base", max_tokens=-3); n += 1
check(r.status == 400 and r.json["error"]["param"] == "max_tokens", "bad max_tokens: %r" % r)
r = sc.get(port, "/v2/nothing"); n += 1
check(r.status == 404 and "error" in r.json, "unknown route: %r" % r)
r = sc.get(port, "/v1/chat/completions"); n += 1
check(r.status == 405, "GET on a POST route: %r" % r)

# llama.cpp /props: no n_ctx without --ctx
r = sc.get(port, "/props"); n += 1
check(r.status == 200 and "n_ctx" not in r.json["default_generation_settings"]
      and r.json["build_info"].startswith("dipmap-sim"), "props: %r" % r)

log = sc.read_log("log.jsonl")
check(len(log) == n, "log has %d lines, %d requests were sent" % (len(log), n))
gen = [l for l in log if l["route"] == "/v1/chat/completions" and l["status"] == 200]
check(gen[0]["question_id"] == "q0003" and gen[0]["gold"] and gen[0]["outcome"] == "correct"
      and 0.3 < gen[0]["x"] < 0.7 and gen[0]["T"] == u["prompt_tokens"] and gen[0]["fault"] == "none",
      "log line: %r" % gen[0])
check(any(l["outcome"] == "unrecognised" and l["question_id"] is None for l in log), "unrecognised logged")
cut = [l for l in log if l["question_id"] == "q0007"]
check(len(cut) == 2 and all(l["outcome"] == "correct" and l["finish_reason"] == "length" for l in cut),
      "an answer cut by max_tokens is logged as correct with finish_reason length: %r" % cut)
EOF
stop_sim "$SIM_PID"
assert_contains sim.err "stopped (SIGTERM)"
exit 0
