# Resuming a run whose inputs changed is refused (exit 2): dataset, template, settings.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 3
start_sim sim --dataset golden.jsonl
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,100 --db t.db --run ch
# the same golden set with each question reworded (an answer changed would now be refused on
# its own: the gold must state it)
sed 's/"question": "/"question": "Please answer: /' golden.jsonl >golden2.jsonl
cmp -s golden.jsonl golden2.jsonl && fail "test setup: dataset unchanged"
expect_code 2 "$DIPMAP" run "${RUN_ARGS[@]}" --dataset golden2.jsonl --lengths 1k --depths 0,100 --db t.db --run ch
assert_contains err "cannot resume run 'ch': its inputs changed (golden_sha256 differs)"
assert_contains err "free the name: 'dipmap rm ch' (or 'dipmap rename ch NEW' to keep it)"
expect_code 2 "$DIPMAP" run "${RUN_ARGS[@]}" --template "$REPO/prompts/qa.txt" --lengths 1k --depths 0,100 --db t.db --run ch
assert_contains err "template_sha256 differs"
expect_code 2 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,100 --max-tokens 99 --db t.db --run ch
assert_contains err 'setting "max-tokens" was 256, now 99'
# nothing was sent by the refused attempts and the run is untouched
[ "$(grep -c '/completions' sim.log)" = 6 ] || fail "refused resumes sent requests"
[ "$(q t.db "select status, count(*) from runs join trials on trials.run_id = runs.id")" = "complete|6" ] ||
    fail "run changed"
# a new name starts a new run with the changed inputs
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --dataset golden2.jsonl --lengths 1k --depths 0,100 --db t.db --run ch2
