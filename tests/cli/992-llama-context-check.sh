# Real llama-server with a 2048-token context (-c 2048, one slot; GET /props says so):
# a length that cannot fit with its answer budget is refused before anything is sent
# (exit 2, naming the server's context), and forced through with --no-context-check every
# trial is recorded as overflow (the server's 400 exceed_context_size_error), never as
# correct or wrong, and the run, having scored nothing, exits 4.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/llama/lib.sh"
llama_require
llama_tokenizer
llama_golden 2 3
llama_start srv -c 2048 -np 1 --log-verbose
ctx=$(curl -s "$LLAMA_URL/props" | python3 -c 'import json,sys; print(json.load(sys.stdin)["default_generation_settings"]["n_ctx"])')
[ "$ctx" = 2048 ] || fail "/props n_ctx is '$ctx', expected 2048"
llama_run big --lengths 1k,2k --depths 0,100 --max-tokens 16
[ "$LLAMA_RC" = 2 ] || { cat run-big.err >&2; fail "a 2k length on a 2048 context: exit $LLAMA_RC, expected 2"; }
assert_contains run-big.err "2048"
[ "$(llama_check requests "$LLAMA_LOG")" = 0 ] || fail "requests were sent before the refusal"
[ "$(q t.db "select count(*) from trials" 2>/dev/null || echo 0)" = 0 ] || fail "trials stored for a refused run"
# forced through: overflow, never scored
llama_run forced --lengths 3k --depths 0,50,100 --max-tokens 16 --no-context-check
[ "$LLAMA_RC" = 4 ] || { cat run-forced.err >&2; fail "a run whose every trial overflowed exited $LLAMA_RC, expected 4"; }
assert_contains run-forced.err "no trial could be scored (6 overflow)"
[ "$(q t.db "select count(*) from trials t join runs r on r.id = t.run_id where r.name = 'forced' and outcome = 'overflow'")" = 6 ] ||
    fail "outcomes: $(q t.db "select outcome, error from trials")"
[ "$(q t.db "select count(*) from trials where outcome in ('correct','wrong')")" = 0 ] || fail "an overflow was scored"
assert_contains run-forced.out "overflow 6"
