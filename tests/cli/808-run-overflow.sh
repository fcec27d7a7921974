# Context overflow: refused up front when the server's context is known to be too small; with
# --no-context-check the overflowing trials are stored as overflow and kept out of accuracy.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 3
start_sim sim --dataset golden.jsonl --ctx 1500
run_args
expect_code 2 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k,2k --depths 0,50,100 --db t.db --run o --max-tokens 64
assert_contains err "context is 1500"
[ "$(grep -c '/completions' sim.log)" = 0 ] || fail "trials were sent despite the refusal"
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k,2k --depths 0,50,100 --db t.db --run o \
    --max-tokens 64 --no-context-check
assert_contains out "run o: complete"
[ "$(q t.db "select count(*) from trials where length=2048 and outcome='overflow'")" = 9 ] ||
    fail "2k trials not stored as overflow: $(q t.db "select length, outcome from trials")"
[ "$(q t.db "select count(*) from trials where length=1024 and outcome in ('correct','wrong')")" = 9 ] ||
    fail "1k trials not scored"
[ "$(q t.db "select count(*) from trials where outcome='overflow' and attempts=1 and http_status=400 and error is not null")" = 9 ] ||
    fail "overflow must not be retried and must keep the server's message"
# accuracy counts only the 9 scored trials
assert_contains out "of 9 scored trials)"
