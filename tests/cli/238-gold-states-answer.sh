# A golden-set answer its gold never states is refused (issue 43 item 2): "KX-78" where the
# gold says KX-77 was accepted and scored wrong at every depth. run and show-prompt refuse the
# line with file:line (exit 2): an answer (scorer all: every answer) must be in the gold's
# normalised text, a needle's "value" in its own chunk, and an "answer_regex" must match a gold
# chunk unless an answer is in it (a pattern of the answer's form, "^\s*A\b"). A line that says
# "answer_outside_gold": true (the gold implies the answer: an inference, a label) loads. Every
# shipped set and every generated kind loads.
. "$TESTS/cli/lib/lib.sh"
hay=$REPO/datasets/nq-haystack.jsonl.gz
D=(run --dry-run --haystack "$hay" --lengths 1k --depths 0,50)
ok='{"id": "q1", "question": "What is the code?", "answers": ["KX-77"], "gold": [{"text": "The code of the vault is KX-77."}]}'
printf '%s\n%s\n' "$ok" '{"id": "q2", "question": "What is the code?", "answers": ["KX-78"], "gold": [{"text": "The code of the vault is KX-77."}]}' >typo.jsonl
expect_code 2 "$DIPMAP" "${D[@]}" --dataset typo.jsonl
assert_contains err 'error: typo.jsonl:2: "answers": no gold chunk states "KX-78", so the scorer would never credit the gold'
assert_contains err '"answer_outside_gold": true'
expect_code 2 "$DIPMAP" show-prompt --dataset typo.jsonl --haystack "$hay" --length 1k --depth 0
assert_contains err 'typo.jsonl:2: "answers": no gold chunk states "KX-78"'
# the gold implies it: marked, it loads
printf '%s\n%s\n' "$ok" '{"id": "q2", "question": "Is the vault locked?", "answers": ["yes"], "answer_outside_gold": true, "gold": [{"text": "The vault has been shut with its code KX-77."}]}' >implied.jsonl
expect_code 0 "$DIPMAP" "${D[@]}" --dataset implied.jsonl
printf '%s\n' '{"id": "q1", "question": "q?", "answers": ["x"], "answer_outside_gold": "yes", "gold": [{"text": "x"}]}' >badflag.jsonl
expect_code 2 "$DIPMAP" "${D[@]}" --dataset badflag.jsonl
assert_contains err 'badflag.jsonl:1: "answer_outside_gold" must be true or false'
# scorer all: every answer in the gold
printf '%s\n' '{"id": "m1", "question": "Both codes?", "answers": ["KX-77", "QZ-12"], "scorer": "all", "gold": [{"text": "One code is KX-77."}, {"text": "Another code is QZ-13."}]}' >all.jsonl
expect_code 2 "$DIPMAP" "${D[@]}" --dataset all.jsonl
assert_contains err 'all.jsonl:1: "answers": the gold does not state "QZ-12" (scorer all needs every answer)'
# a needle's value not in its own chunk
printf '%s\n' '{"id": "v1", "question": "The code?", "answers": ["KX-77"], "gold": [{"text": "The code is KX-77.", "value": "KX-78"}]}' >value.jsonl
expect_code 2 "$DIPMAP" "${D[@]}" --dataset value.jsonl
assert_contains err 'value.jsonl:1: "gold"[0]."value": "KX-78" is not in that chunk'"'"'s text'
# answer_regex: matching the gold passes; a pattern of the answer's form passes on its answer;
# neither is refused
printf '%s\n' '{"id": "r1", "question": "The code?", "answers": ["KX 77"], "answer_regex": "KX-7[0-9]", "gold": [{"text": "The code is KX-77."}]}' \
    '{"id": "r2", "question": "Which option? Rome or Paris", "answers": ["Paris"], "answer_regex": "^\\s*Paris\\b", "gold": [{"text": "The capital is Paris."}]}' >regex.jsonl
expect_code 0 "$DIPMAP" "${D[@]}" --dataset regex.jsonl
printf '%s\n' '{"id": "r3", "question": "The code?", "answers": ["KX-78"], "answer_regex": "KX-78", "gold": [{"text": "The code is KX-77."}]}' >regex-bad.jsonl
expect_code 2 "$DIPMAP" "${D[@]}" --dataset regex-bad.jsonl
assert_contains err 'regex-bad.jsonl:1: "answer_regex": /KX-78/ matches no gold chunk'"'"'s text and "answers": no gold chunk states "KX-78"'
# every shipped set and every generated kind loads
for f in "$REPO"/datasets/*.jsonl "$REPO"/datasets/nq-open.jsonl.gz; do
    expect_code 0 "$DIPMAP" "${D[@]}" --dataset "$f"
done
for kind in needle assoc hops kv; do
    expect_code 0 "$DIPMAP" gen "$kind" --n 20 --seed 5 --out "gen-$kind.jsonl"
    expect_code 0 "$DIPMAP" "${D[@]}" --dataset "gen-$kind.jsonl"
done
exit 0
