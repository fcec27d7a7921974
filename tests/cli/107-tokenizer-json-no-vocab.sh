# A BPE tokenizer.json without a vocab says so (it used to say 'not a BPE tokenizer.json
# (model.type is "BPE")'), exit 2; another model type is still named as such.
. "$TESTS/cli/lib/lib.sh"
echo '{"model": {"type": "BPE", "merges": []}}' >novocab.json
echo hi >in.txt
expect_code 2 "$DIPMAP" tokenize --tokenizer novocab.json in.txt
assert_contains err 'novocab.json: "model.vocab" is missing; a BPE tokenizer.json needs a vocab object of token -> id'
assert_not_contains err 'model.type is'
echo '{"model": {"type": "BPE", "vocab": [1, 2], "merges": []}}' >arrayvocab.json
expect_code 2 "$DIPMAP" tokenize --tokenizer arrayvocab.json in.txt
assert_contains err 'arrayvocab.json: model.vocab is not an object'
echo '{"model": {"type": "Foo", "vocab": {}}}' >foo.json
expect_code 2 "$DIPMAP" tokenize --tokenizer foo.json in.txt
assert_contains err 'foo.json: not a BPE tokenizer.json (model.type is "Foo")'
