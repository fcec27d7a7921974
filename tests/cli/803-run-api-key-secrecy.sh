# The API key comes only from the environment and never reaches the store, stdout or stderr;
# `--api-key VALUE` is refused.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 3
KEY=sk-dipmaptest-7f3a9c1e55d04b2f
export SIMKEY=$KEY
start_sim sim --dataset golden.jsonl --api-key-env SIMKEY
run_args
expect_code 2 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,100 --api-key "$KEY"
assert_contains err "--api-key is not accepted"
assert_not_contains err "$KEY"
expect_code 2 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,100 "--api-key=$KEY"
assert_not_contains err "$KEY"
# the key from a named variable works, with --verbose request logging and --store-prompts
export MY_KEY=$KEY
OPENAI_API_KEY= expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,50,100 \
    --api-key-env MY_KEY --db k.db --run keyed --verbose --store-prompts --tag nightly
assert_contains out "run keyed: complete"
cp out run.out
cp err run.err
sync
for f in k.db k.db-wal run.out run.err; do
    [ -e "$f" ] || continue
    if grep -qaF "$KEY" "$f"; then fail "API key found in $f"; fi
    if grep -qaF "${KEY:10}" "$f"; then fail "part of the API key found in $f"; fi
done
[ "$(q k.db "select count(*) from prompts")" -ge 1 ] || fail "--store-prompts stored nothing"
[ "$(q k.db "select tags from runs")" = nightly ] || fail "tag not stored"
# the default variable is OPENAI_API_KEY
OPENAI_API_KEY=$KEY expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0 --db k2.db
for f in k2.db out err; do
    if grep -qaF "$KEY" "$f"; then fail "API key found in $f"; fi
done
