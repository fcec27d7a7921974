# compare refuses to pair runs scored differently (another scorer, or the same scorer at another
# version, e.g. a baseline scored before the scoring fixes) unless told; rescoring makes them
# comparable.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 12
start_sim sim --dataset golden.jsonl
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:25 --db t.db --run base
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:25 --db t.db --run cand
expect_code 0 "$DIPMAP" compare base cand --db t.db --pass-rule no-regression
# another scorer
expect_code 0 "$DIPMAP" rescore cand --scorer contains --as cand-c --db t.db
expect_code 4 "$DIPMAP" compare base cand-c --db t.db
assert_contains err "runs 'base' and 'cand-c' are not comparable: scored differently: kv/2 vs contains/2"
assert_contains err "dipmap rescore RUN --scorer NAME"
expect_code 0 "$DIPMAP" compare base cand-c --db t.db --allow-different-scoring \
    --pass-rule no-regression
assert_contains err "warning: comparing runs scored differently: scored differently: kv/2 vs contains/2"
# a baseline scored by an older dipmap (no version recorded = version 1)
sqlite3 t.db "update runs set scorer_version = NULL where name = 'base'"
expect_code 4 "$DIPMAP" compare base cand --db t.db
assert_contains err "scored differently: kv/1 vs kv/2"
expect_code 0 "$DIPMAP" rescore base --scorer kv --db t.db
expect_code 0 "$DIPMAP" compare base cand --db t.db --pass-rule no-regression
