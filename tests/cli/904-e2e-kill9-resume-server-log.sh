# Acceptance: kill -9 at a random moment, then resume. Every trial is in the
# store exactly once, and the server's request log shows no prompt answered
# twice except those in flight at the kill: the requests on the wire (the
# runner commits finished trials at every event-loop turn, runner.h).
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
. "$TESTS/cli/lib/e2e-lib.sh"
e2e_gen 10 51
start_sim sim --dataset golden.jsonl --latency-ms 40
args=(--endpoint "$SIM_URL" --model dipmap-sim --dataset golden.jsonl --haystack "$REPO/datasets/nq-haystack.jsonl.gz"
    --lengths 2k,4k --depths 0:100:10 --concurrency 4 --progress none --db t.db --run k9)
"$DIPMAP" run "${args[@]}" >out1 2>err1 &
pid=$!
# a random moment after the first trials are committed and before the end (220 trials)
target=$((10 + RANDOM % 150))
wait_for_query t.db "select count(*) >= $target from trials" $pid
kill_ts=$(date +%s.%N)
kill -9 $pid 2>/dev/null || fail "the run ended before the kill (target $target)"
wait $pid 2>/dev/null
n1=$(q t.db "select count(*) from trials")
echo "killed after $n1 trials (target $target)"
[ "$n1" -gt 0 ] && [ "$n1" -lt 220 ] || fail "expected a partial run, got $n1"
# let the server finish (and log) the requests that were in flight: no connection left open
wait_port_idle "$SIM_PORT"
resume_ts=$(date +%s.%N)
expect_code 0 "$DIPMAP" run "${args[@]}"
assert_contains out "run k9: complete"
[ "$(q t.db "select count(*) from trials")" = 220 ] || fail "not 220 trials"
[ "$(q t.db "select count(distinct question_id||'/'||length||'/'||depth_bp||'/'||repeat) from trials")" = 220 ] ||
    fail "duplicate trials"
[ "$(q t.db "select count(*) from trials where outcome not in ('correct','wrong')")" = 0 ] || fail "non-final trials"
# in flight at the kill: the 4 requests on the wire (flush interval 0: answers
# are committed in the loop turn that receives them; 0.25 s of clock slack)
e2e_check sent-once sim.log "$n1" 220 "$kill_ts" "$resume_ts" 4 0 ||
    fail "the server log shows trials sent twice that were not in flight at the kill"
