# compare and view pair two runs through one compare_doc, so both say when the runs were scored
# differently: view's compare page printed no note at all (its copy checked the inputs only),
# compare --allow-different-scoring warned on stderr but its Markdown and compare.json were silent.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 6
start_sim sim --dataset golden.jsonl
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,50,100 --db t.db --run base
expect_code 0 "$DIPMAP" rescore base --scorer contains --as cand-c --db t.db
# (six questions: too few for a verdict, exit 4)
expect_code 4 "$DIPMAP" compare base cand-c --db t.db --allow-different-scoring --json c.json
assert_contains out "scored differently: kv/2 vs contains/2 (--allow-different-scoring)"
assert_contains c.json "scored differently: kv/2 vs contains/2 (--allow-different-scoring)"
# the same pair in dipmap view
start_view t.db
curl -sf -o page.html "${VIEW_URL}compare?base=base&cand=cand-c" || fail "GET /compare failed"
assert_contains page.html "scored differently: kv/2 vs contains/2"
assert_not_contains page.html "(--allow-different-scoring)"
# runs scored alike: no note
expect_code 0 "$DIPMAP" rescore base --scorer kv --as base2 --db t.db
curl -sf -o same.html "${VIEW_URL}compare?base=base&cand=base2" || fail "GET /compare failed"
assert_not_contains same.html "scored differently"
echo ok
