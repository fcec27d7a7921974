# a gzip-compressed golden set loads like the plain one; a .txt haystack is split
# into paragraphs, and the paragraph naming the answer is never filler
source "$TESTS/cli/lib/lib.sh"
cp "$TESTS/data/datasets/valid.jsonl" "$TESTS/data/datasets/hay.txt" .
gzip -c valid.jsonl >valid.jsonl.gz
for set in valid.jsonl valid.jsonl.gz; do
    expect_code 0 "$DIPMAP" show-prompt --dataset $set --haystack hay.txt --question q1 --length 140 --depth 100
    assert_contains out "Paris is the capital of France."
    assert_contains out "The river flows through the valley"
    assert_contains out "1 excluded: they contain an answer"
    assert_contains out "# haystack hay.txt: 3 chunks (1 exact duplicates dropped)"
    assert_not_contains out "Many towns lie on the coast"
    grep -v '^#' out >"prompt-$set"
done
cmp prompt-valid.jsonl prompt-valid.jsonl.gz || fail "gzip and plain sets give different prompts"
# asking for more than the material holds is an input error, not a short prompt
expect_code 2 "$DIPMAP" show-prompt --dataset valid.jsonl --haystack hay.txt --question q1 --length 1000
assert_contains err "question q1: not enough distractor material for 1000 tokens (1 hard negative, 2 eligible filler chunks)"
