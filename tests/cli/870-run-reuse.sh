# run --reuse DB_OR_RUN pays once: a trial whose request is byte-identical (model, rendered prompt,
# every sampling parameter, extra body) takes the stored answer instead of being sent, scored with
# this run's scorer and marked with its source; another model or parameter is always sent.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 4
start_sim sim --dataset golden.jsonl --model dipmap-sim:edge=0.5,dip=0.3 --model other:edge=0.9,dip=0.1
run_args
sent() { grep -c '/completions' sim.log; }
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,50 --db base.db --run base
[ "$(sent)" = 8 ] || fail "baseline: $(sent) requests"
# the same requests from another store file: nothing sent, every trial reused and marked
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,50 --db t.db --run pr1 --reuse base.db
assert_contains err "reuse: 8 stored answers from base.db"
assert_contains out "reused: 8 trial(s) answered from stored byte-identical requests (not sent)"
[ "$(sent)" = 8 ] || fail "reused trials were sent: $(sent) requests"
[ "$(n_trials pr1 "reused_from = 'base.db:base' and attempts = 0")" = 8 ] || fail "not marked: $(q t.db "select reused_from, attempts from trials")"
[ "$(q t.db "select group_concat(outcome || answer, ',') from (select outcome, answer from trials order by question_id, depth_bp)")" = \
  "$(q base.db "select group_concat(outcome || answer, ',') from (select outcome, answer from trials order by question_id, depth_bp)")" ] ||
    fail "reused answers differ from the stored ones"
# a wider matrix: the new depth is sent, the old ones reused (a run of the same --db by name)
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,50,100 --db t.db --run pr2 --reuse pr1
[ "$(sent)" = 12 ] || fail "expected only the 4 new trials sent, $(sent) requests"
[ "$(n_trials pr2 "reused_from = 't.db:pr1'")" = 8 ] || fail "pr2: $(n_trials pr2 "reused_from is not null") reused"
[ "$(n_trials pr2 "depth_bp = 10000 and reused_from is null and attempts = 1")" = 4 ] || fail "new depth not sent"
# never across parameters or models: each differs in the request body
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,50 --db t.db --run temp --reuse base.db --temperature 0.5
[ "$(n_trials temp "reused_from is not null")" = 0 ] && [ "$(sent)" = 20 ] || fail "reused across temperatures"
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,50 --db t.db --run mt --reuse base.db --max-tokens 200
[ "$(n_trials mt "reused_from is not null")" = 0 ] && [ "$(sent)" = 28 ] || fail "reused across answer budgets"
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]/dipmap-sim/other}" --lengths 1k --depths 0,50 --db t.db --run om --reuse base.db
[ "$(n_trials om "reused_from is not null")" = 0 ] && [ "$(sent)" = 36 ] || fail "reused across models"
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,50 --db t.db --run xb --reuse base.db --extra-body '{"x": 1}'
[ "$(n_trials xb "reused_from is not null")" = 0 ] && [ "$(sent)" = 44 ] || fail "reused across extra bodies"
# the scorer is not part of the request: a run scored otherwise still reuses (and re-scores)
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,50 --db t.db --run sc --reuse base.db --scorer exact
[ "$(n_trials sc "reused_from is not null")" = 8 ] || fail "scorer is not part of the request: should reuse"
# errors
expect_code 2 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0 --db t.db --run bad --reuse nope
assert_contains err "run: --reuse nope: neither a store file nor a run in t.db"
[ "$(q t.db "select count(*) from runs where name = 'bad'")" = 0 ] || fail "a refused run was recorded"
