# dipmap runs: a missing database, a file that is not a database, an empty
# database and a stray argument all fail with exit 2 and a clear message.
. "$TESTS/cli/lib/lib.sh"
expect_code 2 env -u DIPMAP_DB "$DIPMAP" runs
assert_contains err "error: dipmap.db: no such database"
assert_contains err "hint: pass --db FILE or set DIPMAP_DB"

head -c 10000 /dev/urandom >junk.db
printf 'SQLite format 3\000 but not really' >>junk.db
expect_code 2 "$DIPMAP" runs --db junk.db
assert_contains err "error: junk.db: not a dipmap database"

: >empty.db
expect_code 2 "$DIPMAP" runs --db empty.db
assert_contains err "empty.db: empty database"

printf 'hello\n' >text.db
expect_code 2 "$DIPMAP" runs --db text.db
assert_contains err "text.db: not a dipmap database"

expect_code 2 "$DIPMAP" runs --db junk.db extra
assert_contains err "unexpected argument 'extra'"
expect_code 2 "$DIPMAP" runs --bogus
expect_code 0 "$DIPMAP" runs --help
assert_contains out "dipmap runs [--db FILE] [--model PREFIX] [--tag TAG] [--json | --names]"
