# Bad input: empty answers ([] and [""]) -> exit 2 naming line and field.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/95x-lib.bash"
setup_prior
{ head -n 1 golden.jsonl; echo '{"id": "e", "question": "q", "answers": [], "gold": [{"text": "t"}]}'; } >e1.jsonl
bad_run 2 "error: e1.jsonl:2: \"answers\" must be a non-empty array of strings" --dataset e1.jsonl
echo '{"id": "e", "question": "q", "answers": [""], "gold": [{"text": "t"}]}' >e2.jsonl
bad_run 2 "error: e2.jsonl:1: \"answers\" must be a non-empty array of strings" --dataset e2.jsonl
