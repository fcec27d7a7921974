# Transient faults (500, 503, dropped connections, short bodies, HTML, 200-with-error) are retried
# with backoff; every trial still ends scored, and attempts are recorded per trial.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 4
start_sim sim --dataset golden.jsonl \
    --faults 500=0.1,503=0.05,drop=0.05,truncate=0.05,garbage=0.05,error200=0.05 --fault-seed 3
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:10 --db t.db --run f \
    --retry-base-ms 20 --max-attempts 8
assert_contains out "run f: complete"
[ "$(q t.db "select count(*) from trials")" = 44 ] || fail "expected 44 trials"
[ "$(q t.db "select count(*) from trials where outcome not in ('correct','wrong')")" = 0 ] ||
    fail "faults leaked into outcomes: $(q t.db "select outcome, error from trials where outcome not in ('correct','wrong')")"
faults=$(grep -c '"fault":"\(500\|503\|drop\|truncate\|garbage\|error200\)"' sim.log)
[ "$faults" -ge 5 ] || fail "too few faults injected ($faults)"
# faults cost extra attempts, recorded per trial (libcurl itself may resend a request whose
# reused connection was dropped, so the server can see a few more requests than attempts)
requests=$(grep -c '"route":"/v1/chat/completions"' sim.log)
attempts=$(q t.db "select sum(attempts) from trials")
[ "$attempts" -le "$requests" ] && [ "$attempts" -ge $((requests - faults / 2)) ] ||
    fail "attempts $attempts vs requests $requests"
[ "$(q t.db "select count(*) from trials where attempts > 1")" -ge 5 ] || fail "no retried trials recorded"
assert_contains out "($((attempts - 44)) retries)"
