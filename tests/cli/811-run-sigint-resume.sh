# SIGINT stops scheduling, waits for the requests in flight, commits, prints how to resume and
# exits 130; the resume completes the matrix with no trial sent twice.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 4
start_sim sim --dataset golden.jsonl --latency-ms 150
run_args
"$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:10 --db t.db --run int --concurrency 2 \
    >out1 2>err1 &
pid=$!
wait_requests sim.log 6
kill -INT $pid
wait $pid
rc=$?
[ $rc = 130 ] || { cat err1 >&2; fail "exit $rc after SIGINT, expected 130"; }
assert_contains err1 "interrupted"
assert_contains err1 "hint: resume with: dipmap run"
assert_contains out1 "run int: interrupted"
n1=$(q t.db "select count(*) from trials")
[ "$n1" -gt 0 ] && [ "$n1" -lt 44 ] || fail "expected a partial run, got $n1 trials"
[ "$(q t.db "select status from runs where name='int'")" = interrupted ] || fail "status not interrupted"
# every request that went out was waited for and stored
[ "$(grep -c '/completions' sim.log)" = "$n1" ] || fail "in-flight requests lost: $(grep -c /completions sim.log) sent, $n1 stored"
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:10 --db t.db --run int --concurrency 4
assert_contains out "trials: 44 of 44 done ($((44 - n1)) this time, $n1 kept from before)"
[ "$(q t.db "select count(*) from trials")" = 44 ] || fail "expected 44 trials"
[ "$(q t.db "select count(distinct question_id||'/'||length||'/'||depth_bp||'/'||repeat) from trials")" = 44 ] ||
    fail "duplicate trials"
[ "$(grep -c '/completions' sim.log)" = 44 ] || fail "a finished trial was sent again"
[ "$(q t.db "select status from runs where name='int'")" = complete ] || fail "status not complete"
# a second signal exits at once, even with a slow request in flight: on serve-sim's clock (the
# answer takes 30 s), not the wall clock's -- the exit comes before that answer was logged
start_sim slow --dataset golden.jsonl --latency-ms 30000
run_args
"$DIPMAP" run "${RUN_ARGS[@]}" --lengths 2k --depths 0:100:10 --db t.db --run int2 --concurrency 1 \
    --progress lines --progress-interval 0.2 >out2 2>err2 &
pid=$!
# the handlers are in place and the first request is on the wire (a signal before it went out
# would stop the run with nothing to wait for, and the second signal would find no process)
wait_for_line err2 "sending 44 trial(s): Ctrl-C or SIGTERM stops" $pid
wait_for_line err2 "trials (0%), 1 in flight" $pid
kill -INT $pid
wait_for_line err2 "interrupted: waiting up to" $pid # the first one was taken
kill -INT $pid
wait $pid
rc=$?
[ $rc = 130 ] || fail "exit $rc after two SIGINTs"
[ "$(grep -c '/completions' slow.log)" = 0 ] || fail "the second SIGINT waited for the answer in flight"
assert_contains err2 "interrupted again"
[ "$(q t.db "pragma integrity_check")" = ok ] || fail "store corrupted"
