# --lengths 25%,50%,90%: fractions of the context the server reports (serve-sim --ctx 8192:
# 2048, 4096, 7372 tokens), stored as tokens and built to them; a resume with the same
# fractions sends nothing; a server that reports no context, or a bad percentage, is refused
# before anything is sent (exit 2).
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
start_sim ctx --dataset "$REPO/datasets/needle.jsonl" --ctx 8192
args=(--model dipmap-sim --dataset "$REPO/datasets/needle.jsonl" --template needle
    --haystack "$REPO/datasets/nq-haystack.jsonl.gz" --depths 0,100 --progress none --db t.db)
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" "${args[@]}" --lengths 25%,50%,90% --run p
assert_contains err "lengths 25%,50%,90% of the server's context (8192 tokens): 2048, 4096, 7372 tokens"
[ "$(q t.db "select group_concat(length) from (select distinct length from trials order by length)")" = \
    "2048,4096,7372" ] || fail "lengths not stored as tokens"
[ "$(q t.db "select count(*) from trials where realized_length > length or realized_length < length - 8")" = 0 ] ||
    fail "prompts not built to the resolved lengths"
q t.db "select settings_json from runs where name = 'p'" | grep -q '"lengths":\[2048,4096,7372\]' ||
    fail "the run's identity does not hold the tokens"
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" "${args[@]}" --lengths 25%,50%,90% --run p
assert_contains out "requests: 0 (0 retries)"
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" "${args[@]}" --lengths 25%,1k --run p2 --dry-run
assert_contains err "(8192 tokens): 2048, 1024 tokens"
expect_code 2 "$DIPMAP" run --endpoint "$SIM_URL" "${args[@]}" --lengths 0%,50% --run p3
assert_contains err "--lengths: '0%' is not a percentage of the context"
start_sim noctx --dataset "$REPO/datasets/needle.jsonl"
expect_code 2 "$DIPMAP" run --endpoint "$SIM_URL" "${args[@]}" --lengths 50% --run p4
assert_contains err "--lengths: 50% needs the server's context size, and the server reports none"
expect_code 2 "$DIPMAP" run "${args[@]}" --lengths 50% --run p5 --dry-run
assert_contains err "is relative to the server's context: give --endpoint"
[ "$(q t.db "select count(*) from runs")" = 1 ] || fail "a refused run was recorded"
