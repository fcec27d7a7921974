# Key-value haystacks are exact too: the last pair is cut (its key kept whole when it can, its
# value shortened, or the key cut and given an empty value) and closed again, so the prompt is
# still a valid JSON object of string members and show-prompt prints the target and the realized
# length, equal, for every tokenizer kind (they used to come within a pair below: the pairs were
# never cut).
. "$TESTS/cli/lib/lib.sh"
KV="$REPO/datasets/kv.jsonl"
HAY="$REPO/datasets/kv-haystack.jsonl.gz"
for tk in cl100k_base o200k_base "$TESTS/data/tokenizer/llama2/tokenizer.json.gz" \
    "$TESTS/data/tokenizer/qwen3/tokenizer.json.gz"; do
    for len in 777 3000; do
        for depth in 0 40 100; do
            expect_code 0 "$DIPMAP" show-prompt --dataset "$KV" --haystack "$HAY" --template kv \
                --question kv-0007 --length "$len" --depth "$depth" --tokenizer "$tk"
            assert_contains out "# length: target $len, realized $len = content $len + template overhead 0"
            expect_code 0 "$DIPMAP" show-prompt --dataset "$KV" --haystack "$HAY" --template kv \
                --question kv-0007 --length "$len" --depth "$depth" --tokenizer "$tk" --json
            python3 - out <<'PY' || fail "$tk $len $depth: the JSON object of the prompt (above)"
import json, re, sys
user = json.load(open(sys.argv[1]))["messages"][-1]["content"]
obj = user[user.index("{\n"):user.index("\n}") + 2]
members = json.loads(obj)  # a valid JSON object
uuid = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
short = [(k, v) for k, v in members.items() if not (uuid.match(k) and uuid.match(v))]
print(len(members), "members,", len(short), "cut:", short)
sys.exit(0 if len(short) == 1 and all(isinstance(v, str) for v in members.values()) else 1)
PY
        done
    done
done
