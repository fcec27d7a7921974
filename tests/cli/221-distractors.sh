# --distractors hard,random,none at the same lengths, paired: hard prompts hold the question's
# own hard negatives (golden set "distractors"), random ones none of them and only haystack
# chunks, none ones no haystack chunk at all (neutral repeated filler), all at the length;
# the report recovers serve-sim's planted hard=0.15 drop (random and none vs hard: +15 pp)
# inside its interval. Without golden distractors, hard ranks the haystack by BM25 similarity to
# the question: its chunks score far above random's, and run warns that no question has any.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
start_sim sim --dataset "$REPO/datasets/needle.jsonl" --model dipmap-sim:hard=0.15
args=(--endpoint "$SIM_URL" --model dipmap-sim --haystack "$REPO/datasets/nq-haystack.jsonl.gz"
    --lengths 1k --depths 0:100:25 --progress none --db t.db --store-prompts)
expect_code 0 "$DIPMAP" run "${args[@]}" --dataset "$REPO/datasets/needle.jsonl" \
    --template needle --distractors hard,random,none --run d
[ "$(q t.db "select count(*) from trials")" = 540 ] || fail "not 540 trials"
[ "$(q t.db "select count(*) from trials where realized_length > 1024")" = 0 ] ||
    fail "a prompt is over 1024 tokens"
# exact in at least 95% of prompts per value (docs/design.md "Counting")
[ "$(q t.db "select count(*) from (select axes from trials group by axes
    having sum(realized_length = 1024) * 100 < count(*) * 95)")" = 0 ] || fail "not exact lengths"
python3 - "$REPO" <<'PY' || fail "prompts do not hold the distractors claimed"
import json, sqlite3, sys, gzip
repo = sys.argv[1]
qs = {}
for l in open(repo + "/datasets/needle.jsonl"):
    o = json.loads(l)
    qs[o["id"]] = [d["text"] for d in o["distractors"]]
hay = [json.loads(l)["text"][:80] for l in gzip.open(repo + "/datasets/nq-haystack.jsonl.gz", "rt")]
db = sqlite3.connect("t.db")
rows = db.execute("select t.question_id, t.axes, p.text from trials t join prompts p"
                  " on p.sha256 = t.prompt_sha256").fetchall()
assert len(rows) == 540, len(rows)
for qid, axes, text in rows:
    v = axes.split("=")[1]
    negs = sum(d in text for d in qs[qid])
    hayhits = sum(h in text for h in hay)
    if v == "hard":
        assert negs == len(qs[qid]), (qid, v, negs)
        assert hayhits > 0, (qid, v)
    elif v == "random":
        assert negs == 0 and hayhits > 0, (qid, v, negs)
    else:
        assert negs == 0 and hayhits == 0, (qid, v, negs, hayhits)
        assert "The grass is green. The sky is blue." in text, qid
PY
expect_code 0 "$DIPMAP" report d --db t.db --out rep --format md,json
assert_contains rep/summary.md "distractors random vs hard: +"
python3 - <<'PY' || fail "the planted effect is not recovered"
import json
a = [a for a in json.load(open("rep/summary.json"))["axes"] if a["paired"]][0]
assert a["name"] == "distractors" and [v["value"] for v in a["values"]] == ["hard", "random", "none"]
for e in a["effects"]:
    d = e["difference"]
    assert e["versus"] == "hard" and e["pairs"] == 180, e
    assert d["lo"] <= 0.15 <= d["hi"] and d["lo"] > 0, e
PY
# BM25 when the golden set has no hard negatives
zcat "$REPO/datasets/nq-open.jsonl.gz" | head -n 20 >nq.jsonl
expect_code 0 "$DIPMAP" run "${args[@]}" --dataset nq.jsonl --distractors hard,random --depths 0 \
    --run b --endpoint "$SIM_URL"
# ... and says so (a set whose "distractors" were lost does not pass for one that has them)
assert_contains err "warning: --distractors hard: no question of nq.jsonl has hard negatives (golden set \"distractors\"): its hard prompts are the haystack ranked by BM25 only"
python3 - "$REPO" <<'PY' || fail "hard is not the BM25 ranking"
import json, sqlite3, sys, gzip, math, re
repo = sys.argv[1]
def terms(s):
    return [t.lower() for t in re.findall(rb"[A-Za-z0-9]+|[\x80-\xff]+", s.encode())]
hay = [json.loads(l) for l in gzip.open(repo + "/datasets/nq-haystack.jsonl.gz", "rt")]
docs = [terms((h.get("title") or "") + " " + h["text"]) for h in hay]
avg = sum(map(len, docs)) / len(docs)
df = {}
for d in docs:
    for t in set(d):
        df[t] = df.get(t, 0) + 1
def bm25(q, d):
    s = 0
    for t in set(terms(q)):
        tf = d.count(t)
        if tf:
            idf = math.log(1 + (len(docs) - df[t] + 0.5) / (df[t] + 0.5))
            s += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * len(d) / avg))
    return s
qs = {json.loads(l)["id"]: json.loads(l)["question"] for l in open("nq.jsonl")}
db = sqlite3.connect("t.db")
rows = db.execute("select t.question_id, t.axes, p.text from trials t join prompts p on"
                  " p.sha256 = t.prompt_sha256 join runs r on r.id = t.run_id where r.name = 'b'"
                  " and t.depth_bp = 0").fetchall()
mean = {"distractors=hard": [], "distractors=random": []}
for qid, axes, text in rows:
    sc = [bm25(qs[qid], docs[i]) for i, h in enumerate(hay) if h["text"][:80] in text]
    mean[axes].append(sum(sc) / len(sc))
h = sum(mean["distractors=hard"]) / len(mean["distractors=hard"])
r = sum(mean["distractors=random"]) / len(mean["distractors=random"])
assert len(mean["distractors=hard"]) == 20 and h > 3 * r, (h, r)
PY
expect_code 2 "$DIPMAP" run "${args[@]}" --dataset nq.jsonl --distractors easy --run c
assert_contains err "--distractors: unknown value 'easy' (one of hard, random, none)"
