# dipmap rescore re-scores stored answers without sending anything: a new scorer into a new run
# (--as) or in place, recording the scorer version; answers an older dipmap stored as truncated
# (cut at the budget) are scored, and inline <think> it left in answers is split off.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 3
python3 - <<'PY'
import json
rows = [json.loads(l) for l in open("golden.jsonl")]
for r in rows: r["answers"].append("never said")
with open("two.jsonl", "w") as f:
    for r in rows: f.write(json.dumps(r) + "\n")
PY
start_sim sim --dataset golden.jsonl --model dipmap-sim:edge=1,dip=0
run_args
RUN_ARGS=("${RUN_ARGS[@]/golden.jsonl/two.jsonl}")
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,50,100 --db t.db --run r
sent=$(grep -c '/completions' sim.log)
[ "$(n_trials r "outcome = 'correct'")" = 9 ] || fail "fixture: kv should credit every answer"
[ "$(q t.db "select scorer_version from runs where name = 'r'")" = "kv/2" ] || fail "run did not record its scorer"
# all: every gold answer must occur; "never said" never does -> every trial wrong, in a new run
expect_code 0 "$DIPMAP" rescore r --scorer all --as r-all --db t.db
assert_contains out "rescored run r with all/2 into r-all: 9 answers scored, 9 trials changed outcome (0 now correct, 9 now wrong)"
assert_contains out "accuracy: 100.0% (9 of 9) -> 0.0% (0 of 9)"
assert_contains out "nothing was sent"
[ "$(grep -c '/completions' sim.log)" = "$sent" ] || fail "rescore sent requests"
[ "$(n_trials r-all "outcome = 'wrong'")" = 9 ] || fail "new run not rescored"
[ "$(n_trials r "outcome = 'correct'")" = 9 ] || fail "--as changed the original run"
[ "$(q t.db "select scorer_version, json_extract(settings_json, '$.scorer') from runs where name = 'r-all'")" = "all/2|all" ] ||
    fail "scorer not recorded: $(q t.db "select scorer_version, settings_json from runs where name = 'r-all'")"
[ "$(q t.db "select golden_sha256 = (select golden_sha256 from runs where name = 'r') from runs where name = 'r-all'")" = 1 ] ||
    fail "the new run lost its inputs"
# a store an older dipmap wrote: an answer cut at the budget stored as truncated, an inline
# <think> block left in an answer, no scorer version
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,50,100 --db t.db --run old --max-tokens 4
sqlite3 t.db "update trials set outcome = 'truncated', cut = 0, error = 'finish_reason length (output hit max tokens)'
              where run_id = (select id from runs where name = 'old') and depth_bp = 0;
              update trials set answer = '<think>' || answer || '</think>' || char(10) || 'no idea', finish_reason = 'stop'
              where run_id = (select id from runs where name = 'r') and depth_bp = 10000 and question_id = 'kv-0001';
              update runs set scorer_version = NULL where name in ('old', 'r')"
expect_code 0 "$DIPMAP" rescore old --scorer kv --db t.db
assert_contains out "3 answers cut at the answer budget (stored as truncated by an older dipmap) are now scored, flagged cut"
[ "$(n_trials old "outcome = 'wrong' and cut = 1")" = 9 ] || fail "old cut answers not scored: $(q t.db "select outcome, cut from trials t join runs r on r.id = t.run_id where r.name = 'old'")"
expect_code 0 "$DIPMAP" rescore r --scorer kv --db t.db
assert_contains out "1 trials changed outcome (0 now correct, 1 now wrong)"
[ "$(n_trials r "question_id = 'kv-0001' and depth_bp = 10000 and outcome = 'wrong' and answer = 'no idea' and reasoning is not null")" = 1 ] ||
    fail "inline thinking not split off: $(q t.db "select outcome, answer, reasoning from trials t join runs r on r.id = t.run_id where r.name = 'r' and depth_bp = 10000")"
[ "$(q t.db "select scorer_version from runs where name = 'r'")" = "kv/2" ] || fail "in place: version not recorded"
# errors: unknown run, existing --as, bad scorer, no golden set kept and none given
expect_code 2 "$DIPMAP" rescore nope --scorer kv --db t.db
assert_contains err "rescore: no run named 'nope'"
expect_code 2 "$DIPMAP" rescore r --scorer kv --as r-all --db t.db
assert_contains err "rescore: a run named 'r-all' already exists"
expect_code 2 "$DIPMAP" rescore r --scorer bogus --db t.db
assert_contains err "rescore: --scorer must be one of"
sqlite3 t.db "delete from golden_sets"
expect_code 2 "$DIPMAP" rescore r --scorer kv --db t.db
assert_contains err "give it with --dataset FILE"
expect_code 2 "$DIPMAP" rescore r --scorer kv --db t.db --dataset golden.jsonl
assert_contains err "is not the golden set of run 'r'"
expect_code 0 "$DIPMAP" rescore r --scorer kv --db t.db --dataset two.jsonl
