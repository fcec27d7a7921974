# The template overhead is never stored unmeasured (issue 43 item 1). A llama-server started
# with --api-key answers /v1/models without a key but refuses /tokenize, /apply-template and
# the probe request: a 401 at the overhead step is the key refused (exit 2, as at the
# preflight, with the key hint), not "cannot measure the tokens the server adds ... taking 0",
# and no run is recorded. A resumed run's stored overhead is measured again: a run built
# against 0 (given by hand, or stored unmeasured by an older dipmap) is not resumed against a
# server that adds more, and keeps resuming when the overhead is given as it was built.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
. "$TESTS/servers/fake.sh"
make_kv 3
refused='{"status":401,"json":{"error":{"message":"Invalid API Key","type":"authentication_error"}}}'
start_fake fake "{\"/v1/models\":[$(models_json dipmap-sim)],\"/tokenize\":[$refused],\"/apply-template\":[$refused],\"/v1/chat/completions\":[$refused]}"
SIM_URL=$FAKE_URL run_args
OPENAI_API_KEY= expect_code 2 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,100 --db t.db --run keyless
assert_contains err "error: run: the endpoint refused the API key: $FAKE_URL/"
assert_contains err " answered HTTP 401"
assert_contains err "hint: no API key was sent; set OPENAI_API_KEY"
assert_not_contains err "cannot measure the tokens the server adds"
if [ -e t.db ]; then
    [ "$(q t.db "select count(*) from runs")" = 0 ] || fail "a run was recorded: $(q t.db "select name, settings_json from runs")"
fi
# a wrong key sent: the same, and the key is named as sent
OPENAI_API_KEY=sk-wrong-0000 expect_code 2 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,100 --db t.db --run wrongkey
assert_contains err "the endpoint refused the API key"
assert_contains err "hint: the key in OPENAI_API_KEY was sent and refused"
assert_not_contains err sk-wrong-0000

# resume: a run built against an overhead of 0, the server adds 15 (1.5 % of 1k: under the
# mismatch stop, as 2063 tokens for a 2048 target were)
start_sim sim --dataset golden.jsonl --template-overhead 15
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,100 --db t.db --run zero --template-overhead 0
expect_code 2 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,100 --db t.db --run zero
assert_contains err "error: run: cannot resume run 'zero': its prompts were built for a template overhead of 0 tokens per request, but the server adds 15 "
assert_contains err "so its stored trials are not at their lengths for this server"
assert_contains err "--template-overhead 0 resumes it as it was built"
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,100 --db t.db --run zero --template-overhead 0
assert_contains out "run zero: complete"
