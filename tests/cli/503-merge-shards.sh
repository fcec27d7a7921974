# dipmap merge: two shard stores of one run join into one store holding the
# union (300 of 300 trials, complete, no shard label); merging again is
# idempotent; shards of different runs are refused and nothing is written.
. "$TESTS/cli/lib/lib.sh"
helper=$(dirname "$DIPMAP")/tests/unit/test_store
[ -x "$helper" ] || helper=$REPO/build/tests/unit/test_store
[ -x "$helper" ] || fail "the test_store helper is not built"
"$helper" --fixtures "$PWD" || fail "cannot create the fixture databases"

expect_code 0 "$DIPMAP" runs --db shard0.db
assert_contains out "150/150"

expect_code 0 "$DIPMAP" merge all.db shard0.db shard1.db
assert_contains out "merged 2 inputs into all.db"
assert_contains out "big: 300/300 trials, complete"
expect_code 0 "$DIPMAP" runs --db all.db --json
python3 - out <<'PY' || fail "merged run is wrong"
import json, sys
(r,) = json.load(open(sys.argv[1]))
assert r["name"] == "big" and r["shard"] is None, r
assert (r["trials_done"], r["trials_planned"], r["trials_stored"]) == (300, 300, 300), r
assert r["status"] == "complete"
PY
if command -v sqlite3 >/dev/null; then
    [ "$(sqlite3 all.db 'PRAGMA integrity_check')" = ok ] || fail "merged store fails integrity_check"
    [ "$(sqlite3 all.db 'SELECT count(*) FROM (SELECT DISTINCT question_id, length, depth_bp, repeat FROM trials)')" = 300 ] ||
        fail "merged store does not hold 300 distinct trials"
fi

# again: nothing duplicated
expect_code 0 "$DIPMAP" merge all.db shard1.db
assert_contains out "big: 300/300 trials, complete"
assert_contains err "150 trial(s) were present in more than one input"

# different runs under one name: refused, output untouched
expect_code 2 "$DIPMAP" merge bad.db shard0.db other-run.db
assert_contains err "refusing to merge shards of different runs"
assert_contains err "golden_sha256 differs"
assert_contains err "other-run.db"
expect_code 0 "$DIPMAP" runs --db bad.db
[ -s out ] && fail "a refused merge must not write runs"

expect_code 2 "$DIPMAP" merge only-out.db
assert_contains err "need an output database and at least one input"
expect_code 2 "$DIPMAP" merge out.db missing.db
assert_contains err "missing.db: no such database"
expect_code 2 "$DIPMAP" merge shard0.db shard0.db
assert_contains err "both the output and an input"
exit 0
