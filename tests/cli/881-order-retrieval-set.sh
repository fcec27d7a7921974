# run --experiment order on a retrieval set (tests/data/order/retrieval.jsonl: 12 questions, 8
# ranked chunks from 4 documents each, the gold at known ranks, one missed): recall@k is exactly
# the share of golds ranked within k; --group-by-doc keeps each document's chunks adjacent in
# every prompt; --budget fits every prompt of every policy into the budget by dropping the
# lowest-ranked chunks, the same chunks for every policy of a (question, k); a --k longer than
# a list and a depth run over a list that missed its gold are refused with file:line (exit 2).
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/sim-lib.sh"

set_=$TESTS/data/order/retrieval.jsonl
start_sim sim --dataset "$set_" --model m:edge=0.92,dip=0.37,flat=1
base=("$DIPMAP" run --endpoint "$SIM_URL" --model m --dataset "$set_"
      --experiment order --db t.db --progress none --store-prompts)
expect_code 0 "${base[@]}" --run plain --k 2,4,8
assert_contains out "trials: 180 of 180 done"
expect_code 0 "$DIPMAP" report plain --db t.db --out plain --format json
python3 - <<'PY' || fail "recall@k (above)"
import json
o = json.load(open("plain/summary.json"))["order"]
for c in o["cells"]:
    want = {2: 5 / 12, 4: 9 / 12, 8: 11 / 12}[c["k"]]
    assert abs(c["recall"] - want) < 1e-12, c
PY

expect_code 0 "${base[@]}" --run packed --k 2,4,8 --group-by-doc --budget 700
expect_code 0 "$DIPMAP" export packed --db t.db --format jsonl --out packed.jsonl
python3 - "$set_" <<'PY' || fail "budget and grouping (above)"
import json, sqlite3, sys, collections
items = {}
for line in open(sys.argv[1]):
    j = json.loads(line)
    items[j["id"]] = j["retrieved"]
db = sqlite3.connect("t.db")
prompts = dict(db.execute("SELECT sha256, text FROM prompts"))
sets = collections.defaultdict(dict)
trimmed = 0
for line in open("packed.jsonl"):
    r = json.loads(line)
    ax = dict(kv.split("=") for kv in r["axes"].split(";"))
    assert ax["group"] == "doc", ax
    assert r["realized_length"] <= 700, r["realized_length"]
    text = prompts[r["prompt_sha256"]]
    found = sorted((text.index(c["text"]), rank + 1, c["doc"])
                   for rank, c in enumerate(items[r["question_id"]]) if c["text"] in text)
    ranks = [f[1] for f in found]
    k = int(ax["k"])
    assert max(ranks) <= k and 1 in ranks, (r["question_id"], k, ranks)
    trimmed += len(ranks) < k
    docs = [f[2] for f in found]
    for d in set(docs):   # one document's chunks are adjacent
        idx = [i for i, x in enumerate(docs) if x == d]
        assert idx == list(range(idx[0], idx[0] + len(idx))), (ax, docs)
    sets[(r["question_id"], k)][ax["policy"]] = tuple(sorted(ranks))
assert trimmed >= 12, trimmed   # k=8 does not fit 700 tokens
for key, pol in sets.items():
    assert len(pol) == 5 and len(set(pol.values())) == 1, (key, pol)
PY

expect_code 2 "${base[@]}" --run bad --k 4,9
assert_contains err "retrieval.jsonl:1: \"retrieved\" has 8 chunks, --k 9 needs 9 (the shortest list has 8: every k must be at most that)"
expect_code 2 "$DIPMAP" run --endpoint "$SIM_URL" --model m --dataset "$set_" \
    --db t.db --run depth --lengths 2000 --progress none
assert_contains err "retrieval.jsonl:12: no gold chunk among \"retrieved\""
expect_code 2 "${base[@]}" --run tiny --k 2 --budget 40
assert_contains err "--budget 40 holds no chunk of question tower-01"
expect_code 0 "$DIPMAP" runs --db t.db
assert_not_contains out "bad"
assert_not_contains out "tiny"
