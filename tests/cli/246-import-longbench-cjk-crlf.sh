# import longbench-v2 cuts text written without spaces and reads CRLF line ends (issue 43 item
# 7): a Chinese context was one 31,500-token chunk (no spaces: never cut) and a needle trial
# then had "not enough distractor material"; CRLF text left a trailing "\r" in its chunks. Now a
# piece over 3,000 bytes is cut at sentence ends of any script (。！？), every chunk is at most
# 3,000 bytes, nothing is lost, no chunk holds a "\r", and show-prompt fits an 8k trial in it.
. "$TESTS/cli/lib/lib.sh"
python3 - <<'PY'
import json
zh = "".join("第%d章，港口的账簿记载了那一年所有进出的船只和它们的货物。" % i for i in range(1200))
zh += "最后一句没有句号"
en = "\r\n".join(["The harbour ledger lists every ship.", "It names each cargo.", "", "A second paragraph.\r"])
with open("lb.jsonl", "w", encoding="utf-8") as f:
    f.write(json.dumps({"_id": "zh1", "domain": "x", "question": "q", "choice_A": "a", "choice_B": "b",
                        "choice_C": "c", "choice_D": "d", "answer": "A", "context": zh}, ensure_ascii=False) + "\n")
    f.write(json.dumps({"_id": "en1", "domain": "x", "question": "q", "choice_A": "a", "choice_B": "b",
                        "choice_C": "c", "choice_D": "d", "answer": "A", "context": en}) + "\n")
PY
expect_code 0 "$DIPMAP" import longbench-v2 lb.jsonl --out h.jsonl
python3 - <<'PY' || fail "chunks (above)"
import json
recs = {r["_id"]: r for r in map(json.loads, open("lb.jsonl", encoding="utf-8"))}
chunks = [json.loads(l) for l in open("h.jsonl", encoding="utf-8")]
zh = [c["text"] for c in chunks if c["id"].startswith("lb2-zh1#")]
assert len(zh) > 20, len(zh)
assert all(len(t.encode()) <= 3000 for t in zh), max(len(t.encode()) for t in zh)
assert "".join(zh) == recs["zh1"]["context"], "text lost or added"
assert all(t.endswith("。") for t in zh[:-1]), [t[-3:] for t in zh[:3]]
en = [c["text"] for c in chunks if c["id"].startswith("lb2-en1#")]
assert en == ["The harbour ledger lists every ship.\nIt names each cargo.", "A second paragraph."], en
assert not any("\r" in c["text"] for c in chunks)
PY
printf '%s\n' '{"id": "n1", "question": "What is the vault code?", "answers": ["KX-77"], "gold": [{"text": "The vault code is KX-77."}]}' >set.jsonl
expect_code 0 "$DIPMAP" show-prompt --dataset set.jsonl --haystack h.jsonl --length 8k --depth 50
assert_contains out "The vault code is KX-77."
exit 0
