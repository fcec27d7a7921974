# A 429 storm lowers the in-flight window (AIMD); the run still completes.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 4
start_sim sim --dataset golden.jsonl --faults 429=0.5 --fault-seed 11 --retry-after-ms 50
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:10 --db t.db --run storm \
    --concurrency 16 --max-attempts 20 --retry-base-ms 10
assert_contains out "run storm: complete"
grep -q "^concurrency: lowered [0-9]* time(s) on rate limits, down to [0-9]*$" out ||
    fail "concurrency was not lowered: $(cat out)"
low=$(sed -n 's/^concurrency: lowered .* down to \([0-9]*\)$/\1/p' out)
[ "$low" -lt 16 ] || fail "window not below 16 ($low)"
[ "$(q t.db "select count(*) from trials where outcome in ('correct','wrong')")" = 44 ] || fail "not all scored"
