# A misspelled field is never silently ignored (issue 30): in a golden set, a field one or two edits
# from a known name is refused with the file, the line and the name meant -- "distractor" for
# "distractors" used to drop the hard negatives (and --distractors hard fell back to BM25),
# "answer" for "answers" gave no hint -- also inside a chunk; a field far from every name is the
# user's own metadata and is ignored (README "Golden-set format"). A config file's unknown key
# names its line and the option meant ("lenghts" -> "lengths"). Exit 2, nothing stored.
. "$TESTS/cli/lib/lib.sh"
HAY="$REPO/datasets/nq-haystack.jsonl.gz"
D=(run --dry-run --haystack "$HAY" --lengths 1k --depths 0)
ok='"id":"q1","question":"What colour is the door?","answers":["red"],"gold":[{"title":"Door","text":"The door is red."}]'
printf '{%s}\n{"id":"q2","question":"q?","answer":["a"],"gold":[{"text":"a is it"}]}\n' "$ok" >answer.jsonl
expect_code 2 "$DIPMAP" "${D[@]}" --dataset answer.jsonl
assert_contains err 'answer.jsonl:2: unknown field "answer" (did you mean "answers"?)'
printf '{%s,"distractor":[{"text":"The door is blue."}]}\n' "$ok" >distractor.jsonl
expect_code 2 "$DIPMAP" "${D[@]}" --dataset distractor.jsonl --distractors hard
assert_contains err 'distractor.jsonl:1: unknown field "distractor" (did you mean "distractors"?)'
printf '{"id":"q1","question":"q?","answers":["red"],"gold":[{"title":"Door","txet":"The door is red.","text":"x red"}]}\n' >chunk.jsonl
expect_code 2 "$DIPMAP" "${D[@]}" --dataset chunk.jsonl
assert_contains err 'chunk.jsonl:1: "gold"[0]: unknown field "txet" (did you mean "text"?)'
# the user's own metadata is kept out of the way
printf '{%s,"source":"wiki","difficulty":3}\n' "$ok" >meta.jsonl
expect_code 0 "$DIPMAP" "${D[@]}" --dataset meta.jsonl
assert_contains out "trials: 1"
# config keys
printf '{\n  "depths": "0,50",\n  "lenghts": "1k"\n}\n' >cfg.json
expect_code 2 "$DIPMAP" run --dry-run --dataset meta.jsonl --config cfg.json
assert_contains err 'cfg.json:3: unknown setting "lenghts" (did you mean "lengths"?)'
exit 0
