# --max-cost stops scheduling before the budget is exceeded: exit 4, status budget, resumable.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 4
start_sim sim --dataset golden.jsonl
run_args
# each 1k trial costs at most (1024 + 64) tokens x $10/M ~ $0.011: $0.1 buys about 9 of 44
P=(--lengths 1k --depths 0:100:10 --db t.db --run b --price-in 10 --price-out 10 --max-tokens 64 --concurrency 2)
expect_code 4 "$DIPMAP" run "${RUN_ARGS[@]}" "${P[@]}" --max-cost 0.1
assert_contains err "--max-cost \$0.10 reached"
assert_contains err "hint: resume with"
n=$(q t.db "select count(*) from trials")
[ "$n" -gt 0 ] && [ "$n" -lt 44 ] || fail "expected a partial run, got $n"
spent=$(q t.db "select sum(usage_prompt_tokens + completion_tokens) * 10 / 1e6 from trials")
python3 -c "import sys; sys.exit(0 if $spent <= 0.1 else 1)" || fail "spent \$$spent over the budget"
[ "$(q t.db "select status from runs")" = budget ] || fail "status not budget"
# resume with a bigger budget completes
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" "${P[@]}" --max-cost 5
assert_contains out "run b: complete"
[ "$(q t.db "select count(*) from trials")" = 44 ] || fail "not completed"
# a budget without prices is a usage error
expect_code 2 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --db t.db --run c --max-cost 1
assert_contains err "needs --price-in and --price-out"
