# Every trial stores the gold's Okapi BM25 rank for the question among its prompt's documents
# (the gold, its hard negatives and the haystack filler it holds whole) and how
# many documents were ranked: on gen assoc needles with the NQ haystack, every trial has a rank,
# the same at every depth of a (question, length, repeat), equal to a Python Okapi BM25 (k1 1.2,
# b 0.75, dipmap's term rule) over the documents of the stored prompt; the associative questions
# rank their gold lower than their literal twins on average; export carries the columns; the
# report groups trials by rank (bm25-rank: 1, 2-3, 4+) and shows each question's overlap and
# rank in report.html's per-question matrix, summary.md's per-question table and summary.json's
# "lexical".
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
expect_code 0 "$DIPMAP" gen assoc --n 8 --seed 5 --associations "$REPO/datasets/associations.tsv" \
    --out a.jsonl
zcat "$REPO/datasets/nq-haystack.jsonl.gz" >hay.jsonl
start_sim sim --dataset a.jsonl --model m:edge=1,dip=0
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" --model m --dataset a.jsonl --template needle \
    --haystack hay.jsonl --lengths 1k,2k --depths 0,50,100 --repeats 2 --progress none \
    --store-prompts --run r --db t.db
expect_code 0 "$DIPMAP" export r --db t.db --format jsonl --out t.jsonl
python3 - <<'PY' || fail "cannot read the stored prompts"
import json, sqlite3
c = sqlite3.connect("t.db")
c.row_factory = sqlite3.Row
json.dump([dict(r) for r in c.execute(
    "SELECT t.question_id, t.length, t.depth_bp, t.repeat, t.gold_bm25_rank, t.bm25_docs, p.text"
    " FROM trials t JOIN prompts p ON p.sha256 = t.prompt_sha256")], open("rows.json", "w"))
PY
python3 - <<'PY' || fail "stored BM25 ranks (above)"
import json, math, re
qs = {q["id"]: q for q in map(json.loads, open("a.jsonl"))}
hay = [json.loads(l)["text"] for l in open("hay.jsonl")]
whole = set(hay)
for q in qs.values():
    whole.update(c["text"] for c in q["gold"] + q["distractors"])

def terms(s):  # bm25.h: runs of ASCII letters/digits and bytes >= 0x80, ASCII lower-cased
    return [t.lower() for t in re.findall(rb"[A-Za-z0-9\x80-\xff]+", s.encode())]

def fnv(t):  # the term hashes dipmap sorts query terms by (the summation order)
    h = 1469598103934665603
    for c in t:
        h = ((h ^ c) * 1099511628211) & (2**64 - 1)
    return h

def rank(question, docs, gold):
    k1, b = 1.2, 0.75
    d = [terms(x) for x in docs]
    n = len(d)
    avg = sum(map(len, d)) / n
    qt = sorted(set(terms(question)), key=fnv)
    idf = [math.log(1 + (n - df + 0.5) / (df + 0.5))
           for df in (sum(t in x for x in d) for t in qt)]
    def score(x):
        s = 0.0
        for t, w in zip(qt, idf):
            tf = x.count(t)
            if tf:
                s += w * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(x) / avg))
        return s
    g = score(d[gold])
    return 1 + sum(score(x) >= g for i, x in enumerate(d) if i != gold)

rows = json.load(open("rows.json"))
assert len(rows) == 16 * 2 * 3 * 2, len(rows)
groups, by_q = {}, {}
for r in rows:
    q = qs[r["question_id"]]
    block = r["text"].split("<text>\n", 1)[1].rsplit("\n</text>", 1)[0]
    docs = block.split("\n\n")
    gold = docs.index(q["gold"][0]["text"])
    cut = [i for i, x in enumerate(docs) if x not in whole]
    ranked = [x for i, x in enumerate(docs) if i not in cut]
    want = rank(q["question"], ranked, ranked.index(q["gold"][0]["text"]))
    assert r["gold_bm25_rank"] == want and r["bm25_docs"] == len(ranked), \
        (r["question_id"], r["length"], r["depth_bp"], r["gold_bm25_rank"], want,
         r["bm25_docs"], len(ranked))
    groups.setdefault((r["question_id"], r["length"], r["repeat"]), set()).add(r["gold_bm25_rank"])
    by_q.setdefault(r["question_id"], []).append(r["gold_bm25_rank"])
assert all(len(v) == 1 for v in groups.values()), groups
mean = lambda v: sum(v) / len(v)
assoc = [mean(v) for k, v in by_q.items() if not k.endswith("-literal")]
lit = [mean(v) for k, v in by_q.items() if k.endswith("-literal")]
print("mean rank: associative %.1f, literal %.1f" % (mean(assoc), mean(lit)))
assert mean(assoc) > mean(lit) + 1, (assoc, lit)
exp = [json.loads(l) for l in open("t.jsonl")]
assert all(e["gold_bm25_rank"] >= 1 and e["bm25_docs"] >= 2 for e in exp), exp[0]
PY
expect_code 0 "$DIPMAP" report r --db t.db --out rep --format md,html,json --no-plots
assert_contains rep/summary.md "### Axis: bm25-rank"
assert_contains rep/report.html "BM25 rank"
python3 - <<'PY' || fail "report: bm25-rank grouping and per-question lexical table (above)"
import json, re
s = json.load(open("rep/summary.json"))
rows = json.load(open("rows.json"))
a = {x["name"]: x for x in s["axes"]}["bm25-rank"]
label = lambda r: "1" if r == 1 else "2-3" if r <= 3 else "4+"
for v in a["values"]:
    n = sum(label(r["gold_bm25_rank"]) == v["value"] for r in rows)
    assert v["valid"] == n, (v["value"], v["valid"], n)
lex = {x["question"]: x for x in s["lexical"]}
assert len(lex) == 16, len(lex)
for qid, x in lex.items():
    assert 0 <= x["overlap"] <= 1, x
    for rk in x["bm25_rank"]:
        got = [r["gold_bm25_rank"] for r in rows if r["question_id"] == qid and r["length"] == rk["length"]]
        assert rk["min"] == min(got) and rk["max"] == max(got), (qid, rk, got)
    assert len(x["bm25_rank"]) == 2, x
html = open("rep/report.html").read()
for qid, x in lex.items():
    rk = x["bm25_rank"][0]
    cell = "%d / %d" % (rk["min"], rk["documents"])
    assert re.search(r'data-v="%s"[^\n]*?%s' % (re.escape(qid), re.escape(cell)), html), (qid, cell)
md = open("rep/summary.md").read()
assert "| question | overlap | BM25 rank at 1k | BM25 rank at 2k |" in md
for qid, x in lex.items():
    row = "| %s | %.1f%% | %s |" % (qid, 100 * x["overlap"], " | ".join(
        "%d / %d" % (rk["min"], rk["documents"]) for rk in x["bm25_rank"]))
    assert row in md, row
PY
