# run --batch: Ctrl-C while polling leaves the batch running at the provider and says how to
# resume or cancel (exit 130); --batch-cancel cancels it (the provider's batch ends
# cancelled, nothing is stored, the run stays resumable); a store whose batch the provider no
# longer knows is reported and nothing is submitted again silently. Malformed output lines
# are reported with file and line and their trials sent again; with --batch-fallback online
# the expired lines are sent online. A batch cancelled at the provider (its dashboard) answers
# "cancelling", then "cancelled"; the run waits it out and sends its unanswered trials again.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 4
start_sim sim --dataset golden.jsonl --batch-delay-ms 40000
run_args
ARGS=("${RUN_ARGS[@]}" --lengths 1k,2k --depths 0:100:25 --db t.db --run c --batch --batch-poll 0.05)
"$DIPMAP" run "${ARGS[@]}" >out1 2>err1 &
pid=$!
# polling: the batch's first status is printed (the signal handlers are in place since the start)
for i in $(seq 400); do grep -q ': validating' err1 && break; sleep 0.05; done
kill -INT $pid
wait $pid
rc=$?
[ "$rc" = 130 ] || fail "interrupted run exited $rc: $(cat err1)"
assert_contains err1 "keep running at the provider"
assert_contains err1 "--batch-cancel"
bid=$(q t.db "select batch_id from batches")
[ "$(curl -s "$SIM_URL/v1/batches/$bid" | python3 -c 'import json,sys; print(json.load(sys.stdin)["status"])')" = validating ] ||
    fail "the batch did not keep running"
expect_code 130 "$DIPMAP" run "${ARGS[@]}" --batch-cancel
[ "$(curl -s "$SIM_URL/v1/batches/$bid" | python3 -c 'import json,sys; print(json.load(sys.stdin)["status"])')" = cancelled ] ||
    fail "the batch was not cancelled"
[ "$(q t.db "select state || ' ' || status from batches")" = "done cancelled" ] || fail "store: $(q t.db 'select * from batches')"
[ "$(q t.db "select count(*) from trials")" = 0 ] || fail "a cancelled batch stored trials"

# the provider forgot the run's batch (another endpoint, a purged account): reported, not resubmitted
"$DIPMAP" run "${ARGS[@]}" --run u >out2 2>err2 &
pid=$!
for i in $(seq 400); do grep -q ': validating' err2 && break; sleep 0.05; done
kill -INT $pid
wait $pid
start_sim sim2 --dataset golden.jsonl
run_args
expect_code 3 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k,2k --depths 0:100:25 --db t.db --run u --batch --batch-poll 0.05
assert_contains err "unknown to the provider"
[ "$(curl -s "$SIM_URL/v1/batches" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["data"]))')" = 0 ] ||
    fail "a batch was submitted again"

# malformed output lines: named, their trials sent again
start_sim sim3 --dataset golden.jsonl --batch-malformed 0.3
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k,2k --depths 0:100:25 --db m.db --run m --batch --batch-poll 0.05
assert_contains err "warning: batch file file-sim"
assert_contains err "not a JSON object"
[ "$(q m.db "select count(*) from trials")" = 40 ] || fail "malformed lines lost trials"

# --batch-fallback online: the expired lines are answered online
start_sim sim4 --dataset golden.jsonl --batch-expire 0.3
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k,2k --depths 0:100:25 --db f.db --run f --batch --batch-poll 0.05 --batch-fallback online
online=$(grep -c '"route":"/v1/chat/completions"' sim4.log)
[ "$online" -gt 0 ] || fail "nothing was sent online"
[ "$(q f.db "select count(*) from batches")" = 1 ] || fail "a second batch was made"
[ "$(q f.db "select count(*) from trials")" = 40 ] || fail "expected 40 trials"
# cancelled elsewhere: the cancel answers "cancelling" (a tenth of a state), then "cancelled";
# the polling run takes the batch's cancelled lines into a new batch and completes
start_sim sim5 --dataset golden.jsonl --batch-delay-ms 6000
run_args
"$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k,2k --depths 0:100:25 --db x.db --run x --batch \
    --batch-poll 0.05 >out5 2>err5 &
pid=$!
for i in $(seq 400); do grep -q 'submitted as' err5 && break; sleep 0.05; done
bid=$(q x.db "select batch_id from batches")
[ -n "$bid" ] || fail "no batch submitted: $(cat err5)"
[ "$(curl -s -X POST "$SIM_URL/v1/batches/$bid/cancel" | python3 -c 'import json,sys; print(json.load(sys.stdin)["status"])')" = cancelling ] ||
    fail "a cancel did not answer cancelling"
wait $pid || fail "the run whose batch was cancelled elsewhere exited $?: $(cat err5)"
[ "$(curl -s "$SIM_URL/v1/batches/$bid" | python3 -c 'import json,sys; print(json.load(sys.stdin)["status"])')" = cancelled ] ||
    fail "the cancelled batch did not end cancelled"
[ "$(q x.db "select group_concat(status, ' ') from (select status from batches order by id)")" = "cancelled completed" ] ||
    fail "store: $(q x.db 'select * from batches')"
[ "$(q x.db "select count(*) from trials")" = 40 ] || fail "the cancelled batch's trials were lost"
echo ok
