# dipmap tokenize --ids / --pieces / --allow-special: exact ids from tiktoken
# and HF tokenizers; special-token text is ordinary text unless --allow-special;
# invalid UTF-8 is accepted and --pieces shows every byte back.
. "$TESTS/cli/lib/lib.sh"
T=$REPO/tests/data/tokenizer
printf 'Hello world <|endoftext|>' >in.txt
expect_code 0 "$DIPMAP" tokenize --tokenizer cl100k_base --ids in.txt
[ "$(cat out)" = "9906 1917 83739 8862 728 428 91 29" ] || fail "cl100k ordinary ids: $(cat out)"
expect_code 0 "$DIPMAP" tokenize --tokenizer cl100k_base --ids --allow-special in.txt
[ "$(cat out)" = "9906 1917 220 100257" ] || fail "cl100k allow-special ids: $(cat out)"
expect_code 0 "$DIPMAP" tokenize --tokenizer cl100k_base --allow-special in.txt
[ "$(cat out)" = "4" ] || fail "allow-special count: $(cat out)"
printf 'Hello <|endoftext|> world' | "$DIPMAP" tokenize --tokenizer "$T/gpt2/tokenizer.json.gz" --ids --allow-special >out
[ "$(cat out)" = "15496 220 50256 995" ] || fail "gpt2 ids: $(cat out)"
# o200k splits at case changes
printf 'parseHTTPResponse' | "$DIPMAP" tokenize --tokenizer o200k_base --pieces >out
printf 'parse\nHTTP\nResponse\n' | diff - out || fail "o200k pieces differ"
# invalid UTF-8 is accepted; pieces escape the bad bytes
printf 'a\xff\xfeb\n' | "$DIPMAP" tokenize --tokenizer cl100k_base --pieces >out || fail "invalid utf-8 rejected"
assert_contains out '\xff'
assert_contains out '\n'
