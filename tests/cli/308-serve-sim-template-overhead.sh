# serve-sim --template-overhead N and --chat-template chatml: usage.prompt_tokens, vLLM-style
# /tokenize with "messages" and llama.cpp-style /apply-template + /tokenize {"content",
# "add_special"} agree on the count of one request, which is the messages' own tokens plus the
# ChatML markup plus N; --tokenize-api picks which routes exist (vllm, llamacpp, none).
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/sim-lib.sh"

printf 'Be brief.' >sys.txt
printf 'Hello there, what is the capital of France?' >user.txt
sys_n=$("$DIPMAP" tokenize --tokenizer "$SIM_TOKENIZER" sys.txt | awk '{print $1}')
user_n=$("$DIPMAP" tokenize --tokenizer "$SIM_TOKENIZER" user.txt | awk '{print $1}')
# the rendered ChatML text, counted as the simulated server counts it
printf '<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHello there, what is the capital of France?<|im_end|>\n<|im_start|>assistant\n' >chatml.txt
chatml_n=$("$DIPMAP" tokenize --tokenizer "$SIM_TOKENIZER" chatml.txt | awk '{print $1}')
[ -n "$sys_n" ] && [ -n "$user_n" ] && [ -n "$chatml_n" ] || fail "dipmap tokenize gave no counts"

start_sim both --chat-template chatml --template-overhead 3
pylib - "$SIM_PORT" "$sys_n" "$user_n" "$chatml_n" <<'EOF' || exit 1
import sys, simclient as sc
from simclient import check
port, sys_n, user_n, chatml_n = (int(a) for a in sys.argv[1:])
msgs = [{"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Hello there, what is the capital of France?"}]
want = chatml_n + 3
r = sc.post(port, "/v1/chat/completions", {"messages": msgs, "max_tokens": 1})
check(r.status == 200, "chat: %r" % r)
usage = r.json["usage"]["prompt_tokens"]
check(usage == want, "usage.prompt_tokens %d, want chatml %d + 3" % (usage, chatml_n))
check(usage > sys_n + user_n + 3, "the template adds tokens per message")
r = sc.post(port, "/tokenize", {"messages": msgs, "add_generation_prompt": True})
check(r.status == 200 and r.json["count"] == want and len(r.json["tokens"]) == want,
      "vLLM /tokenize messages: %r" % r.json)
r = sc.post(port, "/apply-template", {"messages": msgs})
check(r.status == 200 and r.json["prompt"].startswith("<|im_start|>system\nBe brief.<|im_end|>"),
      "apply-template: %r" % r)
t = sc.post(port, "/tokenize", {"content": r.json["prompt"], "add_special": True,
                                "parse_special": True})
check(len(t.json["tokens"]) == want, "llama.cpp apply-template + tokenize: %r" % t.json)
t = sc.post(port, "/tokenize", {"content": r.json["prompt"]})
check(len(t.json["tokens"]) == chatml_n, "no add_special: no BOS-like tokens")
# completions: the BOS-like overhead only, and the vLLM prompt route with add_special_tokens
r = sc.post(port, "/v1/completions", {"prompt": "Hello there, what is the capital of France?",
                                      "max_tokens": 1})
check(r.json["usage"]["prompt_tokens"] == user_n + 3, "completions usage: %r" % r.json)
r = sc.post(port, "/tokenize", {"prompt": "Hello there, what is the capital of France?"})
check(r.json["count"] == user_n + 3, "prompt with special tokens: %r" % r.json)
r = sc.post(port, "/tokenize", {"prompt": "Hello there, what is the capital of France?",
                                "add_special_tokens": False})
check(r.json["count"] == user_n, "prompt without special tokens: %r" % r.json)
EOF

start_sim vllm --chat-template chatml --tokenize-api vllm
start_sim llama --chat-template chatml --tokenize-api llamacpp
start_sim none --chat-template chatml --tokenize-api none
start_sim plain --template-overhead 2
pylib - "$(head -n1 vllm.out)" "$(head -n1 llama.out)" "$(head -n1 none.out)" "$(head -n1 plain.out)" \
    "$sys_n" "$user_n" <<'EOF' || exit 1
import sys, simclient as sc
from simclient import check
vllm, llama, none, plain, sys_n, user_n = (int(a) for a in sys.argv[1:])
msgs = [{"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Hello there, what is the capital of France?"}]
check(sc.post(vllm, "/apply-template", {"messages": msgs}).status == 404, "vllm: no apply-template")
check(sc.post(vllm, "/tokenize", {"content": "x"}).status == 400, "vllm: no content route")
check(sc.post(llama, "/tokenize", {"messages": msgs}).status == 400, "llamacpp: no messages route")
check(sc.post(llama, "/apply-template", {"messages": msgs}).status == 200, "llamacpp: apply-template")
check(sc.post(none, "/tokenize", {"prompt": "x"}).status == 404, "none: no /tokenize")
check(sc.post(none, "/apply-template", {"messages": msgs}).status == 404, "none: no apply-template")
# no chat template: the BOS-like tokens only
r = sc.post(plain, "/v1/chat/completions", {"messages": msgs, "max_tokens": 1})
check(r.json["usage"]["prompt_tokens"] == sys_n + user_n + 2, "plain usage: %r" % r.json)
check(sc.post(plain, "/apply-template", {"messages": msgs}).status == 404,
      "no chat template: no apply-template")
EOF

expect_code 2 "$DIPMAP" serve-sim --port 0 --chat-template jinja
assert_contains err "--chat-template must be none or chatml"
expect_code 2 "$DIPMAP" serve-sim --port 0 --tokenize-api tgi
assert_contains err "--tokenize-api must be both, vllm, llamacpp or none"
expect_code 2 "$DIPMAP" serve-sim --port 0 --template-overhead -1
assert_contains err "--template-overhead must be in 0..100000"
