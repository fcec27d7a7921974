# --layout documents,chat: the haystack as earlier conversation turns, paired with the documents
# layout. Against serve-sim with a ChatML template whose markers are special tokens (the qwen3
# tokenizer, as a real server's), the run measures the server's tokens per turn pair on whole
# message lists, and every prompt's server count (usage.prompt_tokens) equals the run's count;
# at least 95% are exactly the length, none above. Chat prompts alternate user and assistant from
# a user turn to an assistant turn, the question is the final user message, the gold sits inside
# one earlier turn; across depths only the gold moves (same roles, same chunks in the same
# order), and the chat prompt's chunks are the documents prompt's (in its order, the last one or
# two dropped for the turns' tokens). The report recovers serve-sim's planted chat=0.15 drop
# (chat vs documents: -15 pp) inside its interval.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
TK=$REPO/tests/data/tokenizer/qwen3/tokenizer.json.gz
start_sim sim --dataset "$REPO/datasets/needle.jsonl" --tokenizer "$TK" --chat-template chatml \
    --model dipmap-sim:chat=0.15,corr=0.9
args=(--endpoint "$SIM_URL" --model dipmap-sim --haystack "$REPO/datasets/nq-haystack.jsonl.gz"
    --dataset "$REPO/datasets/needle.jsonl" --tokenizer "$TK" --depths 0:100:25
    --progress none --db t.db --store-prompts)
expect_code 0 "$DIPMAP" run "${args[@]}" --lengths 1k,2k --layout documents,chat --run c
assert_contains err "turn overhead: 10 tokens per chat turn pair (whole message lists counted by the server)"
[ "$(q t.db "select count(*) from trials")" = 720 ] || fail "not 720 trials"
[ "$(q t.db "select count(*) from trials where usage_prompt_tokens <> realized_length")" = 0 ] ||
    fail "the server counts a prompt differently from the run"
[ "$(q t.db "select count(*) from trials where realized_length > length")" = 0 ] ||
    fail "a prompt is over its length"
[ "$(q t.db "select count(*) from (select axes, length from trials group by axes, length
    having sum(realized_length = length) * 100 < count(*) * 95)")" = 0 ] || fail "not exact lengths"
python3 - "$REPO" <<'PY' || fail "chat prompts are not the conversation claimed"
import json, sqlite3, sys, re
repo = sys.argv[1]
qs = {}
for l in open(repo + "/datasets/needle.jsonl"):
    o = json.loads(l)
    qs[o["id"]] = o
db = sqlite3.connect("t.db")
rows = db.execute("select t.question_id, t.length, t.depth_bp, t.axes, p.text from trials t"
                  " join prompts p on p.sha256 = t.prompt_sha256").fetchall()
assert len(rows) == 720, len(rows)
title = re.compile(r"Document \[\d+\] \(Title: ([^)]*)\) (.{0,40})")
docs, chats = {}, {}
for qid, length, depth, axes, text in rows:
    gold = qs[qid]["gold"][0]["text"]
    if axes == "layout=documents":
        sysm, user = text.split("\0")
        chunks = [m for m in title.findall(user) if not gold.startswith(m[1])]
        docs[(qid, length, depth)] = chunks
        continue
    assert axes == "layout=chat", axes
    msgs = json.loads(text)
    roles = [m["role"] for m in msgs]
    assert roles[0] == "system" and roles[-1] == "user", roles
    turns = roles[1:-1]
    assert len(turns) >= 2 and len(turns) % 2 == 0, roles
    assert turns == ["user", "assistant"] * (len(turns) // 2), roles
    assert qs[qid]["question"] in msgs[-1]["content"], qid
    assert "Document [" not in msgs[-1]["content"], "documents left in the final turn"
    where = [i for i, m in enumerate(msgs) if gold in m["content"]]
    assert len(where) == 1 and 1 <= where[0] < len(msgs) - 1, (qid, where)
    chunks = [m for t in msgs[1:-1] for m in title.findall(t["content"]) if not gold.startswith(m[1])]
    chats[(qid, length, depth)] = (roles, chunks, where[0])
for (qid, length, depth), (roles, chunks, g) in chats.items():
    ref_roles, ref_chunks, _ = chats[(qid, length, 0)]
    assert roles == ref_roles, (qid, length, depth)
    # only the gold moves (the cut chunk's last words may differ: compare titles)
    assert [c[0] for c in chunks] == [c[0] for c in ref_chunks], (qid, length, depth)
    d = [c[0] for c in docs[(qid, length, depth)]]
    c = [c[0] for c in chunks]
    assert c == d[:len(c)] or all(t in d for t in c) and len(d) - len(c) <= 3, (qid, length, c, d)
    it = iter(d)
    assert all(t in it for t in c), ("not in the documents' order", qid, length)
firsts = {depth: g for (qid, length, depth), (r, c, g) in chats.items() if qid == "needle-0001" and length == 2048}
assert firsts[0] == 1 and firsts[10000] == max(firsts.values()) > 2, firsts
PY
expect_code 0 "$DIPMAP" report c --db t.db --out rep --format md,json
assert_contains rep/summary.md "layout chat vs documents: -"
python3 - <<'PY' || fail "the planted effect is not recovered"
import json
a = [a for a in json.load(open("rep/summary.json"))["axes"] if a["paired"]][0]
assert a["name"] == "layout" and [v["value"] for v in a["values"]] == ["documents", "chat"], a
e = a["effects"][0]
d = e["difference"]
assert e["versus"] == "documents" and e["pairs"] == 360, e
assert d["lo"] <= -0.15 <= d["hi"] and d["hi"] < 0, e
PY
# show-prompt prints the turns the run sends
expect_code 0 "$DIPMAP" show-prompt --dataset "$REPO/datasets/needle.jsonl" --tokenizer "$TK" \
    --haystack "$REPO/datasets/nq-haystack.jsonl.gz" --length 1024 --depth 50 --axes layout=chat \
    --turn-overhead 10 --template-overhead 13 --question needle-0001
assert_contains out "=== user (turn 1 of "
assert_contains out ", gold ==="
expect_code 0 "$DIPMAP" show-prompt --dataset "$REPO/datasets/needle.jsonl" --tokenizer "$TK" \
    --haystack "$REPO/datasets/nq-haystack.jsonl.gz" --length 1024 --depth 50 --axes layout=chat \
    --turn-overhead 10 --template-overhead 13 --question needle-0001 --json
python3 -c 'import json,sys; m=json.load(open("out"))["messages"]; assert m[1]["role"]=="user" and m[2]["role"]=="assistant" and m[-1]["role"]=="user"' ||
    fail "show-prompt --json has no conversation"
# bad input: an unknown layout, and a layout --completions cannot send
expect_code 2 "$DIPMAP" run "${args[@]}" --lengths 1k --layout chat,forum --run x
assert_contains err "--layout: unknown value 'forum' (one of documents, chat, tools, tool-long)"
expect_code 2 "$DIPMAP" run "${args[@]}" --lengths 1k --layout chat --completions --run x
assert_contains err "--layout chat needs chat requests"
