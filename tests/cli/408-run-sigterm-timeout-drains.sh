# GNU timeout against a run (issue 43 item 15): when it fires it sends SIGTERM to the run and
# again to its process group, so the run gets two SIGTERMs at once. A SIGTERM drains like one
# Ctrl-C -- it never counts as "again" -- so the run waits for its requests in flight, stores
# them, ends "interrupted" (not "stalled") with exit 130, and resumes. (Before: "interrupted
# again: exiting now" without the drain, the run left running.) timeout fires on SIGALRM, its
# own timer's signal: sent once the server has answered 4 requests, so no wall-clock wait. A
# second SIGTERM sent once the drain has begun (the case the kernel does not merge into the
# first, and a service manager repeating its SIGTERM) does not cut the drain short either.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
need_tool timeout DIPMAP_REQUIRE_COREUTILS "GNU timeout is not installed"
make_kv 4
start_sim sim --dataset golden.jsonl --latency-ms 200
run_args
timeout --preserve-status 3600 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:10 \
    --db t.db --run t --concurrency 2 >out1 2>err1 &
tpid=$!
wait_for_line err1 "sending 44 trial(s): Ctrl-C or SIGTERM stops" $tpid
wait_requests sim.log 4
kill -ALRM $tpid
wait $tpid
rc=$?
[ $rc = 130 ] || { cat err1 >&2; fail "exit $rc after timeout's SIGTERMs, expected 130"; }
assert_contains err1 "interrupted (SIGTERM): waiting up to"
assert_not_contains err1 "interrupted again"
assert_contains out1 "run t: interrupted"
[ "$(q t.db "select status from runs where name='t'")" = interrupted ] ||
    fail "status $(q t.db "select status from runs where name='t'"), expected interrupted"
n1=$(q t.db "select count(*) from trials")
[ "$n1" -gt 0 ] && [ "$n1" -lt 44 ] || fail "expected a partial run, got $n1 trials"
# the drain waited for every request that went out and stored its answer
[ "$(grep -c '/completions' sim.log)" = "$n1" ] ||
    fail "in-flight requests lost: $(grep -c /completions sim.log) sent, $n1 stored"
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:10 --db t.db --run t
assert_contains out "trials: 44 of 44 done ($((44 - n1)) this time, $n1 kept from before)"
[ "$(grep -c '/completions' sim.log)" = 44 ] || fail "a finished trial was sent again"
# a SIGTERM while draining (timeout's second one when the first was already taken, or a
# service manager repeating it) does not cut the drain short: the answer in flight is stored
start_sim slow --dataset golden.jsonl --latency-ms 3000
run_args
"$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:10 --db t.db --run t2 --concurrency 1 \
    --progress lines --progress-interval 0.2 >out2 2>err2 &
pid=$!
# the first request is on the wire before the first SIGTERM (a signal before it went out would
# stop the run with nothing to drain, and the second SIGTERM would find no run, or one exiting)
wait_for_line err2 "sending 44 trial(s): Ctrl-C or SIGTERM stops" $pid
wait_for_line err2 "trials (0%), 1 in flight" $pid
kill -TERM $pid
wait_for_line err2 "interrupted (SIGTERM): waiting up to" $pid
kill -TERM $pid
wait $pid
rc=$?
[ $rc = 130 ] || { cat err2 >&2; fail "exit $rc after two SIGTERMs, expected 130"; }
assert_not_contains err2 "interrupted again"
[ "$(q t.db "select status from runs where name='t2'")" = interrupted ] ||
    fail "t2: status $(q t.db "select status from runs where name='t2'"), expected interrupted"
[ "$(grep -c '/completions' slow.log)" = "$(n_trials t2)" ] ||
    fail "t2: $(grep -c /completions slow.log) answered, $(n_trials t2) stored"
