# merge refuses shards that counted with other tokenizers under one name: a run's identity
# knows --tokenizer server by its name only (the model's), so shard 1/2 mapped against a
# server of the qwen3 tokenizer and shard 2/2 against one of cl100k_base (one model name, no
# template: both measure a template overhead of 0) have equal identities while they cut their
# prompts at other tokens. One question in two repeats, so each shard holds one repeat of the
# same question and counted the same candidate chunks (the builder selects them once per
# question and length). Their stores count the same texts differently: merge
# names both files, the text and both counts and exits 2 with nothing written (before: merged
# into one "complete" run of two tokenizers, exit 0). Shards of one server still merge.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 1
start_sim qwen --dataset golden.jsonl --tokenizer "$REPO/tests/data/tokenizer/qwen3/tokenizer.json.gz"
QWEN=$SIM_URL
start_sim cl100k --dataset golden.jsonl
CL100K=$SIM_URL
shard() { # URL I DB
    SIM_URL=$1 run_args
    expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --tokenizer server --completions --lengths 1k \
        --repeats 2 --depths 0,100 --shard "$2/2" --db "$3" --run r
    assert_contains err "template overhead: 0 tokens per request"
}
shard "$QWEN" 1 s1.db
shard "$CL100K" 2 s2.db
shard "$QWEN" 2 s2-qwen.db
[ "$(q s1.db "select settings_json from runs")" = "$(q s2.db "select settings_json from runs")" ] ||
    fail "the shards' identities differ already: $(q s1.db "select settings_json from runs")"
expect_code 2 "$DIPMAP" merge all.db s1.db s2.db
assert_contains err "error: merge: s1.db counts a text (sha256 "
assert_contains err "tokens of tokenizer 'server:dipmap-sim', s2.db as "
assert_contains err "their runs counted with other tokenizers under one name"
assert_contains err "refusing to merge"
[ "$(q all.db "select count(*) from runs")" = 0 ] || fail "all.db: a refused merge wrote runs"
expect_code 0 "$DIPMAP" merge all.db s1.db s2-qwen.db
assert_contains out "r: 4/4 trials, complete"
echo ok
