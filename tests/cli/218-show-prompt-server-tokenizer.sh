# show-prompt shows a --tokenizer server run's prompt: given the run's --endpoint and --model it
# counts with the server's /tokenize, and its request is the run's (the same realized length as
# the stored trial); without them it says what to give. The header's sha256 is the request's.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
"$DIPMAP" gen needle --n 2 --seed 3 --out golden.jsonl >/dev/null || fail "gen needle"
HAY="$REPO/datasets/nq-haystack.jsonl.gz"
start_sim sim --dataset golden.jsonl --tokenizer "$REPO/tests/data/tokenizer/gpt2/tokenizer.json.gz"
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" --model dipmap-sim --dataset golden.jsonl \
    --haystack "$HAY" --template needle --lengths 1k --depths 50 --tokenizer server \
    --progress none --db t.db --run r
q1=$(q t.db "select question_id from trials order by question_id limit 1")
want=$(q t.db "select realized_length from trials where question_id = '$q1'")
expect_code 2 "$DIPMAP" show-prompt --dataset golden.jsonl --haystack "$HAY" --template needle \
    --length 1k --depth 50 --tokenizer server --question "$q1"
assert_contains err "give --endpoint URL and --model NAME"
ov=$(q t.db "select coalesce(json_extract(settings_json, '$.\"template-overhead\"'), 0) from runs where name = 'r'")
expect_code 0 "$DIPMAP" show-prompt --dataset golden.jsonl --haystack "$HAY" --template needle \
    --length 1k --depth 50 --tokenizer server --endpoint "$SIM_URL" --model dipmap-sim \
    --question "$q1" --template-overhead "$ov"
assert_contains out "# length: target 1024, realized $want "
assert_contains out "# prompt_sha256 "
