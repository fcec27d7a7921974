# gen assoc writes low-overlap needles from datasets/associations.tsv (NoLiMa-style): per needle
# "<Name> lives next to <landmark>." two questions, assoc-NNNN asking who has been to the
# landmark's country (no word of the question in the needle) and assoc-NNNN-literal asking who
# lives next to the landmark, with the same hard negatives (other names next to the landmarks of
# other countries); seeded; dipmap's own overlap measure (the report's, serve-sim's) is lower for
# every associative question than for its literal twin, and the gold's BM25 rank among its
# prompt's documents (the report's bm25-rank grouping) is 1 for every literal question and lower
# for most associative ones; a bad table is refused naming file, line and field, and nothing is
# written.
. "$TESTS/cli/lib/lib.sh"
tsv="$REPO/datasets/associations.tsv"
expect_code 0 "$DIPMAP" gen assoc --n 12 --seed 3 --associations "$tsv" --out a.jsonl
expect_code 0 "$DIPMAP" gen assoc --n 12 --seed 3 --associations "$tsv" --out b.jsonl
cmp a.jsonl b.jsonl || fail "same seed must give the same set"
(cd "$REPO" && "$DIPMAP" gen assoc --n 12 --seed 3) >c.jsonl || fail "default table from the repository root"
cmp a.jsonl c.jsonl || fail "--associations defaults to datasets/associations.tsv"
python3 - "$tsv" <<'PY' || fail "assoc shape (above)"
import json, re, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1], encoding="utf-8") if l.strip() and not l.startswith("#")]
country = {r[0]: r[1] for r in rows}
qs = [json.loads(l) for l in open("a.jsonl")]
assert len(qs) == 24 and len({q["id"] for q in qs}) == 24
stop = {"which", "character", "has", "been", "to", "the", "lives", "next", "a", "of", "in"}
words = lambda t: {w for w in re.findall(r"[a-z]+", t.lower())} - stop
for a, lit in zip(qs[0::2], qs[1::2]):
    assert lit["id"] == a["id"] + "-literal", (a["id"], lit["id"])
    g = a["gold"][0]["text"]
    assert g == lit["gold"][0]["text"] and a["answers"] == lit["answers"]
    m = re.fullmatch(r"(\w+) lives next to (.+)\.", g)
    name, landmark = m.group(1), m.group(2)
    assert a["answers"] == [name] and landmark in country, g
    assert a["question"] == "Which character has been to %s?" % country[landmark], a["question"]
    assert lit["question"] == "Which character lives next to %s?" % landmark
    assert not (words(a["question"]) & words(g)), (a["question"], g)       # no shared word
    assert words(landmark) <= words(lit["question"])
    assert a["distractors"] == lit["distractors"] and len(a["distractors"]) == 4
    for d in a["distractors"]:
        m2 = re.fullmatch(r"(\w+) lives next to (.+)\.", d["text"])
        assert m2.group(1) == d["value"] != name and country[m2.group(2)] != country[landmark], d
PY
# dipmap's overlap measure (prompt/overlap.c, via serve-sim's log): associative < literal
. "$TESTS/cli/lib/run-lib.sh"
start_sim sim --dataset a.jsonl --model m:edge=1,dip=0
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" --model m --dataset a.jsonl --template needle \
    --haystack "$REPO/datasets/nq-haystack.jsonl.gz" --lengths 1k --depths 50 --progress none \
    --run r --db t.db
python3 - <<'PY' || fail "overlap: associative questions must overlap less than literal ones (above)"
import json
o = {}
for l in open("sim.log"):
    j = json.loads(l)
    if "overlap" in j:
        o[j["question_id"]] = j["overlap"]
assert len(o) == 24, len(o)
for q, v in o.items():
    if not q.endswith("-literal"):
        assert v < o[q + "-literal"], (q, v, o[q + "-literal"])
print("associative", sum(v for q, v in o.items() if not q.endswith("-literal")) / 12,
      "literal", sum(v for q, v in o.items() if q.endswith("-literal")) / 12)
PY
# the gold's BM25 rank among each prompt's documents (README "Lexical overlap"): every literal
# question's gold ranks first; most associative ones do not (BM25 keeps "the": an associative
# question about "the Netherlands" can still lift a gold "... next to the X"); the report's
# bm25-rank grouping counts them so
expect_code 0 "$DIPMAP" report r --db t.db --out rep --format json --no-plots
expect_code 0 "$DIPMAP" export r --db t.db --format jsonl --out t.jsonl
python3 - <<'PY' || fail "bm25-rank grouping (above)"
import json
rank = {e["question_id"]: e["gold_bm25_rank"] for e in map(json.loads, open("t.jsonl"))}
assert len(rank) == 24, rank
assert all(r == 1 for q, r in rank.items() if q.endswith("-literal")), rank
assert sum(r > 1 for q, r in rank.items() if not q.endswith("-literal")) >= 8, rank
a = {x["name"]: x for x in json.load(open("rep/summary.json"))["axes"]}
v = {x["value"]: x["questions"] for x in a["bm25-rank"]["values"]}
label = lambda r: "1" if r == 1 else "2-3" if r <= 3 else "4+"
for k in v:
    assert v[k] == sum(label(r) == k for r in rank.values()), (v, rank)
assert sum(v.values()) == 24, v
PY
# bad tables: file, line and field named; nothing written
printf '# c\nthe Atomium\tBelgium\tAtomium\nthe Kiasma museum\t\tKiasma\n' >bad1.tsv
expect_code 2 "$DIPMAP" gen assoc --associations bad1.tsv --out x.jsonl
assert_contains err "bad1.tsv:3: \"country\": expected landmark<TAB>country<TAB>source"
printf 'the Atomium\tBelgium\tAtomium\nManneken Pis\tBelgium\tManneken Pis\n' >bad2.tsv
expect_code 2 "$DIPMAP" gen assoc --associations bad2.tsv --out x.jsonl
assert_contains err "bad2.tsv:2: \"country\": 'Belgium' is already the country of 'the Atomium'"
expect_code 2 "$DIPMAP" gen assoc --associations "$tsv" --negatives 40 --out x.jsonl
assert_contains err "--negatives 40 needs 40 other rows"
expect_code 2 "$DIPMAP" gen assoc --associations nosuch.tsv --out x.jsonl
[ ! -e x.jsonl ] || fail "a refused gen assoc wrote x.jsonl"
