# kill -9 mid-run loses no committed trial and corrupts nothing; the resume completes the run.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 4
start_sim sim --dataset golden.jsonl --latency-ms 100
run_args
"$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k,2k --depths 0:100:10 --db t.db --run k9 --concurrency 2 \
    >out1 2>err1 &
pid=$!
wait_for_query t.db "select count(*) >= 4 from trials" $pid
kill -9 $pid
wait $pid 2>/dev/null
[ "$(q t.db "pragma integrity_check")" = ok ] || fail "store corrupted"
n1=$(q t.db "select count(*) from trials")
[ "$n1" -gt 0 ] && [ "$n1" -lt 88 ] || fail "expected some committed trials, got $n1"
[ "$(q t.db "select count(*) from trials where outcome not in ('correct','wrong')")" = 0 ] ||
    fail "partial trials stored"
# the dead process's lock is taken over (its pid is gone)
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k,2k --depths 0:100:10 --db t.db --run k9 --concurrency 4
assert_contains out "run k9: complete"
assert_contains out "$n1 kept from before"
[ "$(q t.db "select count(*) from trials")" = 88 ] || fail "expected 44 trials"
[ "$(q t.db "select count(distinct question_id||'/'||length||'/'||depth_bp||'/'||repeat) from trials")" = 88 ] ||
    fail "duplicate trials"
