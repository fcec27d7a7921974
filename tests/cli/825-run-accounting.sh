# Accounting: prompts the server refused (context overflow) were never processed, so they are not
# in "tokens: N prompt", in the cost or in the --tpm pacing (they used to be: 2k prompts counted
# in full); after a resume the accuracy line counts the whole run, not only this invocation.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 3
start_sim sim --dataset golden.jsonl --ctx 1500
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k,2k --depths 0,50,100 --db t.db --run o \
    --max-tokens 64 --no-context-check --price-in 10 --price-out 0
[ "$(q t.db "select count(*) from trials where outcome='overflow'")" = 9 ] || fail "no overflow"
used=$(q t.db "select sum(usage_prompt_tokens) from trials where outcome in ('correct','wrong')")
[ "$used" -gt 8000 ] || fail "1k usage $used"
assert_contains out "tokens: $used prompt,"
cost=$(python3 -c "print('%.4f' % ($used * 10 / 1e6))")
assert_contains out "cost \$$cost"
# whole-run accuracy after a resume: interrupt by budget, then finish
expect_code 4 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:10 --db t.db --run r \
    --max-tokens 64 --price-in 10 --price-out 10 --max-cost 0.05 --concurrency 1
first=$(n_trials r "outcome in ('correct','wrong')")
[ "$first" -gt 0 ] || fail "the first part scored nothing"
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:10 --db t.db --run r \
    --max-tokens 64 --price-in 10 --price-out 10 --concurrency 1
correct=$(n_trials r "outcome = 'correct'")
assert_contains out "($correct of 33 scored trials in the run)"
