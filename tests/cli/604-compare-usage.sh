# dipmap compare: usage errors exit 2 with a message naming the problem.
. "$TESTS/cli/lib/lib.sh"
expect_code 2 "$DIPMAP" compare onlyone
assert_contains err "error: compare needs two run names: BASELINE CANDIDATE"
expect_code 2 "$DIPMAP" compare a b --alpha 1.5
assert_contains err "--alpha must be between 0 and 1, not 1.5"
expect_code 2 "$DIPMAP" compare a b --tolerance -0.1
assert_contains err "--tolerance must be between 0 and 1"
expect_code 2 "$DIPMAP" compare a b --min-pairs 0
assert_contains err "--min-pairs must be at least 1"
expect_code 2 "$DIPMAP" compare a b --db missing.db
assert_contains err "missing.db"
expect_code 0 "$DIPMAP" compare --help
assert_contains out "--allow-different-inputs"
