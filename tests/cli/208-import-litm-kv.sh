# import litm converts a key-value file: the gold pair, other pairs of the record as hard
# negatives carrying their (wrong) value, the rest as haystack
source "$TESTS/cli/lib/lib.sh"
kv="$TESTS/data/litm/kv-retrieval-75_keys.head20.jsonl.gz" # the first 20 of 500 records
expect_code 0 "$DIPMAP" import litm "$kv" --out kv.jsonl --haystack-out kvh.jsonl --limit 3 --kv-negatives 30
assert_contains err "import: 3 questions -> kv.jsonl"
[ "$(wc -l <kv.jsonl)" = 3 ] || fail "expected 3 questions"
python3 - <<'PY' || fail "kv set shape"
import json, gzip
src = [json.loads(l) for l in gzip.open(__import__("os").environ["TESTS"] + "/data/litm/kv-retrieval-75_keys.head20.jsonl.gz", "rt")][:3]
out = [json.loads(l) for l in open("kv.jsonl")]
for s, q in zip(src, out):
    assert q["answers"] == [s["value"]], q["answers"]
    assert q["gold"][0]["text"] == '"%s": "%s"' % (s["key"], s["value"])
    assert s["key"] in q["question"]
    assert len(q["distractors"]) == 30
    for d in q["distractors"]:
        assert d["value"] and d["value"] != s["value"] and d["text"].endswith('"%s"' % d["value"])
hay = [json.loads(l) for l in open("kvh.jsonl")]
# --limit limits questions; every record's unused pairs feed the haystack
assert len(hay) == 20 * (75 - 1 - 30), len(hay)
PY
expect_code 0 "$DIPMAP" show-prompt --dataset kv.jsonl --haystack kvh.jsonl --template kv --length 4k --depth 50 --question kv75-0002
assert_contains out "# question kv75-0002, length 4096"
