# Bad input: a directory where a file is expected (dataset, haystack, template, tokenizer, config, database) -> exit 2 naming it.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/95x-lib.bash"
setup_prior
mkdir d.jsonl d.txt d.tiktoken d.json d.db
bad_run 2 "error: d.jsonl: read error: Is a directory" --dataset d.jsonl
bad_run 2 "error: d.jsonl: read error: Is a directory" --haystack d.jsonl
bad_run 2 "error: ./d.txt: cannot read template: Is a directory" --template ./d.txt
bad_run 2 "error: run: ./d.tiktoken: cannot read: Is a directory" --tokenizer ./d.tiktoken
bad_run 2 "d.json" --config d.json
expect_code 2 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0 --db d.db --run x
assert_contains err "error: d.db: is a directory; --db names the store file"
check_store
