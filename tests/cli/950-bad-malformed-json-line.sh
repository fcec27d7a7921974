# Bad input: a malformed JSON line in the golden set -> exit 2, file:line named, store intact.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/95x-lib.bash"
setup_prior
{ head -n 2 golden.jsonl; echo '{"id": "x", "question": "q", "answers": ["a"] "gold": []}'; } >bad.jsonl
bad_run 2 "error: bad.jsonl:3: invalid JSON (near byte" --dataset bad.jsonl
