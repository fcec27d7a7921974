# Unknown tokenizer names and unreadable / invalid tokenizer.json files exit 2
# with a message naming the file and the problem.
. "$TESTS/cli/lib/lib.sh"
expect_code 2 "$DIPMAP" tokenize --tokenizer gpt5_base </dev/null
assert_contains err "unknown tokenizer 'gpt5_base'"
expect_code 2 "$DIPMAP" tokenize --tokenizer missing/tokenizer.json </dev/null
assert_contains err "missing/tokenizer.json: cannot read: No such file or directory"
printf '{"model": {"type": "Unigram", "vocab": []}}' >tokenizer.json
expect_code 2 "$DIPMAP" tokenize --tokenizer ./tokenizer.json </dev/null
assert_contains err "./tokenizer.json: Unigram models are not supported by the native tokenizer (BPE only); count with the server instead: --tokenizer server"
printf '{"model": ' >broken.json
expect_code 2 "$DIPMAP" tokenize --tokenizer broken.json </dev/null
assert_contains err "broken.json: not valid JSON"
expect_code 2 "$DIPMAP" tokenize --tokenizer cl100k_base no-such-input.txt
assert_contains err "cannot read no-such-input.txt"
# the named rank files are found relative to $DIPMAP_DATA too
mkdir -p home/datasets/tokenizers
expect_code 2 env DIPMAP_DATA="$PWD/home" "$DIPMAP" tokenize --tokenizer nope </dev/null
