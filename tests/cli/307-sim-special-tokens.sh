# serve-sim counts a tokenizer.json's special-token strings as the servers of those models do
# (vLLM, llama.cpp: one special token each), the same as dipmap's own default for tokenizer.json:
# usage.prompt_tokens and vLLM-style /tokenize with messages used to encode them as plain text.
. "$TESTS/cli/lib/lib.sh"
SIM_TOKENIZER=$REPO/tests/data/tokenizer/qwen3/tokenizer.json.gz
. "$TESTS/cli/lib/sim-lib.sh"

printf 'before <|endoftext|> after <|im_start|> end' >text.txt
parse_n=$("$DIPMAP" tokenize --tokenizer "$SIM_TOKENIZER" text.txt | awk '{print $1}')
plain_n=$("$DIPMAP" tokenize --tokenizer "$SIM_TOKENIZER" --special plain text.txt | awk '{print $1}')
[ -n "$parse_n" ] && [ "$plain_n" -gt "$parse_n" ] || fail "counts: parse $parse_n, plain $plain_n"

start_sim q --tokenize-api vllm --template-overhead 0
pylib - "$SIM_PORT" "$parse_n" <<'PY' || exit 1
import sys, simclient as sc
from simclient import check
port, want = int(sys.argv[1]), int(sys.argv[2])
text = open("text.txt").read()
msgs = [{"role": "user", "content": text}]
r = sc.post(port, "/tokenize", {"messages": msgs, "add_generation_prompt": True})
check(r.status == 200 and r.json["count"] == want, "vLLM /tokenize messages: %r, want %d" % (r.json, want))
r = sc.post(port, "/v1/chat/completions", {"messages": msgs, "max_tokens": 1})
check(r.status == 200 and r.json["usage"]["prompt_tokens"] == want,
      "usage.prompt_tokens %r, want %d" % (r.json.get("usage"), want))
PY
exit 0
