# kill -9 during a gate's second round, then the same command: it continues from the stored
# round, sends exactly the trials that were not stored (serve-sim's request log: none twice)
# and decides as an uninterrupted gate does. Once decided, the same command again prints the
# decision and sends nothing.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
. "$TESTS/cli/lib/gate-lib.sh"
gate_setup 60 --latency-ms 15 --model base:edge=0.95,dip=0.1,flat=1 \
    --model bad:edge=0.95,dip=0.1,flat=1,mid=0.3,seed=2
# (a 30 pp middle regression: FAILs after round 2 with these seeds, so the kill falls in round 2)
args=("${GATE_ARGS[@]}" --baseline-model base --model bad --db g.db --name k --round 5
    --max-questions 60 --concurrency 2 --json cmp.json)
"$DIPMAP" gate "${args[@]}" >out1 2>err1 &
pid=$!
# kill once round 1 is recorded and round 2 has stored part of its trials
wait_for_query g.db "select (select count(*) from gate_rounds) = 1 and (select count(*) from trials) between 115 and 210" $pid
kill -9 $pid
wait $pid 2>/dev/null
[ "$(q g.db "select count(*) from gate_rounds")" = 1 ] || fail "expected round 1 stored at the kill"
wait_port_idle "$SIM_PORT" # the requests in flight at the kill are answered and logged
before=$(gate_requests)
stored=$(q g.db "select count(*) from trials")
[ "$stored" -gt 110 ] && [ "$stored" -lt 220 ] || fail "killed at $stored trials, not inside round 2"
expect_code 1 "$DIPMAP" gate "${args[@]}"
assert_contains err "resuming after round 1"
total=$(q g.db "select count(*) from trials")
after=$(gate_requests)
[ $((after - before)) = $((total - stored)) ] ||
    fail "the resume sent $((after - before)) requests for $((total - stored)) missing trials"
[ "$(q g.db "select count(*) from (select 1 from trials group by run_id, question_id, depth_bp having count(*) > 1)")" = 0 ] ||
    fail "a trial is stored twice"
decided=$(gate_json cmp.json 'd["sequential"]["decided_round"]')
[ "$decided" -gt 2 ] || fail "decided at round $decided: the kill was not mid-gate" 
# an uninterrupted gate on the same server decides the same round
expect_code 1 "$DIPMAP" gate "${GATE_ARGS[@]}" --baseline-model base --model bad --db h.db \
    --name k --round 5 --max-questions 60 --json ref.json
[ "$(gate_json ref.json 'd["sequential"]["decided_round"]')" = "$decided" ] ||
    fail "the resumed gate decided at round $decided, an uninterrupted one did not"
# decided: the same command again sends nothing and says the same
n=$(gate_requests)
expect_code 1 "$DIPMAP" gate "${args[@]}"
assert_contains out "## dipmap gate: FAIL after"
[ "$(gate_requests)" = "$n" ] || fail "a decided gate sent requests again"
