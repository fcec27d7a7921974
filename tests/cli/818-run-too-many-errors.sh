# Too many trials ending in error after retries: stop with exit 3 and a summary of the errors;
# an unreachable endpoint exits 3 before anything is stored.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 4
start_sim sim --dataset golden.jsonl --faults 500=0.6 --fault-seed 2
run_args
expect_code 3 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:10 --db t.db --run e \
    --max-attempts 2 --retry-base-ms 5 --concurrency 2 -H "X-Team-Token: tok-SECRET-42"
assert_contains err "trial(s) ended in error after retries"
# the resume hint repeats the command, but never a header's value
assert_contains err "hint: resume with: dipmap run"
assert_contains err "'X-Team-Token: <redacted>'"
assert_not_contains err "tok-SECRET-42"
grep -q "^ *[0-9]* x .*" err || fail "no error summary"
[ "$(q t.db "select status from runs")" = failed ] || fail "status not failed"
errors=$(q t.db "select count(*) from trials where outcome='error'")
[ "$errors" -ge 3 ] || fail "errors not stored ($errors)"
[ "$(q t.db "select count(*) from trials where outcome='error' and (attempts != 2 or http_status != 500)")" = 0 ] ||
    fail "error trials must record attempts and status"
[ "$(q t.db "select count(*) from trials")" -lt 44 ] || fail "the run did not stop early"
# --max-error-rate 1 lets it finish (errors stored, not scored)
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:10 --db t.db --run e \
    --max-attempts 2 --retry-base-ms 5 --max-error-rate 1
[ "$(q t.db "select count(*) from trials")" = 44 ] || fail "not finished"
# unreachable endpoint: exit 3, no run stored
closed_port
SIM_URL=http://127.0.0.1:$CLOSED_PORT
run_args
expect_code 3 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --db u.db --run u
assert_contains err "unreachable"
if [ -e u.db ]; then [ "$(q u.db "select count(*) from runs")" = 0 ] || fail "run stored"; fi
