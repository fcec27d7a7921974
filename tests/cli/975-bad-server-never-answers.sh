# Bad input: a server that accepts the connection and never answers -> --timeout ends each attempt, exit 3 naming the timeout.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/95x-lib.bash"
. "$TESTS/servers/fake.sh"
setup_prior
start_fake fake "{\"/v1/models\":[$(models_json dipmap-sim)],\"/v1/chat/completions\":[{\"hang\":true}]}"
RUN_ARGS[1]=$FAKE_URL
bad_run 3 "with 0 bytes received (curl 28)" --timeout 1 --max-attempts 1 --concurrency 2 --depths 0
assert_contains err "Operation timed out after "
