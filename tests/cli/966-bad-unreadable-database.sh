# Bad input: an unreadable database file (mode 000; run as nobody when root) -> exit 2 naming it; the file is unchanged.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/95x-lib.bash"
setup_prior
cp t.db u.db
chmod 000 u.db
sum0=$(sha256sum u.db)
expect_code 2 as_nobody "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0 --db u.db --run x
assert_contains err "error: u.db: cannot open database: unable to open database file"
expect_code 2 as_nobody "$DIPMAP" runs --db u.db
assert_contains err "u.db"
[ "$(sha256sum u.db)" = "$sum0" ] || fail "u.db was modified"
chmod 644 u.db
check_store u.db
