# merge of 3 of 4 shard stores used to yield a run that runs and report called "complete, N of
# N": the merged run records its shard set (1/4,2/4,3/4), and merge, runs (table and --json),
# report and a lone shard store's listing say which shard is missing. Planned counts are the whole
# matrix's (issue 30): 3 of 4 shards merged read 15/20 (75%), not 15/15 (100%), in merge, runs,
# runs --json, report and summary.json; a lone shard reads 5/20.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 4
start_sim sim --dataset golden.jsonl
run_args
for s in 1 2 3 4; do
    expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:25 --db s$s.db --run m --shard $s/4
done
expect_code 0 "$DIPMAP" merge part.db s1.db s2.db s3.db
assert_contains out "m: 15/20 trials, incomplete: shard 4/4 missing, shards 1/4,2/4,3/4"
assert_contains err "warning: run 'm' is incomplete: shard 4/4 missing"
expect_code 0 "$DIPMAP" runs --db part.db
assert_contains out "incomplete"
assert_contains out "15/20  75%"
grep -qw complete out && fail "runs still says complete: $(cat out)"
assert_contains err "note: 'm' is incomplete: shard 4/4 missing"
expect_code 0 "$DIPMAP" runs --db part.db --json
python3 -c 'import json; (r,) = json.load(open("out")); assert r["missing_shards"] == "4/4" and r["shard"] == "1/4,2/4,3/4" and r["trials_planned"] == 20 and r["trials_done"] == 15, r' ||
    fail "runs --json: $(cat out)"
expect_code 0 "$DIPMAP" report m --db part.db --no-plots --format md
assert_contains reports/m/summary.md "incomplete: shard 4/4 missing (this store holds shards 1/4,2/4,3/4), 15 of 20 planned trials finished"
expect_code 0 "$DIPMAP" report m --db part.db --no-plots --format json
python3 -c 'import json; r = json.load(open("reports/m/summary.json"))["run"]; assert r["trials_planned"] == 20, r' ||
    fail "summary.json: $(cat reports/m/summary.json)"
# a lone shard store says what the others are
expect_code 0 "$DIPMAP" runs --db s2.db
assert_contains err "'m' is incomplete: shard 1/4,3/4,4/4 missing"
assert_contains out "5/20  25%"
# the fourth shard completes it: no note, status complete
expect_code 0 "$DIPMAP" merge part.db s4.db
assert_contains out "m: 20/20 trials, complete"
assert_not_contains out "missing"
expect_code 0 "$DIPMAP" runs --db part.db --json
python3 -c 'import json; (r,) = json.load(open("out")); assert r["missing_shards"] is None and r["shard"] is None and r["status"] == "complete", r' ||
    fail "runs --json after the 4th shard: $(cat out)"
