# The Lost in the Middle templates render byte-identical to the paper's own prompting code
# (nelson-liu/lost-in-the-middle, src/lost_in_the_middle/prompting.py): the expected strings
# are the ones its tests/test_prompting.py asserts (tests/data/litm/prompting/SOURCE.md).
# Each prompt is built at exactly its own token count (no filler needed), depth placing the
# gold where the paper's test has it, and compared byte for byte, chat and --completions, with
# two tokenizers. The KV case has two hard negatives around the gold, whose order is the
# repeat's seeded shuffle: some seed of 0..7 must give the paper's order (key1 before key3).
. "$TESTS/cli/lib/lib.sh"
P="$TESTS/data/litm/prompting"

# render TEMPLATE SET DEPTH EXPECTED TOKENIZER SEEDS: one of SEEDS renders EXPECTED exactly
render() {
    local tpl=$1 set=$2 depth=$3 want=$4 tk=$5 seeds=$6 len mode seed ok
    len=$("$DIPMAP" tokenize -t "$tk" "$want" | awk '{print $1; exit}')
    [ "$len" -gt 0 ] || fail "no token count for $want"
    for mode in chat completions; do
        local extra=()
        [ $mode = completions ] && extra=(--completions)
        ok=0
        for seed in $seeds; do
            expect_code 0 "$DIPMAP" show-prompt --dataset "$set" --template "$tpl" --length "$len" \
                --depth "$depth" --tokenizer "$tk" --seed "$seed" --json "${extra[@]}"
            if python3 - out "$want" "$mode" <<'PY'; then ok=1; break; fi
import json, sys
o = json.load(open(sys.argv[1]))
want = open(sys.argv[2], encoding="utf-8").read()
if sys.argv[3] == "chat":
    assert [m["role"] for m in o["messages"]] == ["user"], o["messages"]
    got = o["messages"][0]["content"]
else:
    got = o["prompt"]
if got != want:
    print("got:  %r\nwant: %r" % (got, want), file=sys.stderr)
    sys.exit(1)
PY
        done
        [ $ok = 1 ] || fail "$tpl ($mode, $tk): not the paper's prompt"
    done
}

for tk in cl100k_base "$TESTS/data/tokenizer/llama2/tokenizer.json.gz"; do
    render litm-qa "$P/qa.jsonl" 100 "$P/qa.expected" "$tk" 0
    render litm-qa-ordered-randomly "$P/qa.jsonl" 100 "$P/qa-ordered-randomly.expected" "$tk" 0
    render litm-qa-query-aware "$P/qa.jsonl" 100 "$P/qa-query-aware.expected" "$tk" 0
    render litm-kv "$P/kv.jsonl" 50 "$P/kv.expected" "$tk" "0 1 2 3 4 5 6 7"
    render litm-kv-query-aware "$P/kv.jsonl" 50 "$P/kv-query-aware.expected" "$tk" "0 1 2 3 4 5 6 7"
done

# the documents are numbered by position: with the gold first it is Document [1]
len=$("$DIPMAP" tokenize -t cl100k_base "$P/qa.expected" | awk '{print $1; exit}')
expect_code 0 "$DIPMAP" show-prompt --dataset "$P/qa.jsonl" --template litm-qa --length "$len" --depth 0
assert_contains out "Document [1](Title: second doc) second doc text
Document [2](Title: first doc) first doc text"

# import litm --kv-question key writes the bare key as the question, as litm-kv needs it
expect_code 0 "$DIPMAP" import litm "$TESTS/data/litm/kv-retrieval-75_keys.head20.jsonl.gz" \
    --kv-question key --kv-negatives 10 --limit 2 --out kv.jsonl --haystack-out kvh.jsonl
python3 - "$TESTS/data/litm/kv-retrieval-75_keys.head20.jsonl.gz" <<'PY' || fail "--kv-question key"
import gzip, json, sys
src = [json.loads(l) for l in gzip.open(sys.argv[1], "rt")][:2]
got = [json.loads(l) for l in open("kv.jsonl")]
assert [q["question"] for q in got] == [r["key"] for r in src], got[0]["question"]
PY
expect_code 0 "$DIPMAP" show-prompt --dataset kv.jsonl --haystack kvh.jsonl --template litm-kv --length 700 --depth 50
key=$(python3 -c 'import json; print(json.loads(open("kv.jsonl").readline())["question"])')
assert_contains out "Key: \"$key\"
Corresponding value:"
expect_code 2 "$DIPMAP" import litm "$TESTS/data/litm/kv-retrieval-75_keys.head20.jsonl.gz" \
    --kv-question word --out x.jsonl
assert_contains err "--kv-question must be sentence or key, not 'word'"
