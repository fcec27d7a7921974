# Bad input: an endpoint that is not an OpenAI API is recognised by the preflight, exit 2,
# before any trial: a wrong path (serve-sim at http://HOST:PORT/v2: /v1/models and
# /v1/chat/completions answer 404; it was "model-not-found" per trial), a web page at the
# address (/v1/models answers HTML). A server without /v1/models whose chat path exists is
# still run. A chat answer that is an HTML page stops the run at the first one (it was sent
# again and again before exit 3): test 972.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/95x-lib.bash"
. "$TESTS/servers/fake.sh"
setup_prior
sim_url=$SIM_URL
: >sim.log

# a wrong path on a real server (serve-sim)
RUN_ARGS[1]=$sim_url/v2
bad_run 2 "no OpenAI-compatible API at $sim_url/v2: GET $sim_url/v2/v1/models and POST $sim_url/v2/v1/chat/completions answered HTTP 404 and 404"
assert_contains err "give the server's base URL"
assert_not_contains err "model-not-found"
[ "$(q t.db "select count(*) from runs where name = 'bad'")" = 0 ] || fail "a run was recorded"

# an HTML page where the API should be
start_fake fake "{\"/v1/models\":[{\"status\":200,\"headers\":{\"Content-Type\":\"text/html\"},\"body\":\"<!DOCTYPE html><html><head><title>Open WebUI</title></head></html>\"}]}"
RUN_ARGS[1]=$FAKE_URL
bad_run 2 "$FAKE_URL/v1/models answered an HTML page, not the OpenAI API (a web UI, a login page or a proxy at this address?): <!DOCTYPE html><html><head><title>Open WebUI"
[ "$(fake_count fake /v1/chat/completions)" = 0 ] || fail "chat requests were sent to an HTML page"

# no /v1/models, but a chat path that answers (an empty request gets a 400): the run goes on
fake_script fake "{\"/v1/chat/completions\":[{\"status\":400,\"json\":{\"error\":{\"message\":\"messages is required\"}}},$(chat_ok "the answer")]}"
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,100 --db other.db --run nomodels
[ "$(fake_count fake /v1/chat/completions)" -gt 1 ] || fail "the trials were not sent"
