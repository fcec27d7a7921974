# --tag given on a resume is added to the run (it used to be ignored silently); tags the run
# already has are not repeated; a resume without --tag keeps them.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 2
start_sim sim --dataset golden.jsonl
run_args
A=(--lengths 1k --depths 0,100 --db t.db --run r)
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" "${A[@]}" --tag nightly
[ "$(q t.db "select tags from runs where name='r'")" = nightly ] || fail "tag not stored"
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" "${A[@]}" --tag gpu-a --tag nightly
assert_contains err "run 'r': tag(s) added: gpu-a (now nightly,gpu-a)"
[ "$(q t.db "select tags from runs where name='r'")" = nightly,gpu-a ] ||
    fail "tags: $(q t.db "select tags from runs")"
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" "${A[@]}"
assert_not_contains err "tag(s) added"
[ "$(q t.db "select tags from runs where name='r'")" = nightly,gpu-a ] || fail "tags lost"
expect_code 0 "$DIPMAP" runs --db t.db --tag gpu-a
assert_contains out "nightly,gpu-a"
