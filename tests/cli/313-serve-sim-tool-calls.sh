# serve-sim keeps the OpenAI tool-call rules (the API answers 400 otherwise), on the chat route
# and on the /tokenize and /apply-template message lists: "tool_calls" only in an assistant
# message, each call {"id", "type": "function", "function": {"name", "arguments": JSON text}},
# each answered by a following "tool" message whose tool_call_id names it before any other
# message, and no "tool" message without a call. The messages `run --layout tools,tool-long`
# sends (show-prompt --json) are accepted; the same with one tool_call_id changed, or a call's
# arguments not JSON, are refused naming the message.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/sim-lib.sh"
start_sim sim --dataset "$REPO/datasets/needle.jsonl" --chat-template chatml
for layout in tools tool-long; do
    expect_code 0 "$DIPMAP" show-prompt --dataset "$REPO/datasets/needle.jsonl" \
        --haystack "$REPO/datasets/nq-haystack.jsonl.gz" --length 1024 --depth 50 \
        --axes layout=$layout --turn-overhead 10 --template-overhead 13 --question needle-0001 --json
    mv out $layout.json
done
pylib - "$SIM_PORT" <<'EOF' || exit 1
import copy, json, sys, simclient as sc
from simclient import check
port = int(sys.argv[1])

def call(i, args='{"document": "0001"}'):
    return {"id": "call_%d" % i, "type": "function",
            "function": {"name": "read_document", "arguments": args}}

def asst(*calls):
    return {"role": "assistant", "content": "", "tool_calls": list(calls)}

def tool(i, text="result"):
    return {"role": "tool", "tool_call_id": "call_%d" % i, "content": text}

user = {"role": "user", "content": "Which document?"}
ok = {
    "dipmap tools": json.load(open("tools.json"))["messages"],
    "dipmap tool-long": json.load(open("tool-long.json"))["messages"],
    "two calls, answered in either order": [asst(call(1), call(2)), tool(2), tool(1), user],
    "null tool_calls": [{"role": "assistant", "content": "hi", "tool_calls": None}, user],
}
bad = {
    "a tool message without a call": ([user, tool(1), user], "messages[1]: a message with role 'tool' must answer"),
    "a tool_call_id naming no call": ([asst(call(1)), tool(2), user], "'tool_call_id' 'call_2' names none"),
    "no tool_call_id": ([asst(call(1)), {"role": "tool", "content": "x"}, user], "('tool_call_id' missing)"),
    "a call not answered before the next message": ([asst(call(1), call(2)), tool(1), user], "messages[2]: the tool calls before it must each be answered by a 'tool' message first (not answered: call_2)"),
    "a call never answered": ([user, asst(call(1))], "the tool call call_1 is not answered"),
    "tool_calls in a user message": ([{"role": "user", "content": "x", "tool_calls": [call(1)]}, tool(1), user], "messages[0]: 'tool_calls' must be a non-empty array in an assistant message"),
    "empty tool_calls": ([asst(), user], "'tool_calls' must be a non-empty array"),
    "arguments not JSON": ([asst(call(1, "{document: 1")), tool(1), user], "messages[0].tool_calls[0].function: 'arguments' must be a string holding JSON"),
    "a call without type function": ([asst(dict(call(1), type="code")), tool(1), user], "messages[0].tool_calls[0]: 'type' must be 'function'"),
    "a call without a name": ([asst({"id": "call_1", "type": "function", "function": {"arguments": "{}"}}), tool(1), user], "'name' must be a non-empty string"),
}
# dipmap's own tools prompt, broken: one tool_call_id changed
broken = copy.deepcopy(ok["dipmap tools"])
t = next(m for m in broken if m["role"] == "tool")
t["tool_call_id"] = "call_9999"
bad["dipmap tools with a tool_call_id changed"] = (broken, "'tool_call_id' 'call_9999' names none")
check(sum(1 for m in ok["dipmap tools"] if m["role"] == "tool") >= 2, "tools: few tool results")
check(sum(1 for m in ok["dipmap tool-long"] if m["role"] == "tool") == 1, "tool-long: not one result")

for name, msgs in ok.items():
    r = sc.post(port, "/v1/chat/completions", {"messages": msgs, "temperature": 0})
    check(r.status == 200, "%s: refused: %r" % (name, r.json))
    for route in ("/tokenize", "/apply-template"):
        r = sc.post(port, route, {"messages": msgs})
        check(r.status == 200, "%s: %s refused: %r" % (name, route, r.json))
for name, (msgs, why) in bad.items():
    for route in ("/v1/chat/completions", "/tokenize", "/apply-template"):
        r = sc.post(port, route, {"messages": msgs, "temperature": 0})
        check(r.status == 400 and r.json["error"]["type"] == "invalid_request_error", "%s: %s: %r" % (name, route, r))
        check(why in r.json["error"]["message"], "%s: %s: %r" % (name, route, r.json["error"]["message"]))
EOF
exit 0
