# kill -9 during a --schedule cache run: a group half sent before the kill is completed by
# the resume, its deepest remaining depth first and the rest after its answer; no trial is
# stored twice and no trial stored before the kill is sent again (the server's log).
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 4
start_sim sim --dataset golden.jsonl --latency-ms 60 --prefix-cache 1m
run_args
"$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k,2k --depths 0:100:10 --db t.db --run k9 --concurrency 3 \
    --schedule cache >out1 2>err1 &
pid=$!
# kill once 14 trials are stored and some group is stored in part (groups go one after
# another, so a kill between two flushes can find only whole groups stored)
wait_for_query t.db "select count(*) >= 14 and exists (select 1 from trials group by question_id,
    length having count(*) < 11) from trials" $pid
kill -9 $pid
wait $pid 2>/dev/null
[ "$(q t.db "pragma integrity_check")" = ok ] || fail "store corrupted"
n1=$(q t.db "select count(*) from trials")
[ "$n1" -gt 0 ] && [ "$n1" -lt 88 ] || fail "expected some committed trials, got $n1"
# (sqlite3 prints 15 significant digits, which can round a stored time down: half a
# millisecond above the last stored trial is still before any trial of the resume, whose
# requests take --latency-ms 60)
killed_at=$(q t.db "select printf('%.6f', max(finished_at) + 0.0005) from trials")
# groups (question, length) with some but not all of their 11 depths stored
half=$(q t.db "select question_id || '|' || length from trials group by question_id, length having count(*) < 11")
[ -n "$half" ] || fail "no group was half sent at the kill: $(q t.db "select question_id, length, count(*) from trials group by 1, 2")"
wait_port_idle "$SIM_PORT" # the requests in flight at the kill are answered and logged
sent_before=$(grep -c '/chat/completions' sim.log)

expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k,2k --depths 0:100:10 --db t.db --run k9 \
    --concurrency 3 --schedule cache
assert_contains out "run k9: complete"
assert_contains out "$n1 kept from before"
[ "$(q t.db "select count(*) from trials")" = 88 ] || fail "expected 88 trials"
[ "$(q t.db "select count(distinct question_id||'/'||length||'/'||depth_bp||'/'||repeat) from trials")" = 88 ] ||
    fail "duplicate trials"
# the resume sent exactly the trials that were missing
sent_after=$(grep -c '/chat/completions' sim.log)
[ $((sent_after - sent_before)) = $((88 - n1)) ] ||
    fail "the resume sent $((sent_after - sent_before)) requests for $((88 - n1)) missing trials"
# in each half-sent group the resume sent the deepest remaining depth first, the rest after its answer
for g in $half; do
    qid=${g%|*} len=${g#*|}
    lead=$(q t.db "select depth_bp from trials where question_id = '$qid' and length = $len and finished_at > $killed_at order by depth_bp desc limit 1")
    [ -n "$lead" ] || fail "group $g was not completed"
    [ "$(q t.db "select count(*) from trials f join trials l on l.question_id = f.question_id and l.length = f.length
          and l.depth_bp = $lead where f.question_id = '$qid' and f.length = $len and f.depth_bp < $lead
          and f.sent_at < l.finished_at and f.finished_at > $killed_at")" = 0 ] ||
        fail "group $g: a depth below $lead went before its answer"
done
