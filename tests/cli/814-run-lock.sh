# Two processes on the same run: the second refuses (exit 2); a different run in the same
# database works side by side. The busy run takes at least 33 s (33 trials, one at a time, 1 s
# each), so it is still running when the other one ends, however slow the machine.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 3
start_sim sim --dataset golden.jsonl --latency-ms 1000
run_args
"$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:10 --db t.db --run busy --concurrency 1 \
    >out1 2>err1 &
pid=$!
wait_for_query t.db "select count(*) = 1 from locks" $pid
expect_code 2 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:10 --db t.db --run busy
assert_contains err "run 'busy' is in use by pid $pid"
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,100 --db t.db --run other --concurrency 4
assert_contains out "run other: complete"
kill -INT $pid
wait $pid
[ $? = 130 ] || fail "first run did not stop on SIGINT"
[ "$(q t.db "select count(*) from locks")" = 0 ] || fail "lock not released"
