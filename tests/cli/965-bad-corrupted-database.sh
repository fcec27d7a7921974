# Bad input: a corrupted database (not SQLite at all; a truncated copy) -> exit 2 naming the file, which is left byte-identical.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/95x-lib.bash"
setup_prior
head -c 5000 /dev/urandom >garbage.db
sum0=$(sha256sum garbage.db)
bad_run 2 "error: garbage.db: not a dipmap database (file is not a database)" --db garbage.db
[ "$(sha256sum garbage.db)" = "$sum0" ] || fail "garbage.db was modified"
head -c 5000 t.db >cut.db
sum1=$(sha256sum cut.db)
bad_run 2 "error: cut.db: not a dipmap database (database disk image is malformed)" --db cut.db
[ "$(sha256sum cut.db)" = "$sum1" ] || fail "cut.db was modified"
# the read-only commands say the same
expect_code 2 "$DIPMAP" runs --db cut.db
assert_contains err "error: cut.db: not a dipmap database (database disk image is malformed)"
expect_code 2 "$DIPMAP" report prior --db garbage.db --out rep
assert_contains err "garbage.db"
[ "$(sha256sum garbage.db)" = "$sum0" ] || fail "garbage.db was modified by report"
