# Real llama-server, --layout documents,chat,tools,tool-long: the server takes the conversation
# turns and the tool calls (assistant tool_calls, then role "tool" messages with the matching
# tool_call_id) and renders them with the model's own chat template (Qwen3's, from the GGUF:
# <tool_call> and <tool_response> blocks); every trial is answered (HTTP 200); the tokens the
# server adds per turn pair are measured on whole message lists (/apply-template + /tokenize),
# with the "\n" after each tool result that a result's last characters merge with ("." + "\n" is
# one token, "d" + "\n" two: without it the server counted 1-5 tokens more than the run for 15
# of the 18 tools and 2 of the 18 tool-long prompts here); every prompt's usage.prompt_tokens
# equals the run's count, none is above its length and at least 95% are exactly the length as
# the server counts them.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/llama/lib.sh"
llama_require
llama_tokenizer
llama_golden 3 31
llama_start srv -c 8192 -np 1
llama_run lay --lengths 1k,3k --depths 0,50,100 --max-tokens 8 --store-prompts \
    --layout documents,chat,tools,tool-long
[ "$LLAMA_RC" = 0 ] || { cat run-lay.err >&2; fail "run exited $LLAMA_RC"; }
grep -q "turn overhead: [0-9]* tokens per chat turn pair (whole message lists counted by the server)" run-lay.err ||
    { cat run-lay.err >&2; fail "no chat turn overhead measured"; }
# Qwen3's tool results end "\n</tool_response>": a result ending in "." merges with the "\n"
assert_contains run-lay.err 'tokens per tools turn pair (whole message lists counted by the server; a turn'"'"'s end merges with the "\n" the template puts after it)'
[ "$(q t.db "select json_extract(settings_json, '$.\"turn-suffix\".tools') = char(10) from runs where name = 'lay'")" = 1 ] ||
    fail "the turn suffix is not kept with the run"
n=$(q t.db "select count(*) from trials")
[ "$n" = 72 ] || fail "$n trials, not 72"
[ "$(q t.db "select count(*) from trials where http_status <> 200 or usage_prompt_tokens is null")" = 0 ] ||
    fail "the server refused prompts: $(q t.db "select axes, http_status, error from trials where http_status <> 200 limit 3")"
[ "$(q t.db "select count(*) from trials where usage_prompt_tokens <> realized_length")" = 0 ] ||
    fail "dipmap's count differs from the server's: $(q t.db "select axes, length, realized_length, usage_prompt_tokens from trials where usage_prompt_tokens <> realized_length limit 5")"
[ "$(q t.db "select count(*) from trials where usage_prompt_tokens > length")" = 0 ] ||
    fail "prompts above their length"
[ "$(q t.db "select count(*) from (select axes, length from trials group by axes, length
    having sum(usage_prompt_tokens = length) * 100 < count(*) * 95)")" = 0 ] ||
    fail "not exact lengths: $(q t.db "select axes, length, sum(usage_prompt_tokens = length), count(*) from trials group by axes, length")"
# what the model saw: the stored messages rendered by the server's template
q t.db "select t.axes, t.question_id, p.text from trials t join prompts p on p.sha256 = t.prompt_sha256
    where t.length = 1024 and t.depth_bp = 5000 and t.axes <> 'layout=documents' order by t.axes" >/dev/null
python3 - "$LLAMA_URL" <<'PY' || fail "the server did not render the layouts as claimed"
import json, sqlite3, sys, urllib.request
url = sys.argv[1]
gold = {json.loads(l)["id"]: json.loads(l)["gold"][0]["text"] for l in open("golden.jsonl")}
db = sqlite3.connect("t.db")
rows = db.execute("select t.axes, t.question_id, p.text from trials t join prompts p"
                  " on p.sha256 = t.prompt_sha256 where t.length = 1024 and t.depth_bp = 5000"
                  " and t.axes <> 'layout=documents'").fetchall()
assert len(rows) == 9, len(rows)
for axes, qid, text in rows:
    msgs = json.loads(text)
    req = urllib.request.Request(url + "/apply-template", json.dumps({"messages": msgs}).encode(),
                                 {"Content-Type": "application/json"})
    prompt = json.load(urllib.request.urlopen(req))["prompt"]
    g = gold[qid]
    if axes == "layout=chat":
        turns = prompt.count("<|im_start|>user") + prompt.count("<|im_start|>assistant")
        assert turns == len(msgs) - 1 + 1, (turns, len(msgs))  # every message, plus the generation prompt
        assert "<tool_response>" not in prompt
    else:
        # each call rendered as a <tool_call> of the assistant, each result as a <tool_response>
        calls = sum(1 for m in msgs if m.get("tool_calls"))
        assert prompt.count("<tool_call>") == calls, (axes, prompt.count("<tool_call>"), calls)
        assert prompt.count("<tool_response>") == calls, (axes, prompt.count("<tool_response>"))
        assert '"name": "read_document"' in prompt, axes
        at = prompt.index(g)
        assert prompt.rfind("<tool_response>", 0, at) > prompt.rfind("</tool_response>", 0, at), \
            ("the gold is not inside a tool response", axes)
    assert prompt.count(g) == 1, (axes, qid)
PY
