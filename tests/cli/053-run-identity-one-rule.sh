# One run-identity rule (run_identity.c) for resume, merge and compare: a tokenizer is known by
# its file hash when it has one, so naming the same tokenizer file another way resumes the run,
# merges, and compares as the same inputs; a different tokenizer, model or setting still refuses.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 2
start_sim sim --dataset golden.jsonl
run_args
# a copy of the shipped cl100k_base file under another name: another tokenizer name, the same hash
cp "$REPO/datasets/tokenizers/cl100k_base.tiktoken.gz" mytok.tiktoken.gz || fail "no cl100k_base file"
tokfile=$PWD/mytok.tiktoken.gz
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,100 --db t.db --run r \
    --tokenizer cl100k_base
# the same tokenizer named by its file: the same run, resumed (nothing left to send)
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,100 --db t.db --run r \
    --tokenizer "$tokfile"
assert_contains err "resuming run 'r'"
# another tokenizer, model or setting is another run
expect_code 2 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,100 --db t.db --run r \
    --tokenizer o200k_base
assert_contains err "cannot resume run 'r': its inputs changed (tokenizer"
expect_code 2 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,50,100 --db t.db --run r \
    --tokenizer cl100k_base
assert_contains err "cannot resume run 'r': its inputs changed"
# shards of one run that named the tokenizer two ways merge into one run
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,100 --db s1.db --run m \
    --shard 1/2 --tokenizer cl100k_base
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,100 --db s2.db --run m \
    --shard 2/2 --tokenizer "$tokfile"
expect_code 0 "$DIPMAP" merge merged.db s1.db s2.db
# compare applies the same rule: same inputs, no --allow-different-inputs needed
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,100 --db t.db --run r2 \
    --tokenizer "$tokfile"
"$DIPMAP" compare r r2 --db t.db >out 2>err
rc=$?
[ $rc = 0 ] || [ $rc = 1 ] || [ $rc = 4 ] || { cat err >&2; fail "compare exited $rc"; }
assert_not_contains err "inputs differ"
