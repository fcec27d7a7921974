# Bad input: duplicate question ids -> exit 2 naming both lines.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/95x-lib.bash"
setup_prior
{ cat golden.jsonl; head -n 1 golden.jsonl; } >dup.jsonl
bad_run 2 "error: dup.jsonl:4: \"id\": duplicate question id \"kv-0001\" (first on line 1)" --dataset dup.jsonl
