# Bad input: an endpoint refusing connections -> exit 3 naming the URL, before the run is stored.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/95x-lib.bash"
setup_prior
closed_port
port=$CLOSED_PORT
RUN_ARGS[1]="http://127.0.0.1:$port"
bad_run 3 "error: run: endpoint unreachable: http://127.0.0.1:$port/v1/models: Failed to connect"
[ "$(q t.db "select count(*) from runs")" = 1 ] || fail "a run was stored"
