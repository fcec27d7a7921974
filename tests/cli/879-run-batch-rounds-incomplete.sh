# run --batch whose lines the provider expires in every one of its 5 resubmission rounds: the
# run ends incomplete (exit 4, resumable), says why (the rounds, the trials left, what to do)
# and never claims it was interrupted; --batch-fallback online sends what is left online and
# completes the same run.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 2
start_sim sim --dataset golden.jsonl --batch-expire 1
run_args
ARGS=("${RUN_ARGS[@]}" --lengths 1k --depths 0,100 --db t.db --run b --batch --batch-poll 0.05)
expect_code 4 "$DIPMAP" run "${ARGS[@]}"
assert_contains err "run: incomplete: 4 of 4 trial(s) still unanswered after 5 batch rounds"
assert_contains err "the provider expired or failed their lines in every round"
assert_contains err "--batch-fallback online"
grep -q "interrupted" err && fail "an incomplete run says it was interrupted: $(cat err)"
[ "$(q t.db "select count(*) from batches")" = 5 ] || fail "not 5 batches: $(q t.db 'select count(*) from batches')"
[ "$(q t.db "select status from runs where name = 'b'")" = interrupted ] || fail "not resumable"
expect_code 0 "$DIPMAP" run "${ARGS[@]}" --batch-fallback online
assert_contains err "online: 4 trial(s) the batches left (--batch-fallback online)"
assert_contains out "run b: complete"
[ "$(n_trials b)" = 4 ] || fail "expected 4 trials"
echo ok
