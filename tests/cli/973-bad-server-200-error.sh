# Bad input: 200 with an error object instead of choices -> the trial ends in error, exit 3 with the server's message.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/95x-lib.bash"
. "$TESTS/servers/fake.sh"
setup_prior
start_fake fake "{\"/v1/models\":[$(models_json dipmap-sim)],\"/v1/chat/completions\":[{\"status\":200,\"json\":{\"error\":{\"message\":\"CUDA out of memory\",\"type\":\"server_error\"}}}]}"
RUN_ARGS[1]=$FAKE_URL
bad_run 3 "CUDA out of memory" --max-attempts 2 --retry-base-ms 10 --concurrency 1
[ "$(n_trials bad "t.outcome = 'error'")" -ge 1 ] || fail "no error trial stored"
