# Bad input: --repeats 0 / -1 / x -> exit 2 naming the flag.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/95x-lib.bash"
setup_prior
bad_run 2 "error: run: --repeats must be 1 to 1000000 (got 0)" --repeats 0
bad_run 2 "error: run: --repeats must be 1 to 1000000 (got -1)" --repeats -1
bad_run 2 "repeats" --repeats x
