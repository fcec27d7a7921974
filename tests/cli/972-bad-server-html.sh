# Bad input: a server answering 200 with an HTML page -> the trial ends in error, exit 3 quoting the body; store intact.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/95x-lib.bash"
. "$TESTS/servers/fake.sh"
setup_prior
start_fake fake "{\"/v1/models\":[$(models_json dipmap-sim)],\"/v1/chat/completions\":[{\"status\":200,\"headers\":{\"Content-Type\":\"text/html\"},\"body\":\"<html><body>Gateway login</body></html>\"}]}"
RUN_ARGS[1]=$FAKE_URL
bad_run 3 "HTTP 200 with a body that is not a JSON object: <html><body>Gateway login" --max-attempts 2 --retry-base-ms 10 --concurrency 1
assert_contains err "run: stopped: "
