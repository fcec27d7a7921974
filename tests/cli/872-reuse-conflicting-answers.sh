# run --reuse does not take an answer that stored runs gave otherwise for the same bytes: the
# request body names the model only, so runs of two servers under one model name (a new
# quantization behind the same alias: serve-sim's planted curves differ) hold one request hash
# with two answers at temperature 0. Those requests are sent again, to this run's server, with
# a warning naming both sources; requests both runs answered alike are still reused (before:
# every trial took the first run's answer, whichever server this run talks to).
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 6
start_sim old --dataset golden.jsonl --model dipmap-sim:edge=0.95,dip=0.05
OLD=$SIM_URL
start_sim new --dataset golden.jsonl --model dipmap-sim:edge=0.3,dip=0.6
NEW=$SIM_URL
mapped() { # URL RUN [ARGS]
    local url=$1 run=$2
    shift 2
    SIM_URL=$url run_args
    expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,50,100 --db t.db --run "$run" "$@"
}
mapped "$OLD" a
mapped "$NEW" b
differ=$(q t.db "select count(*) from trials x join trials y on x.request_sha256 = y.request_sha256
    where x.run_id = (select id from runs where name = 'a') and y.run_id = (select id from runs where name = 'b')
    and x.answer is not y.answer")
same=$(q t.db "select count(*) from trials x join trials y on x.request_sha256 = y.request_sha256
    where x.run_id = (select id from runs where name = 'a') and y.run_id = (select id from runs where name = 'b')
    and x.answer is y.answer")
[ "$differ" -gt 0 ] && [ "$same" -gt 0 ] || fail "the fixture needs answers that differ and agree: $differ differ, $same agree"
sent_before=$(grep -c '/completions' new.log)
mapped "$NEW" pr --reuse t.db
assert_contains err "warning: reuse: $differ request(s) were answered otherwise by t.db:b than by t.db:a"
assert_contains err "not reused, sent again"
[ "$(n_trials pr "reused_from is not null")" = "$same" ] || fail "reused: $(n_trials pr "reused_from is not null"), expected $same"
[ "$(( $(grep -c '/completions' new.log) - sent_before ))" = "$differ" ] || fail "sent to this run's server: $(( $(grep -c '/completions' new.log) - sent_before )), expected $differ"
# every answer of pr is what this run's server answers (run b's)
[ "$(q t.db "select count(*) from trials x join trials y on x.request_sha256 = y.request_sha256
    where x.run_id = (select id from runs where name = 'pr') and y.run_id = (select id from runs where name = 'b')
    and x.answer is y.answer")" = 18 ] || fail "pr holds answers this run's server did not give"
echo ok
