# A reasoning model that spends its budget: empty content -> stored as empty with the reasoning
# text, excluded from accuracy.
. "$TESTS/cli/lib.sh"
. "$TESTS/data/run/lib.sh"
make_kv 3
start_sim sim --dataset golden.jsonl --reasoning 1
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,50,100 --db t.db --run e
[ "$(q t.db "select count(*) from trials where outcome='empty' and reasoning is not null and reasoning != ''")" = 9 ] ||
    fail "not stored as empty with reasoning: $(q t.db "select outcome, reasoning from trials")"
assert_not_contains out "accuracy:"
assert_contains out "empty 9"
