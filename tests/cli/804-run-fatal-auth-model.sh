# Wrong key or unknown model: exit 2 before the matrix is sent; the store stays consistent.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 3
export SIMKEY=sk-right-key-000
start_sim sim --dataset golden.jsonl --api-key-env SIMKEY
run_args
OPENAI_API_KEY=sk-wrong-key-111 expect_code 2 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --db f.db --run wrongkey
assert_contains err "refused the API key"
assert_not_contains err sk-wrong-key-111
OPENAI_API_KEY= expect_code 2 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --db f.db --run nokey
assert_contains err "OPENAI_API_KEY"
OPENAI_API_KEY=$SIMKEY expect_code 2 "$DIPMAP" run "${RUN_ARGS[@]}" --model no-such-model \
    --lengths 1k --db f.db --run nomodel
assert_contains err "no-such-model"
# the server does not list the model: one probe request at most, never the matrix
[ "$(grep -c '/completions' sim.log)" -le 1 ] || fail "the matrix was sent: $(grep -c /completions sim.log) requests"
# and the store holds no half-made run
if [ -e f.db ]; then
    [ "$(q f.db "select count(*) from trials")" = 0 ] || fail "trials stored"
    [ "$(q f.db "select count(*) from runs where status='running'")" = 0 ] || fail "run left running"
    [ "$(q f.db "pragma integrity_check")" = ok ] || fail "store corrupted"
fi
# the right key runs
OPENAI_API_KEY=$SIMKEY expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,100 --db f.db --run ok
assert_contains out "run ok: complete"
