# show-prompt prints the exact request of one trial: realized length within 1%,
# realized depth, gold position, hash; --json gives the chat messages; same inputs
# give the same bytes, another depth moves only the gold document
source "$TESTS/cli/lib/lib.sh"
set_="$REPO/datasets/needle.jsonl"; hay="$REPO/datasets/nq-haystack.jsonl.gz"
expect_code 0 "$DIPMAP" show-prompt --dataset "$set_" --haystack "$hay" --template needle --question needle-0003 --length 8k --depth 0 --seed 9
cp out d0
assert_contains d0 "# question needle-0003, length 8192 (realized "
assert_contains d0 "depth 0.00% (realized 0.00%), repeat 0, seed 9"
assert_contains d0 "# gold: document 1 of "
assert_contains d0 "=== system ==="
real=$(sed -n 's/.*(realized \([0-9]*\), .*/\1/p' d0 | head -1)
[ $(( real > 8110 && real < 8274 )) = 1 ] || fail "realized length $real not within 1% of 8192"
expect_code 0 "$DIPMAP" show-prompt --dataset "$set_" --haystack "$hay" --template needle --question needle-0003 --length 8k --depth 0 --seed 9
cmp out d0 || fail "same inputs must print the same request"
expect_code 0 "$DIPMAP" show-prompt --dataset "$set_" --haystack "$hay" --template needle --question needle-0003 --length 8k --depth 100 --seed 9
cp out d100
assert_contains d100 "depth 100.00% (realized 100.00%)"
gold=$(python3 -c 'import json,sys; [print(q["gold"][0]["text"]) for q in map(json.loads, open(sys.argv[1])) if q["id"]=="needle-0003"]' "$set_")
# without the gold paragraph the two requests are identical (needle documents are unnumbered)
grep -vF -- "$gold" d0 | grep -v '^#' | grep -v '^$' >r0
grep -vF -- "$gold" d100 | grep -v '^#' | grep -v '^$' >r100
cmp r0 r100 || fail "distractors differ between depth 0 and 100"
[ "$(grep -cF -- "$gold" d100)" = 1 ] || fail "gold must occur once"
expect_code 0 "$DIPMAP" show-prompt --dataset "$set_" --haystack "$hay" --template needle --question needle-0003 --length 4k --json
python3 -c 'import json; o=json.load(open("out")); m=o["messages"]; assert m[0]["role"]=="system" and m[1]["role"]=="user" and "{documents}" not in m[1]["content"]' || fail "bad --json output"
expect_code 0 "$DIPMAP" show-prompt --dataset "$set_" --haystack "$hay" --template needle --length 4k --completions
assert_contains out "=== prompt ==="
expect_code 2 "$DIPMAP" show-prompt --dataset "$set_" --depth 120
assert_contains err "--depth must be between 0 and 100"
expect_code 2 "$DIPMAP" show-prompt --dataset "$set_" --question nope
assert_contains err "no question 'nope'"
expect_code 2 "$DIPMAP" show-prompt --dataset "$set_" --template nosuch
assert_contains err "template 'nosuch' not found"
