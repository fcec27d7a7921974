# A reasoning model that spends its budget: empty content -> stored as starved with the reasoning
# text and the reasoning tokens spent, excluded from accuracy; with nothing scored the run is not
# a success (exit 4).
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 3
start_sim sim --dataset golden.jsonl --reasoning 1
run_args
expect_code 4 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,50,100 --db t.db --run e
assert_contains err "no trial could be scored (9 starved)"
[ "$(q t.db "select count(*) from trials where outcome='starved' and reasoning is not null and reasoning != '' and reasoning_tokens = 256 and reasoning_chars = length(reasoning)")" = 9 ] ||
    fail "not stored as empty with reasoning: $(q t.db "select outcome, reasoning from trials")"
assert_not_contains out "accuracy:"
assert_contains out "starved 9"
assert_contains out "starved: 9 trial(s) spent the answer budget on reasoning (2304 reasoning tokens)"
