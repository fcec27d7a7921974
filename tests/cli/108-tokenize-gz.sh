# gzip-compressed tokenizer files and inputs: --tokenizer X.json.gz / X.tiktoken.gz load the same
# tokenizer (same name and content hash as the uncompressed file), `dipmap tokenize FILE.gz` counts
# the decompressed text, and corrupt or truncated gzip data is a clear error (exit 2), not a count.
. "$TESTS/cli/lib/lib.sh"
T=$REPO/tests/data/tokenizer
want() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["counts"][sys.argv[2]]["corpus/"+sys.argv[3]+".txt"])' "$T/counts.json" "$1" "$2"; }
# compressed input, compressed tokenizer.json
expect_code 0 "$DIPMAP" tokenize --tokenizer "$T/gpt2/tokenizer.json.gz" "$T/corpus/code.txt.gz"
[ "$(cat out)" = "$(want hf:gpt2 code)" ] || fail "gpt2 code.txt.gz: got $(cat out), want $(want hf:gpt2 code)"
# the same tokenizer uncompressed gives the same ids; stdin may be compressed too
gzip -dc "$T/gpt2/tokenizer.json.gz" >tokenizer.json
printf 'Hello <|endoftext|> world, caf\xc3\xa9 12345\n' >t.txt
expect_code 0 "$DIPMAP" tokenize --tokenizer tokenizer.json --ids t.txt
mv out plain.ids
gzip -9 -c t.txt >t.txt.gz
expect_code 0 "$DIPMAP" tokenize --tokenizer "$T/gpt2/tokenizer.json.gz" --ids <t.txt.gz
diff plain.ids out || fail "ids differ between tokenizer.json and tokenizer.json.gz / gz stdin"
# a .tiktoken.gz path works like the name
expect_code 0 "$DIPMAP" tokenize --tokenizer "$REPO/datasets/tokenizers/o200k_base.tiktoken.gz" "$T/corpus/code.txt.gz"
[ "$(cat out)" = "$(want o200k_base code)" ] || fail "o200k .tiktoken.gz: got $(cat out)"
# corrupt and truncated gzip: exit 2 naming the file
head -c 20 t.txt.gz >cut.gz
expect_code 2 "$DIPMAP" tokenize --tokenizer cl100k_base cut.gz
grep -q "cannot read cut.gz: corrupt or truncated gzip data" err || fail "truncated input: $(cat err)"
head -c 20000 "$T/gpt2/tokenizer.json.gz" >cut.json.gz
expect_code 2 "$DIPMAP" tokenize --tokenizer cut.json.gz t.txt
grep -q "cut.json.gz: cannot read: corrupt or truncated gzip data" err || fail "truncated tokenizer: $(cat err)"
printf '\037\213garbage' >bad.tiktoken.gz
expect_code 2 "$DIPMAP" tokenize --tokenizer ./bad.tiktoken.gz t.txt
grep -q "bad.tiktoken.gz: cannot read: corrupt or truncated gzip data" err || fail "garbage gzip: $(cat err)"
