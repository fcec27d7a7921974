# dipmap runs: the table lists every run, oldest first, with model (and the
# server's echo when it differs), status ("stalled": left running by a dead
# process), progress done/planned, created time, tags.
. "$TESTS/cli/lib/lib.sh"
helper=$(dirname "$DIPMAP")/tests/unit/test_store
[ -x "$helper" ] || helper=$REPO/build/tests/unit/test_store
[ -x "$helper" ] || fail "the test_store helper is not built"
"$helper" --fixtures "$PWD" || fail "cannot create the fixture databases"
"$DIPMAP" runs --db runs.db
