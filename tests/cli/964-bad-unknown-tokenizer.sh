# Bad input: an unknown tokenizer name -> exit 2 listing the known ones.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/95x-lib.bash"
setup_prior
bad_run 2 "error: run: unknown tokenizer 'gpt5_base' (known: cl100k_base, o200k_base, server, or a path" --tokenizer gpt5_base
