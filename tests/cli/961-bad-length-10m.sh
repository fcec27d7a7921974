# Bad input: --lengths 10M (more than the distractor material can fill) -> exit 2 naming the question and length, before anything is recorded: no run row, no trial.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/95x-lib.bash"
setup_prior
bad_run 2 "cannot build the prompt of question kv-0001 at length 10485760" --lengths 10M
assert_contains err "not enough distractor material for 10485760 tokens"
[ "$(n_trials bad)" = 0 ] || fail "trials stored for the 10M run"
[ "$(q t.db "select count(*) from runs where name = 'bad'")" = 0 ] || fail "a run row was recorded for the refused 10M run"
