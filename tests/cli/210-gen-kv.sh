# gen kv: seeded UUID pairs, hard negatives carry their value, optional pair haystack
source "$TESTS/cli/lib/lib.sh"
expect_code 0 "$DIPMAP" gen kv --n 5 --seed 3 --negatives 4 --out kv.jsonl --haystack-out h.jsonl.gz --haystack-size 300
expect_code 0 "$DIPMAP" gen kv --n 5 --seed 3 --negatives 4 --out kv2.jsonl
cmp kv.jsonl kv2.jsonl || fail "same seed must give the same set"
python3 - <<'PY' || fail "kv shape"
import json, gzip, re
u = r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"
qs = [json.loads(l) for l in open("kv.jsonl")]
assert len(qs) == 5
for q in qs:
    assert re.fullmatch(u, q["answers"][0])
    assert len(q["distractors"]) == 4
    for d in q["distractors"]:
        assert re.fullmatch('"%s": "%s"' % (u, u), d["text"]) and d["text"].endswith('"%s"' % d["value"])
h = [json.loads(l) for l in gzip.open("h.jsonl.gz", "rt")]
assert len(h) == 300
PY
expect_code 0 "$DIPMAP" show-prompt --dataset kv.jsonl --haystack h.jsonl.gz --template kv --length 3000 --depth 0
assert_contains out "4 hard negatives"
