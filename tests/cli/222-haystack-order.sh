# --haystack-order coherent,shuffled: both values hold the same haystack chunks (one run of
# consecutive eligible chunks from a seeded start), coherent in file order, shuffled in the
# repeat's seeded order; lengths as usual; the report has the axis with both values paired.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
zcat "$REPO/datasets/nq-open.jsonl.gz" | head -n 20 >nq.jsonl
start_sim sim --dataset nq.jsonl
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" --model dipmap-sim --dataset nq.jsonl \
    --haystack "$REPO/datasets/nq-haystack.jsonl.gz" --lengths 2k --depths 0,50,100 --repeats 2 \
    --haystack-order coherent,shuffled --progress none --db t.db --store-prompts --run h
[ "$(q t.db "select count(*) from trials")" = 240 ] || fail "not 240 trials"
python3 - "$REPO" <<'PY' || fail "the haystack order is not as claimed"
import json, sqlite3, sys, gzip
repo = sys.argv[1]
hay = [json.loads(l) for l in gzip.open(repo + "/datasets/nq-haystack.jsonl.gz", "rt")]
first = {}  # a whole document as the qa template renders it -> its first file index
for i, h in enumerate(hay):
    first.setdefault("(Title: %s) %s" % (h.get("title", ""), h["text"]), i)
gold = {}
for l in open("nq.jsonl"):
    o = json.loads(l)
    gold[o["id"]] = [g["text"] for g in o["gold"]]
db = sqlite3.connect("t.db")
rows = db.execute("select t.question_id, t.depth_bp, t.repeat, t.axes, p.text from trials t"
                  " join prompts p on p.sha256 = t.prompt_sha256").fetchall()
seen = {}
for qid, depth, rep, axes, text in rows:
    # haystack chunks in prompt order, by their file index (the gold chunk left out)
    pos = sorted((text.find(k), i) for k, i in first.items() if k in text)
    order = [i for _, i in pos if not any(hay[i]["text"][:150] in g for g in gold[qid])]
    assert len(order) > 5, (qid, len(order))
    seen.setdefault((qid, depth, rep), {})[axes] = order
    if axes == "haystack-order=coherent":
        # file order: one run from a seeded start, wrapping at most once at the file's end
        assert sum(b < a for a, b in zip(order, order[1:])) <= 1, (qid, depth, rep, order)
n_diff = 0
for key, v in seen.items():
    c, s = v["haystack-order=coherent"], v["haystack-order=shuffled"]
    assert set(c) == set(s), key          # the set of chunks is unchanged
    n_diff += c != s
assert n_diff >= len(seen) * 0.9, n_diff   # and shuffled is not in file order
PY
expect_code 0 "$DIPMAP" report h --db t.db --out rep --format json
python3 -c '
import json
a = [a for a in json.load(open("rep/summary.json"))["axes"] if a["paired"]][0]
assert a["name"] == "haystack-order" and [v["value"] for v in a["values"]] == ["coherent", "shuffled"]
assert a["effects"][0]["pairs"] == 120, a["effects"]
' || fail "the report has no haystack-order axis"
