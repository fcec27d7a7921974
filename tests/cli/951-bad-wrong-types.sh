# Bad input: valid JSON with wrong types (numeric id, string answers, object gold) -> exit 2 naming line and field.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/95x-lib.bash"
setup_prior
echo '{"id": 7, "question": "q", "answers": ["a"], "gold": [{"text": "t"}]}' >t1.jsonl
bad_run 2 "error: t1.jsonl:1: \"id\" must be a non-empty string" --dataset t1.jsonl
echo '{"id": "a", "question": "q", "answers": "a", "gold": [{"text": "t"}]}' >t2.jsonl
bad_run 2 "error: t2.jsonl:1: \"answers\" must be a non-empty array of strings" --dataset t2.jsonl
echo '{"id": "a", "question": "q", "answers": ["a"], "gold": {"text": "t"}}' >t3.jsonl
bad_run 2 "error: t3.jsonl:1: \"gold\" must be a non-empty array of chunks" --dataset t3.jsonl
echo '{"id": "a", "question": "q", "answers": ["a"], "gold": [{"text": "t", "title": 5}]}' >t4.jsonl
bad_run 2 "error: t4.jsonl:1: \"gold\"[0].\"title\" must be a string" --dataset t4.jsonl
echo '[1, 2]' >t5.jsonl
bad_run 2 "error: t5.jsonl:1: must be a JSON object" --dataset t5.jsonl
