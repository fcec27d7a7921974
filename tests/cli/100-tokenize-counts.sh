# dipmap tokenize: whole-file counts equal the reference counts (counts.json) for
# cl100k_base and o200k_base by name (found in datasets/tokenizers), and for the
# GPT-2 and Qwen3 tokenizer.json files; several files print per-file lines and a total.
. "$TESTS/cli/lib/lib.sh"
T=$REPO/tests/data/tokenizer
want() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["counts"][sys.argv[2]]["corpus/"+sys.argv[3]+".txt"])' "$T/counts.json" "$1" "$2"; }
for c in nonen code; do
    for tk in cl100k_base o200k_base; do
        expect_code 0 "$DIPMAP" tokenize --tokenizer $tk "$T/corpus/$c.txt.gz"
        [ "$(cat out)" = "$(want $tk $c)" ] || fail "$tk $c: got $(cat out), want $(want $tk $c)"
    done
    expect_code 0 "$DIPMAP" tokenize --tokenizer "$T/gpt2/tokenizer.json.gz" "$T/corpus/$c.txt.gz"
    [ "$(cat out)" = "$(want hf:gpt2 $c)" ] || fail "gpt2 $c: got $(cat out)"
    expect_code 0 "$DIPMAP" tokenize -t "$T/qwen3/tokenizer.json.gz" <"$T/corpus/$c.txt.gz"
    [ "$(cat out)" = "$(want hf:qwen3 $c)" ] || fail "qwen3 $c: got $(cat out)"
done
# a .tiktoken path works as well as the name
expect_code 0 "$DIPMAP" tokenize --tokenizer "$REPO/datasets/tokenizers/o200k_base.tiktoken.gz" "$T/corpus/code.txt.gz"
[ "$(cat out)" = "$(want o200k_base code)" ] || fail "o200k by path: got $(cat out)"
# several files: one line each plus a total
printf 'hello world' >a.txt
printf 'hello' >b.txt
expect_code 0 "$DIPMAP" tokenize --tokenizer cl100k_base a.txt b.txt
printf '2\ta.txt\n1\tb.txt\n3\ttotal\n' | diff - out || fail "multi-file output differs"
# empty input counts 0
expect_code 0 "$DIPMAP" tokenize --tokenizer cl100k_base </dev/null
[ "$(cat out)" = 0 ] || fail "empty input: $(cat out)"
