# Bad input: a server that keeps answering 200 with an HTML page -> the run stops after 5 such
# answers in a row (one is a proxy's glitch and is retried like a 502: test 406; a page that
# stays is not an API: before the stop it sent 16 requests over 19 s and exited 3), exit 2 as
# for any endpoint that refuses the run, saying how many and quoting the page; store intact.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/95x-lib.bash"
. "$TESTS/servers/fake.sh"
setup_prior
start_fake fake "{\"/v1/models\":[$(models_json dipmap-sim)],\"/v1/chat/completions\":[{\"status\":200,\"headers\":{\"Content-Type\":\"text/html\"},\"body\":\"<html><body>Gateway login</body></html>\"}]}"
RUN_ARGS[1]=$FAKE_URL
bad_run 2 "5 answers in a row were HTML pages (one is retried as a proxy's glitch, 5 in a row stop the run); the last: HTTP 200 with an HTML page, not an OpenAI API answer (a login page, a proxy or a web UI at this address?): <html><body>Gateway login" --max-attempts 5 --retry-base-ms 10 --concurrency 1
# the template-overhead probe and the first trial's 5 attempts
[ "$(fake_count fake /v1/chat/completions)" -le 6 ] || fail "$(fake_count fake /v1/chat/completions) requests were sent to an HTML page"
assert_contains err "run: the endpoint refused the run: bad-body: 5 answers in a row were HTML pages"
