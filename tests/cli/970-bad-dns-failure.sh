# Bad input: a host name that does not resolve (.invalid) -> exit 3 naming the URL.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/95x-lib.bash"
setup_prior
RUN_ARGS[1]=http://dipmap-test.invalid:8000
bad_run 3 "error: run: endpoint unreachable: http://dipmap-test.invalid:8000/v1/models: Could not resolve host: dipmap-test.invalid"
