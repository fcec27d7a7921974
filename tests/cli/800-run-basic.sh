# dipmap run: a small matrix against serve-sim completes, every trial stored once, exit 0.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 4
start_sim sim --dataset golden.jsonl
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k,2k --depths 0:100:25 --db t.db --run r1
assert_contains out "run r1: complete"
assert_contains out "trials: 40 of 40 done"
[ "$(q t.db "select count(*) from trials")" = 40 ] || fail "expected 40 trial rows"
[ "$(q t.db "select count(*) from trials where outcome in ('correct','wrong')")" = 40 ] ||
    fail "every trial should be scored"
[ "$(q t.db "select status, trials_planned, model_served from runs where name='r1'")" = "complete|40|dipmap-sim" ] ||
    fail "run row: $(q t.db "select * from runs")"
# realized lengths never above the target and near it (kv pairs are never cut, so the gap can be
# up to about one pair below: 1k is 17 pairs), prompt hash and usage recorded
[ "$(q t.db "select count(*) from trials where realized_length > length or realized_length < length*0.94")" = 0 ] ||
    fail "realized length off target: $(q t.db "select length, realized_length from trials")"
[ "$(q t.db "select count(*) from trials where length(prompt_sha256) = 64 and usage_prompt_tokens = realized_length")" = 40 ] ||
    fail "prompt sha / usage not recorded"
# one request per trial, each one (question, length, depth) as the log shows
[ "$(grep -c '"route":"/v1/chat/completions"' sim.log)" = 40 ] || fail "expected 40 requests"
# running again on the finished run sends nothing
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k,2k --depths 0:100:25 --db t.db --run r1
assert_contains out "trials: 40 of 40 done (0 this time, 40 kept from before)"
[ "$(grep -c '"route":"/v1/chat/completions"' sim.log)" = 40 ] || fail "a finished run was re-sent"
