# Bad input: the database on a read-only path (procfs; a read-only directory; a read-only file) -> exit 2 naming it, nothing changed.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/95x-lib.bash"
setup_prior
bad_run 2 "error: /proc/dipmap-test.db: cannot open database: unable to open database file" --db /proc/dipmap-test.db
mkdir ro && chmod 555 ro
expect_code 2 as_nobody "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0 --db ro/new.db --run x
assert_contains err "error: ro/new.db: cannot open database: unable to open database file"
[ ! -e ro/new.db ] || fail "ro/new.db was created"
cp t.db r.db && chmod 444 r.db
sum0=$(sha256sum r.db)
expect_code 2 as_nobody "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0 --db r.db --run x
assert_contains err "error: r.db: "
assert_contains err "readonly database"
[ "$(sha256sum r.db)" = "$sum0" ] || fail "r.db was modified"
check_store r.db
