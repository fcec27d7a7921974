# run --batch through serve-sim's Batch API: the states a batch goes through are shown while
# polling; the input lines carry the very bodies online mode sends (the stored request hashes
# and answers, and the gold's BM25 ranks, equal an online run's); files over
# --batch-max-requests are split; expired
# lines go into a new batch until every trial is stored; a line refused for its own fault
# (context exceeded) gets the online outcome; batch prices make the cost; a batch that fails
# validation names the provider's reason.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 4
start_sim sim --dataset golden.jsonl --ctx 1500 --batch-delay-ms 300 --batch-expire 0.25
run_args
ARGS=("${RUN_ARGS[@]}" --lengths 1k,2k --depths 0:100:25 --db t.db --price-in 2 --price-out 4 --no-context-check)
expect_code 0 "$DIPMAP" run "${ARGS[@]}" --run on
cp out on.out
expect_code 0 "$DIPMAP" run "${ARGS[@]}" --run b --batch --batch-poll 0.05 --batch-max-requests 15
assert_contains out "run b: complete"
for st in validating in_progress finalizing; do assert_contains err ": $st"; done
assert_contains err "expired: "
[ "$(n_trials b)" = 40 ] ||
    fail "expected 40 trials"
# 3 files in the first round (15 + 15 + 10), then new batches for the expired lines
[ "$(q t.db "select group_concat(requests) from (select requests from batches order by id limit 3)")" = 15,15,10 ] ||
    fail "files not split at 15 requests: $(q t.db 'select requests from batches')"
[ "$(q t.db "select count(*) from batches where status = 'expired'")" -ge 1 ] || fail "no batch expired"
[ "$(q t.db "select sum(requests) from batches")" -gt 40 ] || fail "expired lines were not sent again"
# the bodies are the online ones, byte for byte, and the answers are the same
[ "$(q t.db "select count(*) from trials a join runs ra on ra.id = a.run_id and ra.name = 'b'
      join trials o on o.question_id = a.question_id and o.length = a.length and o.depth_bp = a.depth_bp
      join runs ro on ro.id = o.run_id and ro.name = 'on'
      where a.request_sha256 = o.request_sha256 and a.outcome = o.outcome and a.answer is o.answer
      and a.gold_bm25_rank = o.gold_bm25_rank and a.bm25_docs = o.bm25_docs")" = 40 ] ||
    fail "batch trials differ from the online ones"
# 2k is over the server's context: overflow, as online
[ "$(n_trials b "t.outcome = 'overflow'")" = 20 ] ||
    fail "context-exceeded lines are not overflow"
# cost at batch prices (half the online prices by default): half the online run's for the
# same tokens (the expired lines were never run, so they cost nothing)
on_cost=$(sed -n 's/.*cost \$\([0-9.]*\).*/\1/p' on.out)
b_cost=$(sed -n 's/.*cost \$\([0-9.]*\).*/\1/p' out)
python3 -c "import sys; o, b = float('$on_cost'), float('$b_cost'); sys.exit(0 if o > 0 and abs(b - o / 2) <= 0.01 * o else 1)" ||
    fail "batch cost \$$b_cost is not half the online \$$on_cost"

# validation: a provider limit of 10 requests per batch fails the 40-line file, with its reason
start_sim sim2 --dataset golden.jsonl --batch-max-requests 10
SIM_URL2=$SIM_URL
run_args
expect_code 3 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k,2k --depths 0:100:25 --db v.db --run v --batch --batch-poll 0.05
assert_contains err "failed validation"
assert_contains err "the limit per batch is 10"
# split under the limit, the same run completes
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k,2k --depths 0:100:25 --db v.db --run v --batch --batch-poll 0.05 --batch-max-requests 10
[ "$(q v.db "select count(*) from trials")" = 40 ] || fail "expected 40 trials after splitting"
echo ok
