# --special parse|plain: a tokenizer.json parses special-token text by default (as vLLM, llama.cpp
# and SGLang do with the model's tokenizer; ids from Hugging Face tokenizers), a .tiktoken file
# keeps it plain (as OpenAI's API); each can be overridden, bad values are exit 2, and a run
# stores the mode it counted with. WordPiece and Unigram files are refused naming --tokenizer server.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
T=$REPO/tests/data/tokenizer
printf '<|im_start|>user\nHi<|im_end|>' >chat.txt
# qwen3: <|im_start|> 151644, <|im_end|> 151645 (HF tokenizers: 151644 872 198 13048 151645)
expect_code 0 "$DIPMAP" tokenize --tokenizer "$T/qwen3/tokenizer.json.gz" --ids chat.txt
[ "$(cat out)" = "151644 872 198 13048 151645" ] || fail "qwen3 default (parse): $(cat out)"
expect_code 0 "$DIPMAP" tokenize --tokenizer "$T/qwen3/tokenizer.json.gz" chat.txt
[ "$(cat out)" = 5 ] || fail "qwen3 default count: $(cat out)"
expect_code 0 "$DIPMAP" tokenize --tokenizer "$T/qwen3/tokenizer.json.gz" --special plain --ids chat.txt
[ "$(cat out)" = "27 91 318 4906 91 29 872 198 13048 27 91 318 6213 91 29" ] || fail "qwen3 plain: $(cat out)"
# cl100k: plain by default, parse on request
printf 'Hello <|endoftext|>' >eot.txt
expect_code 0 "$DIPMAP" tokenize --tokenizer cl100k_base --ids eot.txt
case " $(cat out) " in *" 100257 "*) fail "cl100k default parsed the special token" ;; esac
expect_code 0 "$DIPMAP" tokenize --tokenizer cl100k_base --special parse --ids eot.txt
[ "$(cat out)" = "9906 220 100257" ] || fail "cl100k parse: $(cat out)"
# bad values and contradictions
expect_code 2 "$DIPMAP" tokenize --tokenizer cl100k_base --special maybe eot.txt
assert_contains err "tokenize: --special must be parse or plain, not 'maybe'"
expect_code 2 "$DIPMAP" tokenize --tokenizer cl100k_base --special plain --allow-special eot.txt
assert_contains err "--allow-special contradicts --special plain"
# WordPiece / Unigram: refused, pointing at the server's own counting
printf '{"model": {"type": "WordPiece", "vocab": {"a": 0}}}' >wp.json
expect_code 2 "$DIPMAP" tokenize --tokenizer ./wp.json eot.txt
assert_contains err "./wp.json: WordPiece models are not supported by the native tokenizer (BPE only); count with the server instead: --tokenizer server"
# a run stores the mode: plain for cl100k by default, parse when asked
make_kv 2
start_sim sim --dataset golden.jsonl
for mode in default parse; do
    extra=; [ $mode = parse ] && extra="--special parse"
    expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" --model dipmap-sim --dataset golden.jsonl \
        --haystack hay.jsonl --template "$REPO/prompts/kv.txt" --scorer kv --lengths 1k --depths 0 \
        --max-tokens 32 --db s.db --run r-$mode --progress none $extra
    want=plain; [ $mode = parse ] && want=parse
    settings=$(q s.db "select settings_json from runs where name='r-$mode'")
    case $settings in *"\"special\":\"$want\""*) ;; *) fail "run r-$mode stored: $settings" ;; esac
done
expect_code 2 "$DIPMAP" run --endpoint "$SIM_URL" --model dipmap-sim --dataset golden.jsonl \
    --tokenizer server --special parse --lengths 1k --db s.db --progress none
assert_contains err "run: --special needs a local tokenizer"
