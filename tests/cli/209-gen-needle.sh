# gen needle is seeded (same seed, same bytes; other seed, other set) and every
# needle has hard negatives of the same sentence pattern with other entities/values
source "$TESTS/cli/lib/lib.sh"
expect_code 0 "$DIPMAP" gen needle --n 12 --seed 5 --negatives 3 --out a.jsonl
expect_code 0 "$DIPMAP" gen needle --n 12 --seed 5 --negatives 3 --out b.jsonl.gz
expect_code 0 "$DIPMAP" gen needle --n 12 --seed 6 --negatives 3
cp out c.jsonl
gzip -dc b.jsonl.gz | cmp - a.jsonl || fail "same seed must give the same set"
cmp -s a.jsonl c.jsonl && fail "another seed must give another set"
python3 - <<'PY' || fail "needle shape"
import json, re
qs = [json.loads(l) for l in open("a.jsonl")]
assert len(qs) == 12 and len({q["id"] for q in qs}) == 12
for q in qs:
    gold = q["gold"][0]["text"]; ans = q["answers"][0]
    assert ans in gold and len(q["distractors"]) == 3
    shape = lambda t, v: re.sub(r"\b[A-Z][a-z]+\b", "E", t.replace(v, "V"))
    for d in q["distractors"]:
        assert d["value"] != ans and ans not in d["text"]
        assert shape(d["text"], d["value"]) == shape(gold, ans), (d["text"], gold)
PY
# the set loads and builds a prompt (round trip through the loader)
expect_code 0 "$DIPMAP" show-prompt --dataset a.jsonl --haystack "$REPO/datasets/nq-haystack.jsonl.gz" --template needle --length 2k
assert_contains out "3 hard negatives"
expect_code 2 "$DIPMAP" gen needle --n 0
expect_code 2 "$DIPMAP" gen haystack
