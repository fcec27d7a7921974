# Bad input: --lengths 0, negative, 8q, empty item -> exit 2 naming the flag and value, before anything is stored.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/95x-lib.bash"
setup_prior
for v in 0 -5 8q 1k,,2k 1.5k; do
    bad_run 2 "error: run: --lengths: '" --lengths "$v"
    assert_contains err "is not a token count (e.g. 8k, 32k, 4096)"
done
bad_run 2 "error: run: --lengths: '8q' is not a token count" --lengths 8q
[ "$(q t.db "select count(*) from runs")" = 1 ] || fail "a refused run was stored"
