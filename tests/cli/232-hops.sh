# --hops 2: two-hop chains. `gen hops` writes questions whose answer needs needle A ("The locker
# of X is in room R.", the first gold chunk) and needle B ("The door code of room R is C.", the
# second), with hard-negative pairs of other people and rooms. run --hops 2 sweeps needle A's
# depth (--depths) and needle B's (--depths-b, default --depths) independently: every stored
# prompt holds each needle once, B before A exactly when depth B < depth A (at equal depths A
# first), and between the depth pairs of one question only the needles move. serve-sim plants
# reversed=0.3 (B read before A): against the same server without it (same seed: the same draws)
# the model's p is lower by exactly 0.3 in the prompts with B first and unchanged in the others,
# and the report's "by hop distance and order" rows put B-before-A below A-before-B with
# intervals apart at every distance (they overlap without the effect). summary.json and
# summary.md carry per length the depth A x depth B table. Bad input: --hops 3, --depths-b
# without --hops, a golden set whose question has one gold chunk (file:line).
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
expect_code 0 "$DIPMAP" gen hops --n 30 --seed 3 --out hops.jsonl
python3 - <<'PY' || fail "gen hops wrote no two-hop chains"
import json
qs = [json.loads(l) for l in open("hops.jsonl")]
assert len(qs) == 30
for q in qs:
    a, b = q["gold"]
    room = a["value"]
    assert a["text"].startswith("The locker of ") and a["text"].endswith("is in room %s." % room), a
    assert b["text"] == "The door code of room %s is %s." % (room, b["value"]), b
    assert q["answers"] == [b["value"]] and b["value"] not in q["question"] and room not in q["question"]
    assert len(q["distractors"]) == 8, len(q["distractors"])
PY
hay="$REPO/datasets/nq-haystack.jsonl.gz"
args=(--model m --dataset hops.jsonl --haystack "$hay" --lengths 1k,2k --depths 0,50,100 --hops 2
    --progress none --store-prompts)
start_sim base --dataset hops.jsonl --model m:edge=0.95,dip=0.2,seed=7
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" "${args[@]}" --run base --db t.db
start_sim rev --dataset hops.jsonl --model m:edge=0.95,dip=0.2,seed=7,reversed=0.3
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" "${args[@]}" --run rev --db t.db
[ "$(n_trials rev)" = 540 ] ||
    fail "not 30 questions x 2 lengths x 3 depths A x 3 depths B"
python3 - <<'PY' || fail "the prompts do not hold the two needles as claimed (above)"
import json, re, sqlite3
qs = {json.loads(l)["id"]: json.loads(l) for l in open("hops.jsonl")}
db = sqlite3.connect("t.db")
rows = db.execute("select t.question_id, t.length, t.depth_bp, t.axes, p.text from trials t"
                  " join runs r on r.id = t.run_id join prompts p on p.sha256 = t.prompt_sha256"
                  " where r.name = 'rev'").fetchall()
assert len(rows) == 540, len(rows)
rest = {}
for qid, length, depth, axes, text in rows:
    m = re.fullmatch(r"depth-b=([0-9.]+);hops=2", axes)
    assert m, axes
    db_ = float(m.group(1))
    a, b = (g["text"] for g in qs[qid]["gold"])
    assert text.count(a) == 1 and text.count(b) == 1, (qid, axes)
    ia, ib = text.index(a), text.index(b)
    assert (ib < ia) == (db_ < depth / 100), (qid, length, depth, axes)
    # everything but the needles: the same at every depth pair of the question and length
    key = (qid, length)
    others = re.sub(r"Document \[\d+\]", "", text.replace(a, "").replace(b, ""))
    others = re.sub(r"\(Title: \) *", "", others)
    titles = re.findall(r"\(Title: ([^)]+)\)", others)
    rest.setdefault(key, set()).add(tuple(titles))
moved = [k for k, v in rest.items() if len(v) != 1]
assert not moved, ("more than the needles moved", moved[:3])
PY
python3 - <<'PY' || fail "serve-sim's planted reversed=0.3 is not where B comes first (above)"
import json
def load(path):
    out = {}
    for o in map(json.loads, open(path)):
        if o.get("p", -1) >= 0:
            out.setdefault((o["question_id"], o["T"], o["x"], o["reversed"]), []).append(o["p"])
    return out
base, rev = load("base.log"), load("rev.log")
assert sorted(base) == sorted(rev) and sum(map(len, rev.values())) == 540, (len(base), len(rev))
n = 0
for k in base:
    for pb, pr in zip(sorted(base[k]), sorted(rev[k])):
        assert abs(pb - pr - (0.3 if k[3] else 0)) < 1e-9, (k, pb, pr)
        n += k[3]
assert n == 180, n  # depth B < depth A: 3 of the 9 pairs
PY
expect_code 0 "$DIPMAP" report rev --db t.db --out rep --format md,json
assert_contains rep/summary.md "## Two-hop chains"
assert_contains rep/summary.md "### Length 1024: depth A x depth B"
assert_contains rep/summary.md "### Length 2048: depth A x depth B"
assert_contains rep/summary.md "| 50 pp | B before A |"
expect_code 0 "$DIPMAP" report base --db t.db --out rep0 --format json --no-plots
python3 - <<'PY' || fail "the report does not show the order effect (above)"
import json
def groups(path):
    h = json.load(open(path))["hops"]
    cells = h["cells"]
    assert len(cells) == 18 and {c["length"] for c in cells} == {1024, 2048}, len(cells)
    assert all(c["valid"] == 30 for c in cells), cells
    return {(g["distance"], g["order"]): g for g in h["by_distance"]}
rev, base = groups("rep/summary.json"), groups("rep0/summary.json")
assert sorted(rev) == [(0, "same"), (0.5, "a-first"), (0.5, "b-first"), (1, "a-first"), (1, "b-first")], sorted(rev)
for d in (0.5, 1):
    a, b = rev[(d, "a-first")], rev[(d, "b-first")]
    assert b["interval95"][1] < a["interval95"][0], (d, a, b)
    a, b = base[(d, "a-first")], base[(d, "b-first")]
    assert b["interval95"][1] >= a["interval95"][0], ("apart without the effect", d, a, b)
PY
# bad input
expect_code 2 "$DIPMAP" run --endpoint "$SIM_URL" "${args[@]}" --hops 3 --run x --db t.db
assert_contains err "--hops: '3' is not 2"
expect_code 2 "$DIPMAP" run --endpoint "$SIM_URL" --model m --dataset hops.jsonl --haystack "$hay" \
    --lengths 1k --depths-b 0,100 --run x --db t.db
assert_contains err "--depths-b needs --hops 2"
"$DIPMAP" gen needle --n 3 --out one.jsonl >/dev/null || fail "gen needle"
expect_code 2 "$DIPMAP" run --endpoint "$SIM_URL" --model m --dataset one.jsonl --haystack "$hay" \
    --lengths 1k --hops 2 --run x --db t.db
assert_contains err "one.jsonl:1: \"gold\": question needle-0001 has 1 gold chunk; --hops 2 needs two"
